"""AMD matrix-core layouts: mfma (CDNA, wave64) and wmma (RDNA, wave32) accumulators and their
dot operands.

Convention: dims are (M, N) for the accumulator, (M, K) for operand A and (K, N) for B; rank 2.
Across the CTA, N is globally contiguous: tiles_per_warp N registers, warps along N, the
remaining N registers, tiles_per_warp M registers, warps along M; the M repeats come last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import LlgenError
from ..layout import LinearLayout
from .common import (
    CgaLayout,
    Shape,
    check_cga,
    check_pow2,
    check_shape,
    combine_with_shape,
    dim_name,
    from_bases,
    identity1d,
    identity_nd,
    zeros1d,
)
from .shared import _per_cta

M, N = dim_name(0), dim_name(1)
WMMA_K_WIDTHS = {1: (8, 16), 2: (4, 8, 16), 3: (2, 8, 16)}  # what Triton 3.6 accepts per wmma version


def _repeat(count: int, in_dim: str, out_dim: str) -> LinearLayout:
    """identity1d that treats a count below one (the tensor is smaller than the tile) as one."""
    return identity1d(max(1, count), in_dim, out_dim)


def spread_over_cta(tile: LinearLayout, tile_m: int, tile_n: int, tiles_per_warp: Sequence[int],
                    warps_per_cta: Sequence[int], shape: Sequence[int]) -> LinearLayout:
    """Extend one instruction tile (tile_m x tile_n, out-dims listed N first) across the CTA with N
    globally contiguous (see the module docstring)."""
    tpw_m, tpw_n = tiles_per_warp
    w_m, w_n = warps_per_cta
    return (tile * identity1d(tpw_n, "register", N) * identity1d(w_n, "warp", N)
            * _repeat(shape[1] // (tile_n * w_n * tpw_n), "register", N)
            * identity1d(tpw_m, "register", M) * identity1d(w_m, "warp", M))


def operand_tile(operand_index: int, k_width: int, non_k: int, lanes: int, lane_k_zero: bool, k_repeats: int,
                 tiles_non_k: int) -> LinearLayout:
    """One warp's operand fragment: k_width registers along K, ``non_k`` lanes along the non-K
    dim, the remaining lanes along K (or broadcast when ``lane_k_zero``), ``k_repeats`` register
    tiles along K, then tiles_per_warp registers along the non-K dim. Out-dims list K first
    (the repeat order)."""
    def vec(k: int, nk: int) -> list[int]:
        return [nk, k] if operand_index == 0 else [k, nk]
    regs = [vec(1 << i, 0) for i in range(k_width.bit_length() - 1)]
    lane = [vec(0, 1 << i) for i in range(non_k.bit_length() - 1)]
    k_lanes = lanes // non_k
    lane += [vec(0 if lane_k_zero else k_width << i, 0) for i in range(k_lanes.bit_length() - 1)]
    k_tile = k_width if lane_k_zero else k_width * k_lanes
    regs += [vec(k_tile << i, 0) for i in range(k_repeats.bit_length() - 1)]
    regs += [vec(0, non_k << i) for i in range(tiles_non_k.bit_length() - 1)]
    k_name, nk_name = (N, M) if operand_index == 0 else (M, N)
    return from_bases({"register": regs, "lane": lane}, [M, N]).transpose_outs([k_name, nk_name])


def k_repeats(k_size: int, k_tile: int) -> int:
    """How many K tiles of one instruction fragment cover ``k_size`` (at least one)."""
    return max(1, k_size // k_tile)


def wmma_k_extent(k_full: int, k_per_cta: int, tiles_non_k: int) -> int:
    """The K extent a wmma operand's registers walk before tiles_per_warp: the whole K, but no
    more than one CTA's share of K times tiles_per_warp along the non-K dim. Found by matching
    Triton 3.6 on clusters that split K (its rule, not a hardware fact)."""
    return min(k_full, k_per_cta * tiles_non_k)


def dot_warps(warps_per_cta: Sequence[int]) -> LinearLayout:
    """Warps of an AMD dot operand: the parent's warps_per_cta, N first; the bases along K end
    up past the tensor's edge and become broadcast when fitted."""
    return identity_nd("warp", warps_per_cta, [1, 0])


@dataclass(frozen=True)
class _AmdBase:
    warps_per_cta: tuple[int, ...]
    tiles_per_warp: tuple[int, ...]
    cga_layout: CgaLayout

    def _check_common(self):
        object.__setattr__(self, "warps_per_cta", check_pow2("warps_per_cta", tuple(self.warps_per_cta)))
        object.__setattr__(self, "tiles_per_warp", check_pow2("tiles_per_warp", tuple(self.tiles_per_warp)))
        if len(self.warps_per_cta) != 2 or len(self.tiles_per_warp) != 2:
            raise LlgenError(f"AMD layouts take rank-2 warps_per_cta and tiles_per_warp, got {list(self.warps_per_cta)} "
                             f"and {list(self.tiles_per_warp)}.")
        object.__setattr__(self, "cga_layout", check_cga(self.cga_layout, 2))

    @property
    def rank(self) -> int:
        return 2


@dataclass(frozen=True)
class AmdMfma(_AmdBase):
    """Triton's AMDMfmaEncoding (wave64). One instruction tile: ``height`` registers (4, or 1 for
    64-bit elements) along M, N lanes along N, the remaining lanes along M, further registers
    along M; ``transposed`` swaps the roles of M and N inside the tile."""

    instr_shape: tuple[int, ...] = (32, 32, 8)
    transposed: bool = False
    element_bitwidth: int = 32
    version: int = 3

    def __post_init__(self):
        self._check_common()
        shp = tuple(self.instr_shape)
        if len(shp) < 2 or shp[0] != shp[1] or shp[0] not in (16, 32):
            raise LlgenError(f"mfma instr_shape {list(shp)} is not supported (use [32, 32, K] or [16, 16, K]).")
        if self.element_bitwidth not in (32, 64):
            raise LlgenError(f"mfma element_bitwidth {self.element_bitwidth} must be 32 or 64 (the accumulator's).")
        object.__setattr__(self, "instr_shape", shp)

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, 2)
        m, n = self.instr_shape[:2]
        height = 1 if self.element_bitwidth == 64 else 4
        tiles = (m * n) // (64 * height)
        if not self.transposed:
            tile = (identity1d(height, "register", M) * identity1d(n, "lane", N) * identity1d(64 // n, "lane", M)
                    * identity1d(tiles, "register", M))
        else:
            tile = (identity1d(height, "register", N) * identity1d(m, "lane", M) * identity1d(64 // m, "lane", N)
                    * identity1d(tiles, "register", N))
        tile = tile.transpose_outs([N, M])
        cta = spread_over_cta(tile, m, n, self.tiles_per_warp, self.warps_per_cta, shape)
        return combine_with_shape(cta, self.cga_layout, shape)

    def dot_operand_linear(self, operand_index: int, k_width: int, shape: Shape) -> LinearLayout:
        """mfma operand: k_width registers along K, 16 or 32 lanes along M (A) / N (B), the
        other lanes along K, then K repeats, tiles_per_warp, and the parent's warps. Unlike
        NVIDIA's, the cluster is the parent's unchanged (Triton 3.6 does not zero K here)."""
        shape = check_shape(shape, 2)
        non_k = self.instr_shape[0] if operand_index == 0 else self.instr_shape[1]
        k_size = shape[1] if operand_index == 0 else shape[0]
        reps = k_repeats(k_size, k_width * 64 // non_k)
        tile = operand_tile(operand_index, k_width, non_k, 64, False, reps, self.tiles_per_warp[operand_index])
        cta = tile * dot_warps(self.warps_per_cta)
        return combine_with_shape(cta, self.cga_layout, shape)


@dataclass(frozen=True)
class AmdWmma(_AmdBase):
    """Triton's AMDWmmaEncoding (wave32, 16 x 16 tiles). v1 (RDNA3): registers (2,0),(4,0),(8,0),
    lanes 16 along N then (1,0): even and odd rows on the two half-waves. v2/v3 (RDNA4):
    registers (1,0),(2,0),(4,0), lanes 16 along N then (8,0). ``transposed`` swaps M and N."""

    version: int = 2
    transposed: bool = False
    instr_shape: tuple[int, ...] = (16, 16, 16)

    def __post_init__(self):
        self._check_common()
        if self.version not in (1, 2, 3):
            raise LlgenError(f"wmma version {self.version} is not supported (use 1, 2 or 3).")
        shp = tuple(self.instr_shape)
        if len(shp) < 2 or shp[0] != 16 or shp[1] != 16:
            raise LlgenError(f"wmma instr_shape {list(shp)} is not supported (use [16, 16, K]).")
        object.__setattr__(self, "instr_shape", shp)

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, 2)
        if any(1 < s < 16 for s in shape):
            raise LlgenError(f"shape {list(shape)} is too small for a wmma layout: each dim must be 1 or at least 16.")
        row, col = (M, N) if not self.transposed else (N, M)
        if self.version == 1:
            regs = [[0, 2], [0, 4], [0, 8]]
            lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]
        else:
            regs = [[0, 1], [0, 2], [0, 4]]
            lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
        tile = from_bases({"register": regs, "lane": lanes}, [col, row]).transpose_outs([N, M])
        cta = spread_over_cta(tile, 16, 16, self.tiles_per_warp, self.warps_per_cta, shape)
        return combine_with_shape(cta, self.cga_layout, shape)

    def dot_operand_linear(self, operand_index: int, k_width: int, shape: Shape) -> LinearLayout:
        """wmma operand: k_width registers along K, 16 lanes along M (A) / N (B), lane bit 4
        along K (v2/v3) or duplicated (v1), then K repeats over max(K per CTA, instr K) in units
        of 2 * k_width, tiles_per_warp, and the warps (broadcast along K); the rest of K (only
        v1 leaves some) and the non-K repeats come last, K first."""
        shape = check_shape(shape, 2)
        if k_width not in WMMA_K_WIDTHS[self.version]:
            raise LlgenError(f"k_width {k_width} is invalid for a wmma v{self.version} parent (use one of {WMMA_K_WIDTHS[self.version]}).")
        k_dim = 1 - operand_index
        k_size = max(wmma_k_extent(shape[k_dim], _per_cta(shape, self.cga_layout)[k_dim], self.tiles_per_warp[operand_index]),
                     self.instr_shape[2])
        reps = k_repeats(k_size, 2 * k_width)  # v1 counts its duplicated half-wave as if it held K too
        tile = operand_tile(operand_index, k_width, 16, 32, self.version == 1, reps, self.tiles_per_warp[operand_index])
        cta = tile
        for d in (1, 0):
            cta = cta * (zeros1d if d == k_dim else identity1d)(self.warps_per_cta[d], "warp", dim_name(d))
        return combine_with_shape(cta, self.cga_layout, shape)


def amd_mfma(version: int, instr_shape: Sequence[int], transposed: bool, warps_per_cta: Sequence[int], shape: Shape,
             element_bitwidth: int = 32, tiles_per_warp: Sequence[int] = (1, 1), cga_layout: CgaLayout = ()) -> LinearLayout:
    """The mfma accumulator over ``shape`` (see `AmdMfma`); Gluon's AMDMFMALayout parameters."""
    return AmdMfma(tuple(warps_per_cta), tuple(tiles_per_warp), tuple(map(tuple, cga_layout)), tuple(instr_shape),
                   bool(transposed), element_bitwidth or 32, version).to_linear(shape)


def amd_wmma(version: int, transposed: bool, warps_per_cta: Sequence[int], shape: Shape, instr_shape: Sequence[int] = (16, 16, 16),
             tiles_per_warp: Sequence[int] = (1, 1), cga_layout: CgaLayout = ()) -> LinearLayout:
    """The wmma accumulator over ``shape`` (see `AmdWmma`); Gluon's AMDWMMALayout parameters."""
    return AmdWmma(tuple(warps_per_cta), tuple(tiles_per_warp), tuple(map(tuple, cga_layout)), version, bool(transposed),
                   tuple(instr_shape)).to_linear(shape)
