"""AMD matrix-core layouts: mfma (CDNA, wave64) and wmma (RDNA, wave32) accumulators and their
dot operands.

Convention: dims are (M, N) for the accumulator, (M, K) for operand A and (K, N) for B, the last
two dims of a rank-2 or rank-3 tensor; a rank-3 tensor's dim0 is the batch. Across the CTA, N is
globally contiguous: tiles_per_warp N registers, warps along N, the remaining N registers,
tiles_per_warp M registers, warps along M, then warps along the batch; the M and batch repeats
come last. ``tiles_per_warp`` has one entry per dim, as Triton prints it; the batch entry is
ignored.
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
    from_bases,
    identity1d,
    identity_nd,
    zeros1d,
)
from llgen.layouts.shared import per_cta_shape

WMMA_K_WIDTHS = {1: (8, 16), 2: (4, 8, 16), 3: (2, 8, 16)}  # what Triton 3.6 accepts per wmma version
WMMA_INSTR_K = {1: (16,), 2: (16, 32), 3: (4, 32, 64, 128)}  # the instrShape K Triton 3.6 accepts per version
MFMA_INSTR_MN = ((32, 32), (16, 16), (64, 4), (4, 64))  # Gluon's valid mfma (M, N)


def mn_names(rank: int) -> tuple[str, str]:
    """The out-dim names of M and N: the last two dims."""
    return dim_name(rank - 2), dim_name(rank - 1)


def _repeat(count: int, in_dim: str, out_dim: str) -> LinearLayout:
    """identity1d that treats a count below one (the tensor is smaller than the tile) as one."""
    return identity1d(max(1, count), in_dim, out_dim)


def with_batch(tile: LinearLayout, rank: int, batch_warps: int = 1) -> LinearLayout:
    """Triton's batch extension of an AMD tile: a size-1 batch dim for registers and lanes, listed
    last (so batch repeats come last), and ``batch_warps`` warps along it."""
    if rank == 2:
        return tile
    b = dim_name(0)
    return tile * identity1d(1, "register", b) * identity1d(1, "lane", b) * identity1d(batch_warps, "warp", b)


def spread_over_cta(
    tile: LinearLayout, tile_n: int, tiles_per_warp: Sequence[int], warps_per_cta: Sequence[int], shape: Sequence[int]
) -> LinearLayout:
    """Extend one instruction tile (tile_n wide along N, out-dims listed N first) across the CTA with N
    globally contiguous (see the module docstring)."""
    rank = len(shape)
    m, n = mn_names(rank)
    tpw_m, tpw_n = tiles_per_warp[-2:]
    w_m, w_n = warps_per_cta[-2:]
    cta = (
        tile
        * identity1d(tpw_n, "register", n)
        * identity1d(w_n, "warp", n)
        * _repeat(shape[-1] // (tile_n * w_n * tpw_n), "register", n)
        * identity1d(tpw_m, "register", m)
        * identity1d(w_m, "warp", m)
    )
    return with_batch(cta, rank, warps_per_cta[0])


@dataclass(frozen=True)
class LaneSplit:
    """How an instruction's operand fragment spreads a warp's ``lanes`` lanes: ``non_k`` of them along the non-K dim,
    the rest along K, or broadcast (holding the same K) when ``lane_k_zero``."""

    non_k: int
    lanes: int
    lane_k_zero: bool = False


def operand_tile(operand_index: int, rank: int, k_width: int, split: LaneSplit, k_repeats: int, tiles_non_k: int) -> LinearLayout:
    """One warp's operand fragment: k_width registers along K, the lanes as ``split`` spreads them,
    ``k_repeats`` register tiles along K, then tiles_per_warp registers along the non-K dim. Out-dims
    list K, the non-K dim, then the batch (the repeat order)."""
    non_k, lanes, lane_k_zero = split.non_k, split.lanes, split.lane_k_zero

    def vec(k: int, nk: int) -> list[int]:
        return [nk, k] if operand_index == 0 else [k, nk]

    regs = [vec(1 << i, 0) for i in range(k_width.bit_length() - 1)]
    lane = [vec(0, 1 << i) for i in range(non_k.bit_length() - 1)]
    k_lanes = lanes // non_k
    lane += [vec(0 if lane_k_zero else k_width << i, 0) for i in range(k_lanes.bit_length() - 1)]
    k_tile = k_width if lane_k_zero else k_width * k_lanes
    regs += [vec(k_tile << i, 0) for i in range(k_repeats.bit_length() - 1)]
    regs += [vec(0, non_k << i) for i in range(tiles_non_k.bit_length() - 1)]
    m, n = mn_names(rank)
    k_name, nk_name = (n, m) if operand_index == 0 else (m, n)
    return with_batch(from_bases({"register": regs, "lane": lane}, [m, n]).transpose_outs([k_name, nk_name]), rank)


def k_repeats(k_size: int, k_tile: int) -> int:
    """How many K tiles of one instruction fragment cover ``k_size`` (at least one)."""
    return max(1, k_size // k_tile)


def wmma_k_extent(k_full: int, k_per_cta: int, tiles_non_k: int) -> int:
    """The K extent a wmma operand's registers walk before tiles_per_warp: the whole K, but no
    more than one CTA's share of K times tiles_per_warp along the non-K dim. Found by matching
    Triton 3.6 on clusters that split K (its rule, not a hardware fact)."""
    return min(k_full, k_per_cta * tiles_non_k)


def dot_warps(warps_per_cta: Sequence[int]) -> LinearLayout:
    """Warps of an mfma dot operand: the parent's warps_per_cta, N first, then M and the batch;
    the bases along K end up past the tensor's edge and become broadcast when fitted."""
    return identity_nd("warp", warps_per_cta, list(range(len(warps_per_cta) - 1, -1, -1)))


@dataclass(frozen=True)
class _AmdBase:
    warps_per_cta: tuple[int, ...]
    tiles_per_warp: tuple[int, ...]
    cga_layout: CgaLayout

    def _check_common(self):
        object.__setattr__(self, "warps_per_cta", check_pow2("warps_per_cta", tuple(self.warps_per_cta)))
        object.__setattr__(self, "tiles_per_warp", check_pow2("tiles_per_warp", tuple(self.tiles_per_warp)))
        if self.rank not in (2, 3):
            raise LlgenError(f"AMD layouts take a warps_per_cta of rank 2 or 3, got {list(self.warps_per_cta)}.")
        if len(self.tiles_per_warp) != self.rank:
            raise LlgenError(
                f"tiles_per_warp {list(self.tiles_per_warp)} must have one entry per dim of warps_per_cta "
                f"{list(self.warps_per_cta)}."
            )
        object.__setattr__(self, "cga_layout", check_cga(self.cga_layout, self.rank))

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def non_k_tiles(self, operand_index: int) -> int:
        """tiles_per_warp along operand ``operand_index``'s non-K dim (M for A, N for B)."""
        return self.tiles_per_warp[self.rank - 2 + operand_index]


@dataclass(frozen=True)
class AmdMfma(_AmdBase):
    """Triton's AMDMfmaEncoding (wave64). One instruction tile: ``height`` registers (4, or 1 for
    64-bit elements) along M, N lanes along N, the remaining lanes along M, further registers
    along M; ``transposed`` swaps the roles of M and N inside the tile (and 64x4 must be
    transposed, as Triton requires)."""

    instr_shape: tuple[int, ...] = (32, 32, 8)
    transposed: bool = False
    element_bitwidth: int = 32
    version: int = 3

    def __post_init__(self):
        self._check_common()
        shp = tuple(self.instr_shape)
        if len(shp) != 3 or shp[:2] not in MFMA_INSTR_MN or not isinstance(shp[2], int) or shp[2] < 1:
            raise LlgenError(
                f"mfma instr_shape {list(shp)} is not supported (use [M, N, K] with M x N one of "
                f"{', '.join(f'{m}x{n}' for m, n in MFMA_INSTR_MN)})."
            )
        if shp[:2] == (64, 4) and not self.transposed:
            raise LlgenError(f"mfma instr_shape {list(shp)} needs transposed=true (Triton only builds a transposed 64x4).")
        if self.element_bitwidth not in (32, 64):
            raise LlgenError(f"mfma element_bitwidth {self.element_bitwidth} must be 32 or 64 (the accumulator's).")
        if self.version not in (1, 2, 3, 4):
            raise LlgenError(f"mfma version {self.version} is not supported (use 1 to 4).")
        object.__setattr__(self, "instr_shape", shp)

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        mi, ni = self.instr_shape[:2]
        m, n = mn_names(self.rank)
        height = 1 if self.element_bitwidth == 64 else 4
        tiles = (mi * ni) // (64 * height)
        if not self.transposed:
            tile = (
                identity1d(height, "register", m)
                * identity1d(ni, "lane", n)
                * identity1d(64 // ni, "lane", m)
                * identity1d(tiles, "register", m)
            )
        else:
            tile = (
                identity1d(height, "register", n)
                * identity1d(mi, "lane", m)
                * identity1d(64 // mi, "lane", n)
                * identity1d(tiles, "register", n)
            )
        tile = tile.transpose_outs([n, m])
        cta = spread_over_cta(tile, ni, self.tiles_per_warp, self.warps_per_cta, shape)
        return combine_with_shape(cta, self.cga_layout, shape)

    def dot_operand_linear(self, operand_index: int, k_width: int, shape: Shape) -> LinearLayout:
        """mfma operand: k_width registers along K, M (A) / N (B) lanes along the non-K dim, the
        other lanes along K, then K repeats, tiles_per_warp, and the parent's warps. The 64-wide
        operand of a 64x4 / 4x64 instruction walks 16 K tiles at least. Unlike NVIDIA's, the
        cluster is the parent's unchanged (Triton 3.6 does not zero K here)."""
        rank = self.rank
        shape = check_shape(shape, rank)
        non_k = self.instr_shape[operand_index]
        k_size = shape[-1] if operand_index == 0 else shape[-2]
        k_tile = k_width * 64 // non_k
        reps = k_repeats(k_size, k_tile)
        if self.instr_shape[:2] == ((64, 4), (4, 64))[operand_index]:
            reps = max(16, reps)
        tile = operand_tile(operand_index, rank, k_width, LaneSplit(non_k, 64), reps, self.non_k_tiles(operand_index))
        return combine_with_shape(tile * dot_warps(self.warps_per_cta), self.cga_layout, shape)


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
        ks = WMMA_INSTR_K[self.version]
        if len(shp) != 3 or shp[:2] != (16, 16) or shp[2] not in ks:
            raise LlgenError(
                f"wmma v{self.version} instr_shape {list(shp)} is not supported (use [16, 16, K] with K one of "
                f"{', '.join(map(str, ks))})."
            )
        object.__setattr__(self, "instr_shape", shp)

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        if any(1 < s < 16 for s in shape[-2:]):
            raise LlgenError(f"shape {list(shape)} is too small for a wmma layout: M and N must each be 1 or at least 16.")
        m, n = mn_names(self.rank)
        row, col = (m, n) if not self.transposed else (n, m)
        if self.version == 1:
            regs = [[0, 2], [0, 4], [0, 8]]
            lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]
        else:
            regs = [[0, 1], [0, 2], [0, 4]]
            lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
        tile = from_bases({"register": regs, "lane": lanes}, [col, row]).transpose_outs([n, m])
        cta = spread_over_cta(tile, 16, self.tiles_per_warp, self.warps_per_cta, shape)
        return combine_with_shape(cta, self.cga_layout, shape)

    def dot_operand_linear(self, operand_index: int, k_width: int, shape: Shape) -> LinearLayout:
        """wmma operand: k_width registers along K, 16 lanes along M (A) / N (B), lane bit 4
        along K (v2/v3) or duplicated (v1), then K repeats over max(K per CTA, instr K) in units
        of 2 * k_width, tiles_per_warp, and the warps (broadcast along K, N first, then M and the
        batch); the rest of K (only v1 leaves some) and the non-K repeats come last, K first."""
        rank = self.rank
        shape = check_shape(shape, rank)
        if k_width not in WMMA_K_WIDTHS[self.version]:
            raise LlgenError(
                f"k_width {k_width} is invalid for a wmma v{self.version} parent (use one of {WMMA_K_WIDTHS[self.version]})."
            )
        k_dim = rank - 1 - operand_index
        tiles = self.non_k_tiles(operand_index)
        k_size = max(wmma_k_extent(shape[k_dim], per_cta_shape(shape, self.cga_layout)[k_dim], tiles), self.instr_shape[2])
        reps = k_repeats(k_size, 2 * k_width)  # v1 counts its duplicated half-wave as if it held K too
        cta = operand_tile(operand_index, rank, k_width, LaneSplit(16, 32, self.version == 1), reps, tiles)
        for d in range(rank - 1, -1, -1):
            cta = cta * (zeros1d if d == k_dim else identity1d)(self.warps_per_cta[d], "warp", dim_name(d))
        return combine_with_shape(cta, self.cga_layout, shape)


def amd_mfma(
    version: int,
    instr_shape: Sequence[int],
    transposed: bool,
    warps_per_cta: Sequence[int],
    shape: Shape,
    element_bitwidth: int = 32,
    tiles_per_warp: Sequence[int] | None = None,
    cga_layout: CgaLayout = (),
) -> LinearLayout:
    """The mfma accumulator over ``shape`` (see `AmdMfma`); Gluon's AMDMFMALayout parameters
    (tiles_per_warp None: one tile per dim)."""
    tiles = tuple(tiles_per_warp) if tiles_per_warp is not None else (1,) * len(warps_per_cta)
    return AmdMfma(
        tuple(warps_per_cta),
        tiles,
        tuple(map(tuple, cga_layout)),
        tuple(instr_shape),
        bool(transposed),
        element_bitwidth or 32,
        version,
    ).to_linear(shape)


def amd_wmma(
    version: int,
    transposed: bool,
    warps_per_cta: Sequence[int],
    shape: Shape,
    instr_shape: Sequence[int] = (16, 16, 16),
    tiles_per_warp: Sequence[int] | None = None,
    cga_layout: CgaLayout = (),
) -> LinearLayout:
    """The wmma accumulator over ``shape`` (see `AmdWmma`); Gluon's AMDWMMALayout parameters
    (tiles_per_warp None: one tile per dim)."""
    tiles = tuple(tiles_per_warp) if tiles_per_warp is not None else (1,) * len(warps_per_cta)
    return AmdWmma(
        tuple(warps_per_cta), tiles, tuple(map(tuple, cga_layout)), version, bool(transposed), tuple(instr_shape)
    ).to_linear(shape)
