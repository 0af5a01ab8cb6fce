"""The mixed suite's cases: a packed weight tile read into mma v2 B (or wgmma A) operand registers and upcast to bf16,
three ways side by side (runtime/bench/mixed.py), with llgen's two-step plan of swaps as a fourth path where the buffer
is K-strided (llgen.plan.chain):

1. Triton 3.6: the bytes in Triton's NVMMA shared layout, ``local_load`` into the dot operand, ``fp4_to_fp``;
2. llgen plain: the same buffer, llgen's 4-bit endpoint load (llgen.plan.packed) and its upcast;
3. llgen pre-shuffled: the tile in G's order (llgen.plan.preshuffle), 16-byte loads straight into the registers.

Here: the cases, and the llgen kernels' sources with the host images of their buffers, so the CPU tests run what the
GPU times."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from llgen.core.dtypes import dtype
from llgen.emit import emit
from llgen.emit import preshuffle as EP
from llgen.layouts.shared import NvmmaShared, SwizzledShared
from llgen.plan.endpoint import plan_load, plan_store
from llgen.plan.packed import byte_plan
from llgen.plan.preshuffle import FAST_TYPES, PreshufflePlan, scale_layout
from llgen.spec import parse_layout

MX_BLOCK = 32  # an mx type's scale block along K
N = 64  # the other dim of the tile: B's columns (mma v2 B over 4 warps side by side along N), A's rows
WARPS = 4
CTAS_PER_SM = 4  # a LOOP kernel's CTAs resident on an SM: its launch bounds hold it to 128 registers a thread

OPERANDS = {  # operand -> (its bf16 dot operand text with kWidth {kw}, the dim K runs along)
    "mma2B": (
        "#ttg.dot_op<{{opIdx = 1, parent = #ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 4], "
        "instrShape = [16, 8]}}>, kWidth = {kw}}}>",
        0,
    ),
    "wgmmaA": (
        "#ttg.dot_op<{{opIdx = 0, parent = #ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 64, 16]}}>, kWidth = {kw}}}>",
        1,
    ),
}


@dataclass(frozen=True)
class MixedCase:
    """A tile of ``dtype`` (4-bit: two along K to a byte) with K ``k`` into the bf16 registers of ``operand``; ``kmajor``:
    the shared buffer holds the bytes K-contiguous (a weight stored N x K, or A row-major), else along the other dim."""

    operand: str
    dtype: str
    k: int
    kmajor: bool
    out: str = "bf16"  # the upcast's type: bf16, or f16 for 4-bit types
    mx: bool = False  # mxfp4: e8m0 scales, one per MX_BLOCK along K, multiply the bf16 values (LOOP form only)

    @property
    def id(self) -> str:
        tail = ("" if self.out == "bf16" else f"_{self.out}") + ("_mx" if self.mx else "")
        return f"{self.operand}_{self.dtype}_k{self.k}_{'kmajor' if self.kmajor else 'kstrided'}{tail}"

    @property
    def scale_shape(self) -> tuple[int, int]:
        """The scales' tile: K divided by the block."""
        return tuple(n // MX_BLOCK if d == self.axis else n for d, n in enumerate(self.shape))

    @property
    def scale_bytes(self) -> int:
        return self.scale_shape[0] * self.scale_shape[1]

    def scale_layout(self):
        """The scales each thread needs (llgen.plan.preshuffle.scale_layout): one register a distinct scale."""
        return scale_layout(self.layout(), self.axis, MX_BLOCK)

    @property
    def packed(self) -> bool:
        return dtype(self.dtype).sub_byte

    @property
    def axis(self) -> int:
        """The dim K runs along: 0 for B (K x N), 1 for A (M x K)."""
        return OPERANDS[self.operand][1]

    @property
    def shape(self) -> tuple[int, int]:
        return (self.k, N) if self.axis == 0 else (N, self.k)

    @property
    def byte_shape(self) -> tuple[int, int]:
        """Triton's i8 tensor of the tile: K halved for a 4-bit type."""
        return tuple(n // 2 if d == self.axis and self.packed else n for d, n in enumerate(self.shape))

    @property
    def tile_bytes(self) -> int:
        return self.byte_shape[0] * self.byte_shape[1]

    @property
    def k_width(self) -> int:
        """The bf16 operand's kWidth: a thread's 4 bytes along K (8 4-bit or 4 8-bit elements)."""
        return 8 if self.packed else 4

    @property
    def transposed(self) -> bool:
        """NVMMA's flag: the buffer's contiguous dim is dim 0."""
        return self.kmajor == (self.axis == 0)

    @property
    def swizzle(self) -> int:
        """Triton's default NVMMA swizzle for the byte tile (get_default_for): its contiguous row, up to 128 bytes."""
        return min(128, self.byte_shape[0] if self.transposed else self.byte_shape[1])

    def layout(self):
        return parse_layout(OPERANDS[self.operand][0].format(kw=self.k_width), self.shape, WARPS)

    def shared(self) -> NvmmaShared:
        return NvmmaShared(self.swizzle, 8, self.transposed)


CASES = [
    MixedCase(op, dt, k, km)
    for op in OPERANDS
    for dt in ("e2m1", "i4", "i8", "f8e4m3")
    for k in (64, 128, 256)
    for km in ((True, False) if op == "mma2B" else (True,))
] + [MixedCase(op, dt, 128, True, "f16") for op in OPERANDS for dt in ("e2m1", "i4")]  # the f16 upcasts, at one K
CASES += [MixedCase(op, "e2m1", k, True, mx=True) for op in OPERANDS for k in (128, 256)]  # mxfp4
SCALE_SHARED = SwizzledShared(1, 1, 1, (1, 0))  # the scales' buffer: row-major, as a kernel stages them


def scale_plan(case: MixedCase) -> PreshufflePlan:
    """The scales' G (llgen preshuffle --scale-block): path 3 reads them from it."""
    return preshuffle_plan(case).scales


def _g_scales(case: MixedCase) -> str:
    """The scales' G loader header (namespace ms): path 3 and the upcast alone read scales alike."""
    return EP.header(scale_plan(case), "ms", "g")


def plain_plan(case: MixedCase, form: str | None = None):
    """llgen's endpoint load of the case's buffer: its pick, or ``form`` ("two_step": the chain of swaps, which the
    pick leaves out until measured)."""
    return plan_load(case.shared(), case.layout(), case.dtype, "sm_90", form)


def preshuffle_plan(case: MixedCase) -> PreshufflePlan:
    """The pre-shuffled loader's plan; an mx case's carries its scales (the header's scaled upcast)."""
    decode = "fast" if case.dtype in FAST_TYPES else "plain"  # the 4-bit types' nibble order and i8's byte order
    return PreshufflePlan(case.layout(), case.shape, dtype(case.dtype), case.axis, decode, MX_BLOCK if case.mx else None)


def _g_header(case: MixedCase) -> tuple[str, str]:
    """The pre-shuffled loader's header (namespace mg) and the statement upcasting its words w (an mx case: times
    the scales' words sw, the one-multiply path; _MX_EXACT where a scale is above 128) into h (bf16 pairs)."""
    return EP.header(preshuffle_plan(case), "mg", "g"), "upcast_bf16_fit(w, sw, h);" if case.mx else f"upcast_{case.out}(w, h);"


_MX_EXACT = "upcast_bf16(w, sw, h);"  # an mx loop's exact upcast, where some scale of the CTA's is above 128


def _plain_header(case: MixedCase, form: str | None = None) -> tuple[str, str, str]:
    """llgen's endpoint load header (namespace mp), the statement upcasting its bytes b into h, and h's length."""
    text = emit(plain_plan(case, form), "header", "mp")
    if case.packed:
        return text, f"upcast_{case.out}(b, h);", "kRegs"
    up = f"\n#pragma unroll\n    for (int j = 0; j < kRegs / 2; ++j) h[j] = pair_{case.out}<0>(b[2 * j] | (b[2 * j + 1] << 8));"
    return text + EP.pair_upcasts(case.dtype, "mp"), up, "kRegs / 2"


def plain_source(case: MixedCase, form: str | None = None) -> str:
    """Path 2: ``mixed_plain(x, y, steps)``, x both stages' bytes in S's order, y each thread's XOR of its bf16 words."""
    header, up, words = _plain_header(case, form)
    read = "    unsigned char b[kRegs];\n    load(smem + (i & mask) * kSmemBytes, b);"
    stages = "kSmemBytes"
    if case.mx:  # the scales' two stages after the data's, row-major, read by llgen's endpoint load
        header += emit(plan_load(SCALE_SHARED, case.scale_layout(), "e8m0", "sm_90"), "header", "msp")
        header += EP.header(preshuffle_plan(case), "mgs", "g")  # for its scale_bf16
        stages = f"(kSmemBytes + {case.scale_bytes})"
        read += (
            "\n    unsigned char sb[llgen::msp::kRegs];"
            f"\n    llgen::msp::load(smem + 2 * kSmemBytes + (i & mask) * {case.scale_bytes}, sb);"
            "\n    unsigned sw[llgen::mgs::kScaleWords] = {};"
            "\n    for (int r = 0; r < llgen::msp::kRegs; ++r) sw[r / 4] |= unsigned(sb[r]) << (8 * (r % 4));"
        )
        up += "\n    llgen::mgs::scale_bf16(h, sw);"
    return header + _Kernel("mixed_plain", "mp", words, up, prologue=_stages("1024", stages), body=read).text


def preshuffled_source(case: MixedCase) -> str:
    """Path 3: ``mixed_g(x, y, steps)``, x both stages' bytes in G's order."""
    header, up = _g_header(case)
    read = "    unsigned w[kWords];\n    load(smem + (i & mask) * kTileBytes, 0u, 0u, w);"
    prologue, choose = _stages("16", "(int)kTileBytes"), ""
    if case.mx:  # the scales' two stages after the data's, each in the scales' G; whether all fit, decided once
        header += _g_scales(case)
        prologue = _stages("16", f"((int)kTileBytes + {case.scale_bytes})")
        scales = f"smem + 2 * kTileBytes + {{s}} * {case.scale_bytes}"
        prologue += (
            "  bool fits = true;\n  for (int s = 0; s < 2; ++s) {\n    unsigned sw[llgen::ms::kWords];\n"
            f"    llgen::ms::load({scales.format(s='s')}, 0u, 0u, sw);\n    fits = fits && scales_fit(sw);\n  }}\n"
        )
        read += f"\n    unsigned sw[llgen::ms::kWords];\n    llgen::ms::load({scales.format(s='(i & mask)')}, 0u, 0u, sw);"
        choose = "fits"
    kernel = _Kernel("mixed_g", "mg", "kRegisters / 2", up, prologue=prologue, body=read, choose=choose, up_else=_MX_EXACT)
    return header + kernel.text


def _stages(align: str, stage: str) -> str:
    """The LOOP's prologue: both stages copied from x into a 2-stage buffer of ``stage`` bytes each."""
    return f"""  alignas({align}) __shared__ unsigned char smem[2 * {stage}];
  for (int i = threadIdx.x; i < 2 * {stage} / 16; i += blockDim.x)
    reinterpret_cast<uint4*>(smem)[i] = reinterpret_cast<const uint4*>(x)[i];
  __syncthreads();
"""


@dataclass(frozen=True)
class _Kernel:
    """A bench kernel ``name``(x, y, count, mask) of 128 threads: ``prologue``, then ``count`` times ``body`` (which
    reads registers) and ``up`` (which upcasts them into h[words]) XOR-accumulated, then each thread's words to y.

    With ``choose`` (an expression of the prologue's), the loop is written twice, ``up`` where it holds and
    ``up_else`` where not: a decision made once, outside the loop (a branch in the loop lets LLVM merge what the
    two sides feed the accumulation, holding every pair live at the join: 143 registers against 96 at K = 256).
    ``mask`` is 1 at run time (a LOOP's stage is ``i & mask``; the upcast alone XORs its words with it): ptxas cannot
    see its value, so it cannot hoist a step's loads or upcast out of the loop; the loop is not unrolled, so its SASS
    is one step. ``fold`` (STREAM): one accumulator a thread, word j rotated left by j (a word in the wrong register
    shows), written to y[thread]: few registers, so enough CTAs stay resident to keep HBM busy."""

    name: str
    ns: str  # the namespace of the header it calls
    words: str
    up: str
    count: str = "steps"
    x_type: str = "const unsigned char*"
    prologue: str = ""
    body: str = ""
    fold: bool = False
    capped: bool = True  # a LOOP's paths: at most 128 registers, so CTAS_PER_SM stay resident as timed
    choose: str = ""
    up_else: str = ""

    @property
    def text(self) -> str:
        w = self.words
        if self.fold:
            acc, keep = "  unsigned acc = 0u;\n", "acc ^= (h[j] << (j & 31)) | (h[j] >> ((32 - j) & 31));"
            out = "  y[blockIdx.x * blockDim.x + threadIdx.x] = acc;"
        else:
            acc, keep = f"  unsigned acc[{w}];\n  for (int j = 0; j < {w}; ++j) acc[j] = 0u;\n", "acc[j] ^= h[j];"
            out = f"  for (int j = 0; j < {w}; ++j) y[(blockIdx.x * blockDim.x + threadIdx.x) * ({w}) + j] = acc[j];"
        bounds = f"128, {CTAS_PER_SM}" if self.capped and not self.fold else "128"

        def loop(up: str) -> str:
            return f"""{"#pragma unroll 2" if self.fold else "#pragma unroll 1"}
  for (int i = 0; i < {self.count}; ++i) {{
{self.body}
    unsigned h[{w}];
    {up}
#pragma unroll
    for (int j = 0; j < {w}; ++j) {keep}
  }}
"""

        loops = (
            f"  if ({self.choose}) {{\n{loop(self.up)}  }} else {{\n{loop(self.up_else)}  }}\n" if self.choose else loop(self.up)
        )
        return f"""
extern "C" __global__ void __launch_bounds__({bounds}) {self.name}({self.x_type} __restrict__ x, unsigned* y, int {self.count}, int mask) {{
  using namespace llgen::{self.ns};
{self.prologue}{acc}{loops}{out}
}}
"""


def tiles(case: MixedCase, seed: int = 0, n: int = 2) -> np.ndarray:
    """``n`` random tiles of the case's elements, [n, *shape] (two: the LOOP's stages): 4-bit values 0..15, or bytes
    (fp8 without its NaN, whose bits a conversion need not keep)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 16 if case.packed else 256, (n, *case.shape), dtype=np.int64)
    if case.dtype == "f8e4m3":
        x[(x & 0x7F) == 0x7F] = 0
    return x


def byte_tiles(case: MixedCase, x: np.ndarray) -> np.ndarray:
    """The two tiles as Triton holds them, [2, *byte_shape]: K packed in pairs (the even k low) for 4-bit types."""
    if not case.packed:
        return x.astype(np.uint8)
    ax = case.axis + 1
    even, odd = np.take(x, range(0, x.shape[ax], 2), axis=ax), np.take(x, range(1, x.shape[ax], 2), axis=ax)
    return (even | (odd << 4)).astype(np.uint8)


def staged(case: MixedCase, seed: int = 0):
    """A LOOP's two stages: the tiles, and for an mx case (tiles, scales), the scales e8m0 bytes in 100..128 (values
    times 2^-27..2^1): mx quantization gives a block whose largest magnitude is below 16 a scale of at most 128, so
    weights take the scaled upcast's one-multiply path (the loader checks test the other)."""
    x = tiles(case, seed)
    if not case.mx:
        return x
    return x, np.random.default_rng(seed + 1).integers(100, 129, (2, *case.scale_shape), dtype=np.int64)


def plain_image(case: MixedCase, x) -> np.ndarray:
    """The tiles of ``x`` (a LOOP's two stages) in S's offset order, one after another, then an mx case's scales,
    row-major: path 2's buffer."""
    data, scales = x if case.mx else (x, None)
    s = byte_plan(plain_plan(case)).shared
    offs = np.arange(1 << s.total_in_bits)
    coords = np.array([list(s.apply({"offset": int(o)}).values()) for o in offs])
    parts = [tile[coords[:, 0], coords[:, 1]] for tile in byte_tiles(case, data)]
    return np.concatenate(parts + ([] if scales is None else [scales.astype(np.uint8).reshape(-1)]))


# STREAM: a whole weight, stored as dense row-major byte tiles one after another (path 3: each tile in G's order),
# each CTA reading stream_per tiles in turn into the operand's registers, upcast, XOR-reduced
STREAM_BYTES = 512 << 20  # past the L2, and long enough (~0.2 ms) that a launch's ramp weighs little (at 64 MiB it held
# a plain read of the bytes to 0.72 of a copy's GB/s, at 256 MiB to 0.89, at 512 MiB 0.93: probes/mixed_stream.py)
CTA_BYTES = 32 << 10  # a CTA's share: 2048 CTAs over the weight, whatever the tile


def stream_per(case: MixedCase) -> int:
    """Tiles a STREAM CTA reads in turn."""
    return CTA_BYTES // case.tile_bytes


def stream_tiles(case: MixedCase) -> int:
    return STREAM_BYTES // case.tile_bytes


READ_SOURCE = r"""
extern "C" __global__ void __launch_bounds__(128) plain_read(const uint4* __restrict__ x, unsigned* y, int per) {
  // STREAM's ceiling in its own grid: each CTA's CTA_BYTES read as coalesced 16-byte loads, nothing else
  const uint4* p = x + (unsigned long long)blockIdx.x * per * 128 + threadIdx.x;
  unsigned acc = 0u;
#pragma unroll 2
  for (int i = 0; i < per; ++i) {
    const uint4 v = p[i * 128];
    acc ^= v.x ^ (v.y << 1) ^ (v.z << 2) ^ (v.w << 3);
  }
  y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""


def store_layout(case: MixedCase) -> str:
    """The coalesced blocked layout path 2 reads a byte tile from global memory in: 16 bytes a thread along the row."""
    c = case.byte_shape[1]
    tpw = "[8, 4]" if c >= 64 else "[16, 2]"
    return f"#ttg.blocked<{{sizePerThread = [1, 16], threadsPerWarp = {tpw}, warpsPerCTA = [{WARPS}, 1], order = [1, 0]}}>"


_TILE = "    const unsigned char* tile = x + static_cast<unsigned long long>(blockIdx.x * per + i) * TILE_BYTES;\n"


def plain_stream_source(case: MixedCase, form: str | None = None) -> str:
    """Path 2's STREAM, ``mixed_plain_stream(x, y, per)``: each tile read from global memory in a coalesced blocked
    layout and stored into S by llgen's store endpoint, then llgen's 4-bit (or 8-bit) load and upcast."""
    store = plan_store(parse_layout(store_layout(case), case.byte_shape, WARPS), case.shared(), "i8", "sm_90")
    header, up, words = _plain_header(case, form)
    body = (
        _TILE
        + """    unsigned char a[llgen::st::kRegs];
    llgen::st::load_a(tile, a);
    llgen::st::store(a, smem);
    __syncthreads();
    unsigned char b[kRegs];
    load(smem, b);
    __syncthreads();"""
    )
    smem = "  alignas(1024) __shared__ unsigned char smem[kSmemBytes];\n"
    kernel = _Kernel("mixed_plain_stream", "mp", words, up, count="per", prologue=smem, body=body, fold=True)
    return emit(store, "header", "st") + header + f"#define TILE_BYTES {case.tile_bytes}ull\n" + kernel.text


def preshuffled_stream_source(case: MixedCase) -> str:
    """Path 3's STREAM, ``mixed_g_stream(x, y, per)``: each tile in G's order, 16-byte loads into the registers."""
    header, up = _g_header(case)
    body = _TILE + "    unsigned w[kWords];\n    load(tile, 0u, 0u, w);"
    kernel = _Kernel("mixed_g_stream", "mg", "kRegisters / 2", up, count="per", body=body, fold=True)
    return header + f"#define TILE_BYTES {case.tile_bytes}ull\n" + kernel.text


def upcast_source(case: MixedCase, fit_only: bool = False) -> str:
    """The upcast alone, ``mixed_upcast(x, y, steps)``: a thread's words of the operand loaded once, then each step
    upcast to bf16 and XOR-accumulated; the words change by ``i & mask`` (one LOP3 a word), so every
    step upcasts (an mx case's multiply by its scales included). Its time a step is the upcast's ALU floor, measured.
    ``fit_only``: an mx case's one-multiply loop alone (its SASS is what the timed data runs)."""
    header, up = _g_header(case)
    words = "  unsigned w[kWords];\n  for (int j = 0; j < kWords; ++j) w[j] = x[threadIdx.x * kWords + j];\n"
    fresh = "#pragma unroll\n    for (int j = 0; j < kWords; ++j) w[j] ^= i & mask;"
    if case.mx:  # the scales' words once too; each step multiplies by them
        header += _g_scales(case)
        words += (
            "  unsigned sw[llgen::ms::kWords];\n  for (int j = 0; j < llgen::ms::kWords; ++j)"
            " sw[j] = x[128 * kWords + threadIdx.x * llgen::ms::kWords + j];\n"
        )
    # uncapped: the floor is the upcast's best, whatever registers it takes
    choose = "scales_fit(sw)" if case.mx and not fit_only else ""
    kernel = _Kernel("mixed_upcast", "mg", "kRegisters / 2", up, x_type="const unsigned*", prologue=words, body=fresh)
    kernel = replace(kernel, capped=False, choose=choose, up_else=_MX_EXACT)
    return header + kernel.text
