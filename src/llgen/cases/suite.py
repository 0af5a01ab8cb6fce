"""The suites: `core`, the benchmark's ten conversions (each case's layouts, dtype and warps); `regressions`,
conversions from other people's kernels that once went wrong, one per class of bug; and `wide`, the benchmark's
conversions beyond core: hand-picked kinds Triton compiles and pairs of the generator of real layouts; and
`warplocal`, one- and four-warp conversions that never leave a warp, where one CTA's latency counts."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.layout import LinearLayout
from llgen.layouts import NvidiaMma, blocked, dot_operand, linear, nvidia_mma, swapped
from llgen.plan.pairing import reordered


@dataclass(frozen=True)
class Case:
    id: str
    dtype: str
    shape: tuple[int, ...]
    warps: int
    src: LinearLayout
    dst: LinearLayout
    note: str = ""
    smem_budget: int | None = None  # bytes of scratch the case's plans may take (None: the target's limit)


def _b(spt, tpw, wpc, order, shape):
    return blocked(spt, tpw, wpc, order, shape)


def core() -> list[Case]:
    t_shape = (16, 32)
    t_st = linear([[1, 0], [2, 0], [4, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], [], [], t_shape)
    t_rd = linear([[0, 2], [0, 4], [0, 8], [0, 16]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], [], [], t_shape)
    mma22 = NvidiaMma(2, (2, 2), (16, 8))
    mma41 = NvidiaMma(2, (4, 1), (16, 8))
    s = (128, 128)
    lanes_a = _b([1, 4], [2, 16], [4, 1], [1, 0], (64, 64))
    rot = [list(lanes_a.basis("lane", i)) for i in range(1, 5)] + [list(lanes_a.basis("lane", 0))]
    lanes_b = linear(
        [list(lanes_a.basis("register", i)) for i in range(lanes_a.in_bits("register"))],
        rot,
        [list(lanes_a.basis("warp", i)) for i in range(lanes_a.in_bits("warp"))],
        [],
        (64, 64),
    )
    return [
        Case("t16x32", "f32", t_shape, 1, t_st, t_rd, "the reference transpose"),
        Case("b2mma_f32", "f32", s, 4, _b([1, 4], [1, 32], [4, 1], [1, 0], s), nvidia_mma(2, [2, 2], [16, 8], s)),
        Case(
            "mma2b_f16", "f16", s, 4, nvidia_mma(2, [2, 2], [16, 8], s), _b([1, 8], [2, 16], [4, 1], [1, 0], s), "epilogue store"
        ),
        Case(
            "b2dotA_f16",
            "f16",
            (128, 64),
            4,
            _b([1, 8], [4, 8], [4, 1], [1, 0], (128, 64)),
            dot_operand(0, mma22, 2, (128, 64)),
            "ldmatrix",
        ),
        Case(
            "b2dotB_f16",
            "f16",
            (64, 128),
            4,
            _b([1, 8], [2, 16], [4, 1], [1, 0], (64, 128)),
            dot_operand(1, mma22, 2, (64, 128)),
            "ldmatrix .trans",
        ),
        Case(
            "b2dotA_i8",
            "i8",
            (128, 64),
            4,
            _b([1, 16], [8, 4], [4, 1], [1, 0], (128, 64)),
            dot_operand(0, mma22, 4, (128, 64)),
            "sub-word packing",
        ),
        Case(
            "mma2dotA_f16",
            "f16",
            (128, 64),
            4,
            nvidia_mma(2, [4, 1], [16, 8], (128, 64)),
            dot_operand(0, mma41, 2, (128, 64)),
            "no data moves",
        ),
        Case(
            "b2bT_f16", "f16", s, 4, _b([1, 8], [2, 16], [4, 1], [1, 0], s), _b([8, 1], [16, 2], [1, 4], [0, 1], s), "transpose"
        ),
        Case("lanes_f32", "f32", (64, 64), 4, lanes_a, lanes_b, "warp shuffles"),
        Case(
            "wgmma2b_f32",
            "f32",
            s,
            4,
            nvidia_mma(3, [4, 1], [16, 128, 16], s),
            _b([1, 4], [1, 32], [4, 1], [1, 0], s),
            "Hopper epilogue",
        ),
    ]


_WGMMA_4x1 = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>"
_WGMMA3_4x1x1 = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1, 1], instrShape = [16, 32, 16]}>"
_REGRESSIONS = (
    # (id, dtype, shape, warps, A, B, the class of bug)
    (
        "broadcast_dot_1x64_f16",
        "f16",
        (1, 64),
        4,
        "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
        f"#ttg.dot_op<{{opIdx = 0, parent = {_WGMMA_4x1}, kWidth = 1}}>",
        "every warp holds the same data: one replica warp stores, the others must wait at a CTA barrier",
    ),
    (
        "slice_1d_256_i8",
        "i8",
        (256,),
        4,
        f"#ttg.slice<{{dim = 0, parent = {_WGMMA_4x1}}}>",
        (
            "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], "
            "order = [1, 0]}>}>"
        ),
        "a 1-D slice replicated over warps",
    ),
    (
        "rounds_256x256_f32",
        "f32",
        (256, 256),
        4,
        "mma",
        "blocked:spt=1x4,tpw=2x16,order=0x1",
        "256 KB of scratch in rounds: store and load must number the rounds alike",
    ),
    (
        "transpose_128x128_f32",
        "f32",
        (128, 128),
        4,
        "blocked:spt=1x4,tpw=1x32,wpc=4x1,order=1x0",
        "blocked:spt=4x1,tpw=32x1,wpc=1x4,order=0x1",
        "64 KB of scratch in one piece of dynamic shared memory",
    ),
    (
        "rank3_mma_4x64x64_f16",
        "f16",
        (4, 64, 64),
        4,
        "#ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>",
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1, 1], instrShape = [1, 16, 8]}>",
        "a batched (rank-3) mma v2 accumulator as Triton prints it",
    ),
    (
        "linear_resized_8x8_f32",
        "f32",
        (8, 8),
        4,
        (
            "#ttg.linear<{register = [[0, 1], [0, 2], [8, 0]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], "
            "warp = [[0, 16], [16, 0]], block = []}>"
        ),
        "blocked",
        "a linear layout written for 32x32 on an 8x8 tensor: Triton drops and broadcasts bases",
    ),
    (
        "wgmma3_dotA_2x64x32_f16",
        "f16",
        (2, 64, 32),
        4,
        f"#ttg.dot_op<{{opIdx = 0, parent = {_WGMMA3_4x1x1}, kWidth = 2}}>",
        "#ttg.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 8, 4], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>",
        "operand A of a rank-3 wgmma, as Gluon's convert tests hold it (once refused: wgmma has no batch dim itself)",
    ),
    (
        "wgmma3_slice_64x32_f16",
        "f16",
        (64, 32),
        4,
        f"#ttg.slice<{{dim = 0, parent = #ttg.dot_op<{{opIdx = 0, parent = {_WGMMA3_4x1x1}, kWidth = 2}}>}}>",
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
        "a slice of that operand (Gluon's convert tests)",
    ),
)


def _parsed(rows) -> list[Case]:
    """Cases from (id, dtype, shape, warps, A spec, B spec, note[, smem budget]) rows."""
    from llgen.core.dtypes import dtype
    from llgen.spec import Where, parse_layout

    out = []
    for cid, dt, shape, warps, a, b, note, *budget in rows:
        nbytes = dtype(dt).bytes
        src, dst = (parse_layout(x, shape, warps, 32, where=Where(dtype_bytes=nbytes)) for x in (a, b))
        out.append(Case(cid, dt, shape, warps, src, dst, note, *budget))
    return out


def regressions() -> list[Case]:
    """Conversions from other people's kernels that llgen once got wrong, one per class (see each note)."""
    return _parsed(_REGRESSIONS)


_B8 = "blocked:spt=1x8,tpw=4x8,order=1x0"  # 16-byte rows of f16, one warp
_B4 = "blocked:spt=1x4,tpw=2x16,order=1x0"
_WIDE = (
    # (id, dtype, shape, warps, A, B, note[, smem budget]). One warp, warp-local: the cost model picks shared memory
    # over shuffles on most of them; the STREAM kernel runs 8 such warps per CTA.
    ("w1_b2b_f16", "f16", (64, 64), 1, _B8, _B4, "one warp, warp-local; the model: shared 128 vs shuffle 160"),
    ("w1_mma2dotB_f16", "f16", (64, 64), 1, "mma", "dot:op=1,k_width=2", "one warp, warp-local; shared 128 vs 160"),
    ("w1_b2dotA_f16", "f16", (64, 64), 1, _B8, "dot:op=0,k_width=2", "one warp, warp-local; stmatrix"),
    ("w1_b2bT_f16", "f16", (64, 64), 1, _B8, "blocked:spt=8x1,tpw=8x4,order=0x1", "one warp, transpose; ldmatrix.trans"),
    ("w1_b2mma_f32", "f32", (64, 64), 1, "blocked:spt=1x4,tpw=2x16,order=1x0", "mma", "one warp, warp-local, 32-bit"),
    ("w1_b2b_i8", "i8", (64, 64), 1, "blocked:spt=1x16,tpw=8x4,order=1x0", _B4, "one warp, warp-local, 8-bit"),
    ("w4_mma2b_f16", "f16", (64, 32), 4, "mma:wpc=4x1", "blocked:spt=1x8,tpw=16x2,wpc=4x1,order=1x0", "4 warps, warp-local"),
    # tiny and 1-D tensors (replicas where the tile is smaller than the CTA)
    ("r1_512_f32", "f32", (512,), 4, "blocked:spt=4,tpw=32,wpc=4", "blocked:spt=1,tpw=32,wpc=4", "1-D"),
    (
        "r1_slice_256_f16",
        "f16",
        (256,),
        4,
        "slice:dim=0,parent=(mma:wpc=4x1)",
        "slice:dim=1,parent=(blocked:spt=1x4,tpw=1x32,wpc=4x1,order=1x0)",
        "1-D slices of two reductions, replicated over lanes and warps",
    ),
    ("r1_64_i8", "i8", (64,), 1, "blocked:spt=4,tpw=32,wpc=1", "blocked:spt=2,tpw=32,wpc=1", "1-D, one warp, lanes replicate"),
    (
        "tiny_16x16_f32",
        "f32",
        (16, 16),
        4,
        "blocked:spt=1x4,tpw=4x8,wpc=4x1,order=1x0",
        "blocked:spt=4x1,tpw=8x4,wpc=1x4,order=0x1",
        "tiny: more threads than elements",
    ),
    ("tiny_8x8_f16", "f16", (8, 8), 1, "blocked:spt=1x2,tpw=8x4,order=1x0", "blocked:spt=2x1,tpw=4x8,order=0x1", "tiny"),
    # eight warps
    ("w8_b2mma_f32", "f32", (128, 128), 8, "blocked:spt=1x4,tpw=1x32,wpc=8x1,order=1x0", "mma", "8 warps, 64 KB"),
    ("w8_mma2b_f16", "f16", (128, 128), 8, "mma", "blocked:spt=1x8,tpw=2x16,wpc=8x1,order=1x0", "8 warps, stmatrix"),
    (
        "w8_b2bT_f16",
        "f16",
        (128, 128),
        8,
        "blocked:spt=1x8,tpw=2x16,wpc=8x1,order=1x0",
        "blocked:spt=8x1,tpw=16x2,wpc=1x8,order=0x1",
        "8 warps, transpose",
    ),
    # 256x128 and 128x256 tiles, all above the 48 KB a static array may take (dynamic shared memory)
    ("b2mma_256x128_f16", "f16", (256, 128), 8, "blocked:spt=1x8,tpw=2x16,wpc=8x1,order=1x0", "mma", "256x128, 64 KB"),
    (
        "wgmma2b_128x256_f32",
        "f32",
        (128, 256),
        8,
        "mma:v=3,wpc=8x1,instr=16x256x8",
        "blocked:spt=1x4,tpw=1x32,wpc=8x1,order=1x0",
        "the Hopper GEMM epilogue of a 128x256 tile, 128 KB",
    ),
    (
        "wgmma2b_128x256_f16",
        "f16",
        (128, 256),
        8,
        "mma:v=3,wpc=8x1,instr=16x256x16",
        "blocked:spt=1x8,tpw=1x32,wpc=8x1,order=1x0",
        "128x256 f16 epilogue, 64 KB, stmatrix",
    ),
    # rank 3: batched tiles
    (
        "r3_b2mma_2x64x64_f32",
        "f32",
        (2, 64, 64),
        4,
        "blocked:spt=1x1x4,tpw=1x2x16,wpc=4x1x1,order=2x1x0",
        "mma",
        "batched mma v2 accumulator",
    ),
    (
        "r3_mma2b_4x64x32_f16",
        "f16",
        (4, 64, 32),
        4,
        "mma",
        "blocked:spt=1x1x8,tpw=1x8x4,wpc=4x1x1,order=2x1x0",
        "batched epilogue, one batch a warp",
    ),
    (
        "r3_b2bT_8x32x32_bf16",
        "bf16",
        (8, 32, 32),
        4,
        "blocked:spt=1x1x8,tpw=1x8x4,wpc=4x1x1,order=2x1x0",
        "blocked:spt=1x8x1,tpw=1x4x8,wpc=4x1x1,order=1x2x0",
        "batched transpose",
    ),
    # element types
    ("b2dotA_bf16", "bf16", (128, 64), 4, "blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", "dot:op=0,k_width=2", "bf16"),
    ("b2dotB_f8e4m3", "f8e4m3", (64, 128), 4, "blocked:spt=1x16,tpw=4x8,wpc=4x1,order=1x0", "dot:op=1,k_width=4", "fp8"),
    ("mma2b_f8e5m2", "f8e5m2", (128, 128), 4, "mma", "blocked:spt=1x16,tpw=4x8,wpc=4x1,order=1x0", "fp8 epilogue"),
    (
        "b2bT_i8",
        "i8",
        (128, 128),
        4,
        "blocked:spt=1x16,tpw=4x8,wpc=4x1,order=1x0",
        "blocked:spt=16x1,tpw=8x4,wpc=1x4,order=0x1",
        "8-bit transpose",
    ),
    (
        "b2bT_f64",
        "f64",
        (64, 64),
        4,
        "blocked:spt=1x2,tpw=2x16,wpc=4x1,order=1x0",
        "blocked:spt=2x1,tpw=16x2,wpc=1x4,order=0x1",
        "64-bit transpose",
    ),
    (
        "b2bT_f32",
        "f32",
        (128, 128),
        4,
        "blocked:spt=1x8,tpw=2x16,wpc=4x1,order=1x0",
        "blocked:spt=8x1,tpw=16x2,wpc=1x4,order=0x1",
        "32-bit transpose through 64 KB (over a static array's 48 KB)",
    ),
    (
        "b2dotB_f32",
        "f32",
        (128, 128),
        4,
        "blocked:spt=1x4,tpw=1x32,wpc=4x1,order=1x0",
        "dot:op=1,k_width=1,parent=(mma:wpc=2x2)",
        "tf32 B operand: 256 words of B a thread, so LOOP keeps a buffer a way (one spilled)",
    ),
    # scratch rounds: a smaller budget splits the tile (core's mma2b_f16 is the same conversion in one round)
    ("mma2b_f16_b16k", "f16", (128, 128), 4, "mma", "blocked:spt=1x8,tpw=2x16,wpc=4x1,order=1x0", "2 rounds", 16384),
    ("mma2b_f16_b8k", "f16", (128, 128), 4, "mma", "blocked:spt=1x8,tpw=2x16,wpc=4x1,order=1x0", "4 rounds", 8192),
    ("b2mma_f32_b16k", "f32", (128, 128), 4, "blocked:spt=1x4,tpw=1x32,wpc=4x1,order=1x0", "mma", "4 rounds", 16384),
    (
        "b2bT_256x256_f32",
        "f32",
        (256, 256),
        8,
        "blocked:spt=1x4,tpw=1x32,wpc=8x1,order=1x0",
        "blocked:spt=4x1,tpw=32x1,wpc=1x8,order=0x1",
        "256 KB: 2 rounds of 128 KB; Triton's own scratch is the whole 256 KB, over the H100's 227 KB per CTA, "
        "so Triton cannot run it",
    ),
)
# Pairs of llgen.randlayout's generator of real layouts: (seed, pair indices) of draw_pair on sm_90, chosen among the
# first 400 pairs of seed 18 that move data, hold 512 elements to 64 KB of tile and at most 64 words a thread, and
# that Triton compiles: four whose pick is shuffle both ways, four that mix shuffle and shared, four shared ones.
_WIDE_RANDOM = (18, (4, 7, 11, 16, 22, 124, 158, 178, 182, 303, 339, 353))


def _register_permutation(cid: str, dtype: str, a: LinearLayout, order: list[int], note: str) -> Case:
    """A case whose B is A with its register bases reordered: every thread holds what it needs (path registers)."""
    return Case(cid, dtype, a.shape, a.in_size("warp"), a, reordered(a, tuple(order)), note)


def wide() -> list[Case]:
    """The benchmark's conversions beyond core, with stable ids: hand-picked kinds, two register
    permutations, and pairs of the generator of real layouts (ids r<seed>_<index>_<dtype>, as llgen check --random
    names them)."""
    from llgen.randlayout import draw_pair

    out = _parsed(_WIDE)
    out.append(
        _register_permutation(
            "regperm_f16",
            "f16",
            _b([2, 2], [8, 4], [4, 1], [1, 0], (64, 64)),
            [1, 0, 2, 3, 4],
            "register permutation: 16-bit elements move across packed 32-bit words",
        )
    )
    out.append(
        _register_permutation(
            "regperm_i8",
            "i8",
            _b([4, 4], [8, 4], [2, 1], [1, 0], (64, 64)),
            [2, 3, 0, 1, 4, 5],
            "register permutation: bytes move across packed 32-bit words",
        )
    )
    seed, indices = _WIDE_RANDOM
    for i in indices:
        p = draw_pair(seed, i, "sm_90")
        out.append(Case(p.label, p.dtype, p.a.shape, p.a.in_size("warp"), p.a, p.b, f"random: {p.family_a} -> {p.family_b}"))
    return out


# One and four warps whose data never leaves a warp: where a conversion runs alone, one CTA's latency
# counts and shuffles and shared memory trade places (--objective latency). The families Triton's Gluon tests pair.
_W4 = "blocked:spt=1x8,tpw=16x2,wpc=4x1,order=1x0"  # 16 rows a warp, as mma with wpc=4x1 and its dot operands
_MMA4 = "mma:wpc=4x1"
_WARPLOCAL = (
    # (id, dtype, shape, warps, A, B, note): one warp
    ("wl1_spt1_to_spt16_f16", "f16", (64, 64), 1, "blocked:spt=1x1,tpw=2x16,order=1x0", "blocked:spt=16x1,tpw=2x16,order=1x0",
     "sizePerThread [1,1] -> [16,1]: four register bits trade places with lane bits"),
    ("wl1_b2bT_f16", "f16", (64, 64), 1, _B8, "blocked:spt=8x1,tpw=8x4,order=0x1", "transpose"),
    ("wl1_b2mma_f16", "f16", (64, 64), 1, _B8, "mma", "accumulator from rows of 16 bytes"),
    ("wl1_mma2dotA_f32", "f32", (64, 64), 1, "mma", "dot:op=0,k_width=1", "chained tf32 dot: accumulator to A operand"),
    ("wl1_mma2dotB_f16", "f16", (64, 64), 1, "mma", "dot:op=1,k_width=2", "accumulator to B operand"),
    ("wl1_dotA2b_f16", "f16", (64, 64), 1, "dot:op=0,k_width=2", _B4, "A operand back to rows"),
    ("wl1_b2b_f32", "f32", (64, 64), 1, "blocked:spt=4x1,tpw=8x4,order=0x1", "blocked:spt=1x4,tpw=4x8,order=1x0", "32-bit"),
    ("wl1_mma2b_f32", "f32", (64, 64), 1, "mma", "blocked:spt=1x1,tpw=1x32,order=1x0", "32-bit accumulator to rows"),
    ("wl1_b2b_i8", "i8", (64, 64), 1, "blocked:spt=1x16,tpw=8x4,order=1x0", _B4, "8-bit"),
    ("wl1_b2dotA_i8", "i8", (64, 64), 1, "blocked:spt=1x16,tpw=8x4,order=1x0", "dot:op=0,k_width=4", "8-bit A operand"),
    ("wl1_b2dotB_f8e4m3", "f8e4m3", (64, 64), 1, "blocked:spt=1x16,tpw=8x4,order=1x0", "dot:op=1,k_width=4", "fp8 B operand"),
    ("wl1_tpw2x16_to_spt4_f16", "f16", (64, 64), 1, "blocked:spt=1x1,tpw=2x16,order=1x0", "blocked:spt=1x4,tpw=1x32,order=1x0",
     "Triton's warp-local test: B repeats each element in two lanes"),
    ("wl1_tpw8x4_to_spt4_f16", "f16", (64, 64), 1, "blocked:spt=1x1,tpw=8x4,order=1x0", "blocked:spt=1x4,tpw=4x8,order=1x0",
     "Triton's warp-local test: four elements a thread in rows"),
    ("wl1_slice_f16", "f16", (64, 64), 1, "slice:dim=0,parent=(blocked:spt=1x1x8,tpw=1x4x8,order=2x1x0)",
     "slice:dim=2,parent=(blocked:spt=1x1x1,tpw=2x16x1,order=2x1x0)", "2-D slices of 3-D parents"),
    # four warps, each warp its own rows
    ("wl4_mma2b_f16", "f16", (128, 128), 4, _MMA4, _W4, "epilogue rows, warp-local"),
    ("wl4_b2dotA_f16", "f16", (128, 128), 4, _W4, "dot:op=0,k_width=2,parent=(mma:wpc=4x1)", "A operand, warp-local"),
    ("wl4_mma2dotA_i8", "i8", (128, 128), 4, _MMA4, "dot:op=0,k_width=4,parent=(mma:wpc=4x1)", "chained 8-bit dot"),
    ("wl4_mma2b_f32", "f32", (64, 128), 4, _MMA4, "blocked:spt=1x4,tpw=16x2,wpc=4x1,order=1x0", "32-bit epilogue"),
    ("wl4_b2dotA_i8", "i8", (128, 128), 4, "blocked:spt=1x16,tpw=16x2,wpc=4x1,order=1x0",
     "dot:op=0,k_width=4,parent=(mma:wpc=4x1)", "8-bit A operand"),
    ("wl4_dotA2b_f8e5m2", "f8e5m2", (128, 128), 4, "dot:op=0,k_width=4,parent=(mma:wpc=4x1)",
     "blocked:spt=1x4,tpw=16x2,wpc=4x1,order=1x0", "fp8 A operand back to rows"),
)  # fmt: skip
# (id, dtype, shape, warps, A: (spt, tpw, wpc, order), transpositions of A's (dim, index) bases that make B, note):
# B is A with register and lane bits swapped, several transpositions at once (warp bits stay: warp-local)
_WARPLOCAL_SWAPS = (
    ("wl1_swap3_f16", "f16", (64, 64), 1, ([1, 8], [4, 8], [1, 1], [1, 0]),
     ((("register", 0), ("lane", 0)), (("register", 2), ("lane", 3)), (("lane", 1), ("lane", 4))), "r0<>l0, r2<>l3, l1<>l4"),
    ("wl1_swap4_f32", "f32", (64, 64), 1, ([1, 4], [2, 16], [1, 1], [1, 0]),
     ((("register", 0), ("lane", 4)), (("register", 1), ("lane", 2)), (("register", 5), ("lane", 0)),
      (("register", 2), ("register", 4))), "r0<>l4, r1<>l2, r5<>l0, r2<>r4"),
    ("wl1_swap2_i8", "i8", (64, 64), 1, ([1, 16], [8, 4], [1, 1], [1, 0]),
     ((("register", 0), ("lane", 1)), (("register", 3), ("lane", 4))), "8-bit: bytes of a word to other lanes"),
    ("wl1_swap5_bf16", "bf16", (128, 64), 1, ([2, 4], [4, 8], [1, 1], [1, 0]),
     ((("register", 0), ("lane", 0)), (("register", 1), ("lane", 1)), (("register", 2), ("lane", 2)),
      (("register", 3), ("lane", 3)), (("register", 4), ("lane", 4))), "every lane bit to a register bit"),
    ("wl4_swap3_f16", "f16", (128, 128), 4, ([1, 8], [4, 8], [4, 1], [1, 0]),
     ((("register", 1), ("lane", 2)), (("register", 4), ("lane", 0)), (("lane", 1), ("lane", 3))), "4 warps"),
    ("wl4_swap3_f32", "f32", (64, 128), 4, ([1, 4], [1, 32], [4, 1], [1, 0]),
     ((("register", 0), ("lane", 3)), (("register", 2), ("lane", 4)), (("register", 4), ("lane", 1))), "4 warps, 32-bit"),
    ("wl4_swap2_i8", "i8", (128, 128), 4, ([1, 16], [4, 8], [4, 1], [1, 0]),
     ((("register", 1), ("lane", 0)), (("register", 2), ("lane", 2))), "4 warps, 8-bit"),
)  # fmt: skip


def _swapped(cid: str, dtype: str, a: LinearLayout, swaps, note: str) -> Case:
    """A case whose B is A with the given (dim, index) bases exchanged pairwise, one transposition after another."""
    return Case(cid, dtype, a.shape, a.in_size("warp"), a, swapped(a, swaps), note)


def warplocal() -> list[Case]:
    """One- and four-warp conversions whose data never leaves a warp: blocked, mma v2 accumulators and dot operands,
    slices and linear layouts (register and lane bits swapped), 8- to 32-bit, 64x64 to 128x128."""
    out = _parsed(_WARPLOCAL)
    for cid, dt, shape, _, (spt, tpw, wpc, order), swaps, note in _WARPLOCAL_SWAPS:
        out.append(_swapped(cid, dt, _b(spt, tpw, wpc, order, shape), swaps, note))
    return out


def endpoint_suite() -> list:
    """The endpoint suite: registers to and from a fixed shared layout, bench-only; its cases are
    llgen.cases.suite_endpoint.EndpointSuiteCase."""
    from llgen.cases.suite_endpoint import endpoint_suite as cases

    return cases()


SUITES = {"core": core, "regressions": regressions, "wide": wide, "warplocal": warplocal, "endpoint": endpoint_suite}
# the endpoint suite's name in reports and scripts written before it was named so: read as "endpoint"
SUITE_ALIASES = {"smem": "endpoint"}


def suite_name(name: str) -> str:
    """A suite's name as SUITES holds it (an older report's or script's alias resolved)."""
    return SUITE_ALIASES.get(name, name)


def describe(case: Case) -> dict:
    """A case as plain JSON (id, dtype, shape, warps, budget, both layouts' bases): what tests/data/wide_cases.json
    holds for every wide case, so that a change of the suite or of the generator behind it shows."""
    return {
        "id": case.id,
        "dtype": case.dtype,
        "shape": list(case.shape),
        "warps": case.warps,
        "smem_budget": case.smem_budget,
        "src": case.src.to_dict()["bases"],
        "dst": case.dst.to_dict()["bases"],
    }


def suite(name: str) -> list[Case]:
    """The cases of suite ``name`` (or of its older alias)."""
    name = suite_name(name)
    if name not in SUITES:
        from llgen.core.errors import LlgenError

        raise LlgenError(f"unknown suite '{name}'; known: {', '.join(SUITES)}.")
    return SUITES[name]()


@dataclass(frozen=True)
class GatherCase:
    """A gather case: source, index and output share ``layout``; gather along ``axis``."""

    id: str
    dtype: str
    shape: tuple[int, ...]
    warps: int
    layout: LinearLayout
    axis: int
    note: str = ""


def gather_cases() -> list[GatherCase]:
    """The benchmark's gather case(s): gather_f32 keeps each row in one warp's lanes (warp shuffles)."""
    shape = (32, 32)
    return [
        GatherCase("gather_f32", "f32", shape, 4, _b([1, 1], [1, 32], [4, 1], [1, 0], shape), 1, "gather along axis 1 (§5.5)")
    ]


def gather_bench_cases() -> list[GatherCase]:
    """The gather benchmark's cases: the axis in one warp's lanes (shuffles), in lanes and registers, in
    registers only, and across warps (shared memory only), over element types; gather_f32 first."""
    rows = _b([1, 4], [2, 16], [4, 1], [1, 0], (32, 64))
    return [
        *gather_cases(),
        GatherCase("g_rows_f32", "f32", (32, 64), 4, rows, 1, "axis over 4 registers and 16 lanes"),
        GatherCase("g_rows_f16", "f16", (32, 64), 4, rows, 1, "the same, 16-bit: two elements a shuffled word"),
        GatherCase("g_rows_i8", "i8", (32, 64), 4, rows, 1, "the same, 8-bit"),
        GatherCase("g_rows_f64", "f64", (32, 64), 4, rows, 1, "the same, 64-bit: two shuffles an element"),
        GatherCase("g_cross_f32", "f32", (32, 64), 4, rows, 0, "axis across warps: shared memory only"),
        GatherCase("g_regs_f16", "f16", (128, 32), 4, _b([1, 32], [32, 1], [4, 1], [1, 0], (128, 32)), 1, "axis in registers"),
        GatherCase(
            "g_long_f32", "f32", (128, 128), 4, _b([1, 4], [1, 32], [4, 1], [1, 0], (128, 128)), 1, "rows of 128 in one warp"
        ),
        GatherCase("g_mma_f16", "f16", (64, 64), 4, nvidia_mma(2, [4, 1], [16, 8], (64, 64)), 1, "mma v2 accumulator along N"),
    ]
