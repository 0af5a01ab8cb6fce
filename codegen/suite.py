"""The benchmark suite `core` (BENCHMARKS.md): each case's layouts, dtype and warps."""

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
    lanes_b = linear([list(lanes_a.basis("register", i)) for i in range(lanes_a.in_bits("register"))], rot,
                     [list(lanes_a.basis("warp", i)) for i in range(lanes_a.in_bits("warp"))], [], (64, 64))
    return [
        Case("t16x32", "f32", t_shape, 1, t_st, t_rd, "the reference transpose"),
        Case("b2mma_f32", "f32", s, 4, _b([1, 4], [1, 32], [4, 1], [1, 0], s), nvidia_mma(2, [2, 2], [16, 8], s)),
        Case("mma2b_f16", "f16", s, 4, nvidia_mma(2, [2, 2], [16, 8], s), _b([1, 8], [2, 16], [4, 1], [1, 0], s), "epilogue store"),
        Case("b2dotA_f16", "f16", (128, 64), 4, _b([1, 8], [4, 8], [4, 1], [1, 0], (128, 64)),
             dot_operand(0, mma22, 2, (128, 64)), "ldmatrix"),
        Case("b2dotB_f16", "f16", (64, 128), 4, _b([1, 8], [2, 16], [4, 1], [1, 0], (64, 128)),
             dot_operand(1, mma22, 2, (64, 128)), "ldmatrix .trans"),
        Case("b2dotA_i8", "i8", (128, 64), 4, _b([1, 16], [8, 4], [4, 1], [1, 0], (128, 64)),
             dot_operand(0, mma22, 4, (128, 64)), "sub-word packing"),
        Case("mma2dotA_f16", "f16", (128, 64), 4, nvidia_mma(2, [4, 1], [16, 8], (128, 64)),
             dot_operand(0, mma41, 2, (128, 64)), "no data moves"),
        Case("b2bT_f16", "f16", s, 4, _b([1, 8], [2, 16], [4, 1], [1, 0], s), _b([8, 1], [16, 2], [1, 4], [0, 1], s), "transpose"),
        Case("lanes_f32", "f32", (64, 64), 4, lanes_a, lanes_b, "warp shuffles"),
        Case("wgmma2b_f32", "f32", s, 4, nvidia_mma(3, [4, 1], [16, 128, 16], s), _b([1, 4], [1, 32], [4, 1], [1, 0], s),
             "Hopper epilogue"),
    ]


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
    """BENCHMARKS.md's gather case(s): gather_f32 keeps each row in one warp's lanes (warp shuffles)."""
    shape = (32, 32)
    return [GatherCase("gather_f32", "f32", shape, 4, _b([1, 1], [1, 32], [4, 1], [1, 0], shape), 1,
                       "gather along axis 1 (§5.5)")]
