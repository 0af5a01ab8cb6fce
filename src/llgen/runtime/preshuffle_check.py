"""The emitted pre-shuffle texts, run: the NumPy repack, then the loader header's ``load`` (and, for 4-bit types, both
upcasts) in a kernel that writes every thread's registers out, compared element for element with B's map of the
tensor; and, on a GPU, an mma.sync m16n8k16 fed by the loader and upcast whose product must equal NumPy's.

``compiler`` is llgen.runtime.host.compile (the CPU shim) or a GPU module's compile: the same kernels run on both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llgen.emit import preshuffle as E
from llgen.plan.preshuffle import PreshufflePlan

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=np.float32)


@dataclass(frozen=True)
class Outcome:
    label: str
    ok: bool
    detail: str = ""


def repack_module(plan: PreshufflePlan, memory: str) -> dict:
    """The emitted NumPy repack, executed: its functions by name."""
    scope: dict = {}
    exec(compile(E.repack_numpy(plan, "check", memory), "<llgen repack>", "exec"), scope)  # noqa: S102 - our own text
    return scope


def values(plan: PreshufflePlan, rng) -> np.ndarray:
    """A random tensor as raw bits (4-bit: one element per uint8)."""
    bits = plan.dtype.bits
    if bits == 4:
        return rng.integers(0, 16, size=plan.shape, dtype=np.uint8)
    raw = {8: np.uint8, 16: np.uint16, 32: np.uint32}[bits]
    return rng.integers(0, 1 << bits, size=plan.shape, dtype=np.uint64).astype(raw)


def e4m3(v: np.ndarray) -> np.ndarray:
    """e4m3fn bytes as floats (NaN for S.1111.111)."""
    v = v.astype(np.int64)
    s = np.where(v & 0x80, -1.0, 1.0)
    e, m = (v >> 3) & 15, (v & 7).astype(np.float64)
    f = np.where(e == 0, m * 2.0**-9, (1 + m / 8) * 2.0 ** (e.astype(np.float64) - 7))
    return np.where((e == 15) & (m == 7), np.nan, s * f).astype(np.float32)


def decode(x: np.ndarray, dtype: str, out: str) -> np.ndarray:
    """Elements (raw bits) as f16 or bf16 bits, as the upcast must produce them (exact for every type here; NaN as
    NumPy writes it)."""
    if dtype == "e2m1":
        v = E2M1[x]
    elif dtype == "f8e4m3":
        v = e4m3(x)
    else:
        v = {"i4": x.astype(np.int32) - 16 * (x >= 8), "i8": x.astype(np.uint8).view(np.int8)}.get(dtype, x)
        v = v.astype(np.float32)
    if out == "f16":
        return v.astype(np.float16).view(np.uint16)
    return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def pack_nibbles(x: np.ndarray) -> np.ndarray:
    """4-bit values along the last axis packed two to a byte, the even one in the low nibble."""
    return (x[..., 0::2] | (x[..., 1::2] << 4)).astype(np.uint8)


def pair_halves(h: np.ndarray) -> np.ndarray:
    """16-bit values along the last axis as the 32-bit words the upcasts write: 2j in the low half, 2j + 1 high."""
    h = h.astype(np.uint32)
    return h[..., 0::2] | (h[..., 1::2] << 16)


def _place_c(got: np.ndarray, frag: np.ndarray, row: int, col: int) -> None:
    """One warp's 16x8 f32 C fragment (frag[lane] = c0..c3, PTX's m16n8 layout) into ``got`` at (row, col)."""
    for lane in range(32):
        g, t = lane // 4, lane % 4
        got[row + g, col + 2 * t : col + 2 * t + 2] = frag[lane, 0:2]
        got[row + g + 8, col + 2 * t : col + 2 * t + 2] = frag[lane, 2:4]


def _product(label: str, got: np.ndarray, want: np.ndarray) -> Outcome:
    if not np.array_equal(got, want):
        bad = np.argwhere(got != want)[0]
        return Outcome(label, False, f"D[{bad[0]},{bad[1]}] = {got[tuple(bad)]} != {want[tuple(bad)]}")
    return Outcome(label, True)


def _tile_grid(plan: PreshufflePlan) -> list[int]:
    return [s // t for s, t in zip(plan.shape, plan.tile, strict=True)]


def check_source(plan: PreshufflePlan, memory: str) -> str:
    """The header and a kernel ``llgen_preshuffle_check(src, words, f16, bf16)``: block b loads tile b (the first
    dim's tile index fastest) and each thread writes its words and, where the header has them, both upcasts."""
    ns = "check"
    lo = _has_upcasts(plan)
    grid = _tile_grid(plan)
    lines = [E.header(plan, ns, memory), 'extern "C" __global__ void llgen_preshuffle_check(']
    lines.append("    const unsigned char* src, unsigned* words, unsigned* f16, unsigned* bf16, const unsigned* sw_in,")
    lines.append("    unsigned* scaled) {")
    lines.append("  using namespace llgen::check;")
    rest = "blockIdx.x"
    for d, n in enumerate(grid):
        lines.append(f"  const unsigned t{d} = ({rest}) % {n}u;")
        rest = f"{rest} / {n}u"
    lines.append("  const unsigned long long th = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;")
    lines.append("  unsigned w[kWords];")
    lines.append(f"  load(src, {', '.join(f't{d}' for d in range(len(grid)))}, w);")
    lines.append("#pragma unroll")
    lines.append("  for (int j = 0; j < kWords; ++j) words[th * kWords + j] = w[j];")
    if lo:
        for out in ("f16", "bf16"):
            lines.append(f"  {{ unsigned h[kRegisters / 2]; upcast_{out}(w, h);")
            lines.append("#pragma unroll")
            lines.append(f"    for (int j = 0; j < kRegisters / 2; ++j) {out}[th * (kRegisters / 2) + j] = h[j]; }}")
    else:
        lines.append("  (void)f16; (void)bf16;")
    if lo and plan.scales:  # the values times their scales: each thread's scale words given raw
        lines.append("  unsigned sw[kScaleWords], h[kRegisters / 2];")
        lines.append("  for (int j = 0; j < kScaleWords; ++j) sw[j] = sw_in[th * kScaleWords + j];")
        if plan.dtype.name == "e2m1":
            lines.append("  if (scales_fit(sw)) upcast_bf16_fit(w, sw, h);\n  else upcast_bf16(w, sw, h);")
        else:
            lines.append("  upcast_bf16(w, h);\n  scale_bf16(h, sw);")
        lines.append("  for (int j = 0; j < kRegisters / 2; ++j) scaled[th * (kRegisters / 2) + j] = h[j];")
    else:
        lines.append("  (void)sw_in; (void)scaled;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _expected(plan: PreshufflePlan, x: np.ndarray) -> np.ndarray:
    """[block, thread, register] -> the element B puts there (tile b's, the first dim's tile index fastest)."""
    op = plan.operand
    lanes, warps, regs = op.in_size("lane"), op.in_size("warp"), op.in_size("register")
    coords = np.zeros((lanes * warps, regs, len(plan.shape)), dtype=np.int64)
    for th in range(lanes * warps):
        for r in range(regs):
            c = op.apply({"register": r, "lane": th % lanes, "warp": th // lanes})
            coords[th, r] = list(c.values())
    grid = _tile_grid(plan)
    out = np.zeros((int(np.prod(grid)), lanes * warps, regs), dtype=x.dtype)
    for b in range(out.shape[0]):
        origin, rest = [], b
        for d, n in enumerate(grid):
            origin.append((rest % n) * plan.tile[d])
            rest //= n
        idx = coords + np.array(origin)
        out[b] = x[tuple(idx[..., d] for d in range(len(plan.shape)))]
    return out


def run_load(plan: PreshufflePlan, memory: str, compiler, seed: int = 0) -> Outcome:
    """Repack a random tensor with the emitted NumPy, load it with the emitted header, compare every register (and
    both upcasts of 4-bit types) with NumPy."""
    label = f"{E.name(plan)}[{memory}]"
    rng = np.random.default_rng(seed)
    x = values(plan, rng)
    repack = repack_module(plan, memory)
    buf = np.ascontiguousarray(repack["repack"](x)).view(np.uint8).reshape(-1)
    back = repack["unrepack"](buf if plan.dtype.sub_byte else buf.view(x.dtype))
    if not np.array_equal(back, x):
        return Outcome(label, False, "the NumPy unrepack does not undo the repack")
    loader = E.loader_of(plan, memory)
    blocks, threads = int(np.prod(_tile_grid(plan))), plan.operand.in_size("lane") * plan.operand.in_size("warp")
    mod = compiler(check_source(plan, memory))
    n_words, n_half = blocks * threads * loader.words, blocks * threads * max(1, loader.registers // 2)
    words, f16, bf16, scaled = (mod.filled(n, np.uint32, 0xDEADBEEF) for n in (n_words, n_half, n_half, n_half))
    sw = _scale_words(plan, rng, blocks * threads)
    mod.launch("llgen_preshuffle_check", blocks, threads, (mod.to_device(buf), words, f16, bf16, mod.to_device(sw), scaled))
    mod.synchronize()
    got = mod.to_host(words).reshape(blocks, threads, loader.words)
    want = _expected(plan, x)
    have = _registers(plan, loader, got)
    if not np.array_equal(have, want):
        bad = np.argwhere(have != want)[0]
        return Outcome(
            label, False, f"block {bad[0]} thread {bad[1]} register {bad[2]}: {have[tuple(bad)]} != {want[tuple(bad)]}"
        )
    if _has_upcasts(plan):
        for out, dev in (("f16", f16), ("bf16", bf16)):
            h = mod.to_host(dev).reshape(blocks, threads, -1)
            exp = pair_halves(decode(want, plan.dtype.name, out))
            hh, eh = _halves(h), _halves(exp)
            wrong = ((hh != eh) & ~(_nan(hh, out) & _nan(eh, out))).any(axis=-1)  # a NaN's payload is the platform's
            if wrong.any():
                bad = np.argwhere(wrong)[0]
                return Outcome(
                    label,
                    False,
                    f"upcast_{out}: block {bad[0]} thread {bad[1]} word {bad[2]}: {h[tuple(bad)]:#x} != {exp[tuple(bad)]:#x}",
                )
    if _has_upcasts(plan) and plan.scales:
        h = _halves(mod.to_host(scaled).reshape(blocks, threads, -1))
        exp = _halves(pair_halves(_scaled_bf16(plan, decode(want, plan.dtype.name, "bf16"), sw.reshape(blocks, threads, -1))))
        wrong = ((h != exp) & ~(_nan(h, "bf16") & _nan(exp, "bf16"))).any(axis=-1)
        if wrong.any():
            bad = tuple(np.argwhere(wrong)[0])
            return Outcome(label, False, f"scaled upcast: block {bad[0]} thread {bad[1]} word {bad[2]}: {h[bad]} != {exp[bad]}")
    return Outcome(label, True)


def _scale_words(plan: PreshufflePlan, rng, threads: int) -> np.ndarray:
    """Each thread's scale words, random e8m0 bytes: every other thread's at most 128 (the scaled e2m1 upcast's one
    multiply a pair), the rest any byte (its exact path; 0 a subnormal, 255 NaN)."""
    if plan.scales is None:
        return np.zeros(1, dtype=np.uint32)
    b = rng.integers(0, 256, (threads, plan.scales.loader.words, 4), dtype=np.uint32)
    b[::2] %= 129
    return (b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16) | (b[..., 3] << 24)).reshape(-1)


def _scaled_bf16(plan: PreshufflePlan, bf16: np.ndarray, sw: np.ndarray) -> np.ndarray:
    """bf16 values [block, thread, register] times 2^(s - 127), s each pair's scale (register r in byte r % 4 of
    word r / 4 of the thread's words ``sw``), rounded to nearest even; s = 255 NaN."""
    reg = np.array(plan.scale_of_pairs()).repeat(2)
    return times_scale(bf16, (sw[..., reg // 4] >> (8 * (reg % 4))) & 255)


def times_scale(bf16: np.ndarray, s: np.ndarray) -> np.ndarray:
    """bf16 bits times 2^(s - 127), s e8m0 bytes of the same shape, rounded to nearest even; s = 255 NaN."""
    v = (bf16.astype(np.uint32) << 16).view(np.float32).astype(np.float64) * np.exp2(s.astype(np.float64) - 127)
    with np.errstate(over="ignore", invalid="ignore"):
        u = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where((s == 255) | np.isnan(v), np.uint16(0x7FC0), r)


def _has_upcasts(plan: PreshufflePlan) -> bool:
    return plan.dtype.sub_byte or plan.dtype.name in E.UPCAST_8BIT


def _halves(words: np.ndarray) -> np.ndarray:
    """32-bit words as their two 16-bit halves, [..., 2], the low half first."""
    w = words.astype(np.uint32)
    return np.stack([w & 0xFFFF, w >> 16], axis=-1)


def _nan(h: np.ndarray, out: str) -> np.ndarray:
    """Which 16-bit values are NaN in ``out`` (f16 or bf16)."""
    exp_bits, man = (0x7C00, 0x03FF) if out == "f16" else (0x7F80, 0x007F)
    return ((h & exp_bits) == exp_bits) & ((h & man) != 0)


def _registers(plan: PreshufflePlan, loader, words: np.ndarray) -> np.ndarray:
    """The thread's registers out of its words: register order for whole-byte types (i8's fast decode: the bytes of
    each word in the order 0,2,1,3), load order for 4-bit ones."""
    bits = plan.dtype.bits
    regs = loader.registers
    out = np.zeros(words.shape[:2] + (regs,), dtype=np.uint64)
    per, epw = loader.vector_bytes // 4, 32 // bits
    for r in range(regs):
        if plan.dtype.sub_byte:
            h, p = _position(loader, r)
            word, shift = h * per + p // 8, 4 * (p % 8)
        else:
            at = r % epw
            if plan.decode == "fast":  # registers 1 and 2 of a word trade bytes
                at = ((at & 1) << 1) | (at >> 1)
            word, shift = r // epw, bits * at
        out[..., r] = (words[..., word].astype(np.uint64) >> shift) & ((1 << bits) - 1)
    return out.astype(np.uint8 if bits <= 8 else np.uint16 if bits == 16 else np.uint32)


def _position(loader, r: int) -> tuple[int, int]:
    for h in range(len(loader.load_offsets())):
        for p in range(1 << loader.vector_bits):
            if loader.register_at(h, p) == r:
                return h, p
    raise AssertionError(f"register {r} is in no load")


# ---------------------------------------------------------------------- mma.sync on the loaded operand
def _registers_of_lane0(plan: PreshufflePlan) -> dict:
    """Tensor coordinates -> the register that holds them in lane 0 of warp 0 (every lane's registers step alike)."""
    at = {}
    for r in range(plan.operand.in_size("register")):
        c = plan.operand.apply({"register": r, "lane": 0, "warp": 0})
        at[tuple(c.values())] = r
    return at


def mma_source(plan: PreshufflePlan, memory: str, out: str) -> str:
    """One warp: B's tile loaded and upcast to ``out`` (f16/bf16), A's fragments from ``afrag`` (host-arranged,
    per k-step s and lane four words), D = A·B by mma.sync m16n8k16 per 8-column block, D's fragments to ``d``."""
    k, n = plan.tile
    at = _registers_of_lane0(plan)
    lines = [E.header(plan, "check", memory), 'extern "C" __global__ void llgen_preshuffle_mma(']
    lines += ["    const unsigned char* src, const unsigned* afrag, float* d) {", "  using namespace llgen::check;"]
    lines += ["  const unsigned lane = threadIdx.x;", "  unsigned w[kWords];", "  load(src, 0, 0, w);"]
    if plan.dtype.sub_byte:
        lines += ["  unsigned h[kRegisters / 2];", f"  upcast_{out}(w, h);"]
    else:
        lines += ["  const unsigned (&h)[kWords] = w;"]
    kind = "f16" if out == "f16" else "bf16"
    for c in range(n // 8):
        lines.append(f"  {{ float acc[4] = {{0.f, 0.f, 0.f, 0.f}};  // columns {8 * c}..{8 * c + 7}")
        for s in range(k // 16):
            b0, b1 = at[(16 * s, 8 * c)] // 2, at[(16 * s + 8, 8 * c)] // 2
            lines.append(f"    {{ const unsigned* a = afrag + ({s} * 32 + lane) * 4;")
            lines.append(
                f'      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32 {{%0,%1,%2,%3}}, {{%4,%5,%6,%7}}, '
                '{%8,%9}, {%0,%1,%2,%3};" : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]) : "r"(a[0]), "r"(a[1]), '
                f'"r"(a[2]), "r"(a[3]), "r"(h[{b0}]), "r"(h[{b1}])); }}'
            )
        lines.append(f"    for (int i = 0; i < 4; ++i) d[({c} * 32 + lane) * 4 + i] = acc[i]; }}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def a_fragments(a: np.ndarray, out: str) -> np.ndarray:
    """A (16 x K, float) as m16n8k16 A fragments: [k-step][lane][4 words] of 16-bit pairs."""
    bits = (
        a.astype(np.float16).view(np.uint16) if out == "f16" else (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    )
    steps = a.shape[1] // 16
    frag = np.zeros((steps, 32, 4), dtype=np.uint32)
    for s in range(steps):
        for lane in range(32):
            g, t = lane // 4, lane % 4
            for i, (row, col) in enumerate(((g, 2 * t), (g + 8, 2 * t), (g, 2 * t + 8), (g + 8, 2 * t + 8))):
                c = 16 * s + col
                frag[s, lane, i] = int(bits[row, c]) | (int(bits[row, c + 1]) << 16)
    return frag


def run_mma(plan: PreshufflePlan, memory: str, out: str, compiler, seed: int = 0) -> Outcome:
    """D = A·W on the GPU with W (K x N, the plan's whole shape and tile) loaded by the header: from G repacked by the
    emitted NumPy, or (memory "k") stored K-contiguous as it is, no repack, with A's K permuted by sigma. Small
    integers keep every product exact."""
    label = f"mma {E.name(plan)}[{memory}] -> {out}"
    rng = np.random.default_rng(seed)
    x = values(plan, rng)
    if plan.dtype.sub_byte:
        w = decode(x, plan.dtype.name, "f16").view(np.float16).astype(np.float32)
    else:
        x = rng.integers(-8, 8, size=plan.shape).astype(np.float16 if out == "f16" else np.float32)
        w = x.astype(np.float32)
        x = x.view(np.uint16) if out == "f16" else (x.view(np.uint32) >> 16).astype(np.uint16)
    a = rng.integers(-4, 5, size=(16, plan.shape[0])).astype(np.float32)
    if memory == "k":
        buf = np.ascontiguousarray(x.T)  # the weight as it lies, K-contiguous: no repack
        sigma = np.array(plan.k_permutation())
        a_hw = a[:, sigma]
    else:
        buf = repack_module(plan, memory)["repack"](x)
        a_hw = a
    buf = np.ascontiguousarray(buf)
    if plan.dtype.sub_byte and memory == "k":
        buf = pack_nibbles(buf.reshape(-1))
    mod = compiler(mma_source(plan, memory, out))
    d = mod.filled(16 * plan.shape[1], np.float32, 0)
    mod.launch(
        "llgen_preshuffle_mma", 1, 32, (mod.to_device(buf.view(np.uint8).reshape(-1)), mod.to_device(a_fragments(a_hw, out)), d)
    )
    mod.synchronize()
    frag = mod.to_host(d).reshape(plan.shape[1] // 8, 32, 4)
    got = np.zeros((16, plan.shape[1]), dtype=np.float32)
    for c in range(plan.shape[1] // 8):
        _place_c(got, frag[c], 0, 8 * c)
    return _product(label, got, a @ w)


def wgmma_source(plan: PreshufflePlan, memory: str) -> str:
    """One warpgroup: A (64 x K, wgmma's register operand) loaded and upcast to bf16 by the header, B (K x 8 bf16) in
    shared memory as K-major 8x8 core matrices without swizzle (k-step s at byte 256 s, its two core matrices 128
    bytes apart: LBO 128, SBO 256), D = A·B by wgmma m64n8k16 with A from registers, D's fragments to ``d``."""
    m, k = plan.tile
    at = _registers_of_lane0(plan)
    lines = [E.header(plan, "check", memory), 'extern "C" __global__ void __launch_bounds__(128) llgen_preshuffle_wgmma(']
    lines += ["    const unsigned char* src, const uint4* bimg, float* d) {", "  using namespace llgen::check;"]
    lines += [f"  __shared__ __align__(128) uint4 b[{k}];  // K x 8 bf16: k 16-byte rows"]
    lines += [f"  for (int i = threadIdx.x; i < {k}; i += blockDim.x) b[i] = bimg[i];"]
    lines += ['  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the writes, seen by the async proxy']
    lines += ["  __syncthreads();"]
    lines += ["  unsigned w[kWords];", "  load(src, 0, 0, w);"]
    if plan.dtype.sub_byte:
        lines += ["  unsigned h[kRegisters / 2];", "  upcast_bf16(w, h);"]
    else:
        lines += ["  const unsigned (&h)[kWords] = w;"]
    lines += [
        "  float acc[4] = {0.f, 0.f, 0.f, 0.f};",
        "  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(b));",
    ]
    lines += ['  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");']
    for s in range(k // 16):
        a = [at[(row, 16 * s + col)] // 2 for row, col in ((0, 0), (8, 0), (0, 8), (8, 8))]
        lines.append(f"  {{ const unsigned long long desc = ((unsigned long long)((base + {256 * s}u) >> 4) & 0x3FFFull)")
        lines.append("        | (8ull << 16) | (16ull << 32);  // LBO 128 bytes, SBO 256 bytes, no swizzle")
        lines.append(
            '    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, 1, 0;"'
            ' : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])'
            f' : "r"(h[{a[0]}]), "r"(h[{a[1]}]), "r"(h[{a[2]}]), "r"(h[{a[3]}]), "l"(desc)); }}'
        )
    lines += ['  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");']
    lines += ['  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");']
    lines += ["  for (int i = 0; i < 4; ++i) d[threadIdx.x * 4 + i] = acc[i];", "}"]
    return "\n".join(lines) + "\n"


def b_core_matrices(b: np.ndarray) -> np.ndarray:
    """B (K x 8, bf16 bits) as the K-major core matrices wgmma_source's descriptors name, as bytes."""
    k = b.shape[0]
    img = np.zeros(k * 8, dtype=np.uint16)
    for kk in range(k):
        s, c, e = kk // 16, (kk % 16) // 8, kk % 8
        for n in range(8):
            img[(256 * s + 128 * c + 16 * n) // 2 + e] = b[kk, n]
    return img.view(np.uint8)


def run_wgmma(plan: PreshufflePlan, memory: str, compiler, seed: int = 0) -> Outcome:
    """D = A·B on the GPU with A (64 x K, the plan's tile) loaded into wgmma's register operand by the header: from G,
    or (memory "k") stored K-contiguous with B's K permuted by sigma. Small integers keep every product exact."""
    label = f"wgmma {E.name(plan)}[{memory}] -> bf16"
    if plan.shape != plan.tile or plan.shape[0] != 64 or not (plan.dtype.sub_byte or plan.dtype.name == "bf16"):
        raise ValueError(f"{label}: one 64-row tile of a 4-bit type or bf16, not {plan.shape} {plan.dtype.name}")
    rng = np.random.default_rng(seed)
    m, k = plan.shape
    x = values(plan, rng)
    if plan.dtype.sub_byte:
        a = decode(x, plan.dtype.name, "bf16").astype(np.uint32) << 16
        a = a.view(np.float32)
    else:
        a = rng.integers(-8, 8, size=plan.shape).astype(np.float32)
        x = (a.view(np.uint32) >> 16).astype(np.uint16)
    bmat = rng.integers(-4, 5, size=(k, 8)).astype(np.float32)
    bbits = (bmat.view(np.uint32) >> 16).astype(np.uint16)
    if memory == "k":
        buf = np.ascontiguousarray(x)  # A row-major, K contiguous, as it lies: no repack
        if plan.dtype.sub_byte:
            buf = pack_nibbles(buf.reshape(-1))
        bbits = bbits[np.array(plan.k_permutation())]
    else:
        buf = np.ascontiguousarray(repack_module(plan, memory)["repack"](x))
    mod = compiler(wgmma_source(plan, memory))
    d = mod.filled(128 * 4, np.float32, 0)
    args = (mod.to_device(buf.view(np.uint8).reshape(-1)), mod.to_device(b_core_matrices(bbits)), d)
    mod.launch("llgen_preshuffle_wgmma", 1, 128, args)
    mod.synchronize()
    frag = mod.to_host(d).reshape(4, 32, 4)
    got = np.zeros((m, 8), dtype=np.float32)
    for w in range(4):
        _place_c(got, frag[w], 16 * w, 0)
    return _product(label, got, a @ bmat)
