"""NVIDIA tensor-core layouts: the mma v2 (mma.sync) and v3 (wgmma) accumulators and their
register dot operands.

Convention: ``instr_shape`` is [16, 8] for v2 ([1, 16, 8] with a leading batch dim, as Triton
prints it) and [16, N, K] for v3; the accumulator tile of one warp is 16 x 8 (v2) or 16 x N (v3,
per warp of a warpgroup). Dims are (M, N) for the accumulator, (M, K) for operand A and (K, N)
for operand B; both allow a leading batch dim (rank 3), but a batched v3 builds only as the parent of
operand A (and slices of that): Triton aborts on a batched wgmma accumulator, as llgen refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.layouts.common import (
    CgaLayout,
    Shape,
    check_cga,
    check_pow2,
    check_shape,
    combine_with_shape,
    dim_name,
    identity1d,
    identity_nd,
    zeros1d,
)


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton's getMatrixOrder: dims fastest first, the last dim first when row-major."""
    order = list(range(rank - 1, -1, -1))
    if not row_major:
        order[0], order[1] = order[1], order[0]
    return order


def dot_operand_order(operand_index: int, rank: int) -> list[int]:
    """Dims fastest first for a dot operand whose K dim is contiguous: K, then the other."""
    return matrix_order(rank, row_major=operand_index == 0)


def mma_tile(tile_shape: Sequence[int], k_width: int, order: Sequence[int], rep_order: Sequence[int]) -> LinearLayout:
    """Triton's nvidiaMmaTile: one warp's fragment of an m x n tile (n the fastest dim):
    k_width registers along n, 4 lanes along n, 8 lanes along m, registers for the m/8 rows,
    then registers for the remaining n. ``rep_order`` sets the out-dim order, hence the order
    in which repeats over the tensor are added."""
    rank = len(rep_order)
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    if m % 8 or n % (k_width * 4):
        raise LlgenError(f"an mma tile of {list(tile_shape)} does not hold k_width {k_width}.")
    tile = identity_nd("register", [1] * rank, rep_order)
    return (
        tile
        * identity1d(k_width, "register", dim_name(inner))
        * identity1d(4, "lane", dim_name(inner))
        * identity1d(8, "lane", dim_name(outer))
        * identity1d(m // 8, "register", dim_name(outer))
        * identity1d(n // (k_width * 4), "register", dim_name(inner))
    )


@dataclass(frozen=True)
class NvidiaMma:
    """Triton's NvidiaMmaEncoding. Warps are row-major (N first) for v2, column-major (M first)
    for v3; repeats over the tensor go N before M."""

    version: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    cga_layout: CgaLayout = ()

    def __post_init__(self):
        if self.version not in (2, 3):
            raise LlgenError(f"mma version {self.version} is not supported (use 2 or 3).")
        object.__setattr__(self, "warps_per_cta", check_pow2("warps_per_cta", tuple(self.warps_per_cta)))
        object.__setattr__(self, "instr_shape", check_pow2("instr_shape", tuple(self.instr_shape)))
        if self.rank not in (2, 3):
            raise LlgenError(f"mma v{self.version} warps_per_cta {list(self.warps_per_cta)} must have rank 2 or 3.")
        object.__setattr__(self, "cga_layout", check_cga(self.cga_layout, self.rank))
        want = self.rank if self.version == 2 else 3
        if len(self.instr_shape) != want:
            raise LlgenError(
                f"mma v{self.version} of rank {self.rank} takes an instr_shape of {want} entries "
                f"(like {list(default_instr_shape(self.version, self.rank))}), got {list(self.instr_shape)}."
            )

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def warp_order(self) -> list[int]:
        return matrix_order(self.rank, row_major=self.version == 2)

    @property
    def tile_mn(self) -> list[int]:
        """One warp's accumulator tile (M, N): instrShape's last two entries for v2 (Triton prints
        [1, 16, 8] for a batched tensor and ignores the batch entry), its first two for v3."""
        return list(self.instr_shape[-2:] if self.version == 2 else self.instr_shape[:2])

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        rank = self.rank
        if self.version == 3 and rank == 3:
            raise LlgenError(
                f"mma v3 warps_per_cta {list(self.warps_per_cta)} has rank 3: a batched wgmma builds only as the parent "
                "of a dot operand (wgmma has no batch dim), not as a layout of its own."
            )
        tile_shape = [1] * (rank - 2) + self.tile_mn
        order = matrix_order(rank, row_major=True)
        cta = mma_tile(tile_shape, 2, order, order)
        cta = cta * identity_nd("warp", self.warps_per_cta, self.warp_order)
        return combine_with_shape(cta, self.cga_layout, shape)

    def dot_operand_linear(self, operand_index: int, k_width: int, shape: Shape) -> LinearLayout:
        """Triton's nvidiaDotToLinearLayout: operand A's tile is 16 x 8*k_width, B's 8*k_width x 8,
        K contiguous; warps follow the accumulator's along M (A) or N (B) and broadcast along K."""
        rank = self.rank
        shape = check_shape(shape, rank)
        if self.version == 3 and operand_index != 0:
            raise LlgenError("a wgmma (mma v3) parent takes only operand 0 from registers.")
        tile_shape = [1] * rank
        if operand_index == 0:
            tile_shape[rank - 2], tile_shape[rank - 1] = 16, 8 * k_width
        else:
            tile_shape[rank - 2], tile_shape[rank - 1] = 8 * k_width, 8
        order = dot_operand_order(operand_index, rank)
        cta = mma_tile(tile_shape, k_width, order, order)
        k_dim = rank - 1 if operand_index == 0 else rank - 2
        for d in self.warp_order:
            one = zeros1d if d == k_dim else identity1d
            cta = cta * one(self.warps_per_cta[d], "warp", dim_name(d))
        return combine_with_shape(cta, dot_cga(self.cga_layout, k_dim), shape)


def default_instr_shape(version: int, rank: int) -> tuple[int, ...]:
    """The instrShape Triton picks: [16, 8] for v2 with a leading 1 per batch dim; [16, 64, 16] stands
    for v3's [16, N, K]."""
    return (1,) * (rank - 2) + (16, 8) if version == 2 else (16, 64, 16)


def dot_cga(cga: CgaLayout, k_dim: int) -> CgaLayout:
    """A dot operand's cluster: the parent's, with the K coordinate zeroed (CTAs along K share)."""
    return tuple(tuple(0 if d == k_dim else c for d, c in enumerate(v)) for v in cga)


def nvidia_mma(
    version: int, warps_per_cta: Sequence[int], instr_shape: Sequence[int], shape: Shape, cga_layout: CgaLayout = ()
) -> LinearLayout:
    """The mma v2 / v3 accumulator over ``shape`` (see `NvidiaMma`)."""
    return NvidiaMma(version, tuple(warps_per_cta), tuple(instr_shape), tuple(map(tuple, cga_layout))).to_linear(shape)
