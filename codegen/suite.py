"""The suites: `core`, the benchmark's ten conversions (each case's layouts, dtype and warps), and `regressions`,
conversions from other people's kernels that once went wrong, one per class of bug."""

from __future__ import annotations

from dataclasses import dataclass

from .layout import LinearLayout
from .layouts import NvidiaMma, blocked, dot_operand, linear, nvidia_mma


@dataclass(frozen=True)
class Case:
    id: str
    dtype: str
    shape: tuple[int, int]
    warps: int
    src: LinearLayout
    dst: LinearLayout
    note: str = ""


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
)


def regressions() -> list[Case]:
    """Conversions from other people's kernels that llgen once got wrong, one per class (see each note)."""
    from .dtypes import dtype
    from .spec import parse_layout

    out = []
    for cid, dt, shape, warps, a, b, note in _REGRESSIONS:
        nbytes = dtype(dt).bytes
        out.append(
            Case(
                cid, dt, shape, warps, parse_layout(a, shape, warps, 32, nbytes), parse_layout(b, shape, warps, 32, nbytes), note
            )
        )
    return out


SUITES = {"core": core, "regressions": regressions}


def suite(name: str) -> list[Case]:
    """The cases of suite ``name``."""
    if name not in SUITES:
        from .errors import LlgenError

        raise LlgenError(f"unknown suite '{name}'; known: {', '.join(SUITES)}.")
    return SUITES[name]()


@dataclass(frozen=True)
class GatherCase:
    """A gather case: source, index and output share ``layout``; gather along ``axis``."""

    id: str
    dtype: str
    shape: tuple[int, int]
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
