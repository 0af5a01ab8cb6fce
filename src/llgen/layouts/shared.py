"""Shared-memory layouts: in-dim ``offset`` (an element offset inside one CTA's buffer) and
``block`` (the CTA of a cluster), out-dims dim0, dim1, ... . Every one is a bijection per CTA.

Convention: a row is the second-fastest dim (``order[1]``), a column the fastest (``order[0]``);
an XOR swizzle moves whole ``vec``-element groups of a row by a phase that depends on the row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.layouts.common import (
    SHARED_INS,
    CgaLayout,
    Shape,
    cga_shape,
    check_cga,
    check_order,
    check_pow2,
    check_shape,
    combine_with_shape,
    dim_name,
    from_bases,
    identity1d,
)


def swizzled_rows(rows: int, cols: int, vec: int, per_phase: int, max_phase: int, rotating: bool = False) -> list[list[int]]:
    """Bases [row, col] of a rows x cols swizzled tile: columns first (unit steps), then row r
    at column vec * phase(r) mod cols, phase(r) = (r / per_phase) mod max_phase. ``rotating``
    (AMD's rotating swizzle) XORs the phase with the row's block of per_phase * max_phase rows,
    (r / (per_phase * max_phase)) mod max_phase, so consecutive blocks start at different phases."""
    bases = [[0, c] for c in _powers(cols)]
    for r in _powers(rows):
        phase = (r // per_phase) % max_phase
        if rotating:
            phase ^= (r // (per_phase * max_phase)) % max_phase
        bases.append([r, (vec * phase) % cols])
    return bases


def _powers(n: int) -> list[int]:
    return [1 << i for i in range(n.bit_length() - 1)]


def per_cta_shape(shape: Sequence[int], cga: CgaLayout) -> list[int]:
    split = cga_shape(cga, len(shape))
    return [max(1, s // c) for s, c in zip(shape, split, strict=True)]


@dataclass(frozen=True)
class SwizzledShared:
    """Triton's SwizzledSharedEncoding(vec, perPhase, maxPhase, order); dims beyond the two
    fastest are plain identities in ``order``."""

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    cga_layout: CgaLayout = ()
    rotating = False  # AmdRotatingShared's rotating phase (see swizzled_rows)
    kind = "swizzled_shared"

    def __post_init__(self):
        check_pow2(f"{self.kind} (vec, per_phase, max_phase)", [self.vec, self.per_phase, self.max_phase])
        object.__setattr__(self, "order", check_order(tuple(self.order), len(self.order)))
        object.__setattr__(self, "cga_layout", check_cga(self.cga_layout, self.rank))

    @property
    def rank(self) -> int:
        return len(self.order)

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        per_cta = per_cta_shape(shape, self.cga_layout)
        if self.rank == 1:
            cta = identity1d(per_cta[0], "offset", dim_name(0))
        else:
            # Triton 3.6 builds the rotating tile over the whole tensor, not one CTA's share: over a
            # cluster the offsets past the share become broadcast (zero) bases, as Triton's do.
            size = shape if self.rotating else per_cta
            col, row = self.order[0], self.order[1]
            bases = swizzled_rows(size[row], size[col], self.vec, self.per_phase, self.max_phase, self.rotating)
            cta = LinearLayout.from_bases({"offset": bases}, [(dim_name(row), size[row]), (dim_name(col), size[col])])
            for d in self.order[2:]:
                cta = cta * identity1d(size[d], "offset", dim_name(d))
        return combine_with_shape(cta, self.cga_layout, shape, SHARED_INS)


def swizzled_shared(
    vec: int, per_phase: int, max_phase: int, order: Sequence[int], shape: Shape, cga_layout: CgaLayout = ()
) -> LinearLayout:
    """Triton's SwizzledSharedLayout over ``shape`` (see `SwizzledShared`)."""
    return SwizzledShared(vec, per_phase, max_phase, tuple(order), tuple(map(tuple, cga_layout))).to_linear(shape)


@dataclass(frozen=True)
class AmdRotatingShared(SwizzledShared):
    """Triton's AMDRotatingSharedEncoding(vec, perPhase, maxPhase, order): the swizzle of
    `SwizzledShared` whose phase also rotates from one block of per_phase * max_phase rows to the
    next (see `swizzled_rows`), so that rows of different blocks read together do not collide."""

    rotating = True
    kind = "amd_rotating_shared"


def amd_rotating_shared(
    vec: int, per_phase: int, max_phase: int, order: Sequence[int], shape: Shape, cga_layout: CgaLayout = ()
) -> LinearLayout:
    """Triton's AMDRotatingSharedLayout over ``shape`` (see `AmdRotatingShared`)."""
    return AmdRotatingShared(vec, per_phase, max_phase, tuple(order), tuple(map(tuple, cga_layout))).to_linear(shape)


@dataclass(frozen=True)
class NvmmaShared:
    """Triton's NVMMASharedEncoding: the 32/64/128-byte swizzles of TMA and wgmma (CuTe's
    Swizzle<1|2|3,4,3>), or none for 0. vec = 128 / element_bitwidth elements, per_phase =
    128 / swizzle bytes rows, max_phase = swizzle bytes / 16. The core tile is 8 rows x
    (8 * swizzle bytes / element_bitwidth) columns; it grows over the TMA box rows first, then
    columns, then over the rest of the tensor. ``transposed`` makes dim0 the contiguous dim."""

    swizzle_byte_width: int
    element_bitwidth: int
    transposed: bool = False
    rank: int = 2
    cga_layout: CgaLayout = ()

    def __post_init__(self):
        if self.swizzle_byte_width not in (0, 32, 64, 128):
            raise LlgenError(f"nvmma_shared swizzle width {self.swizzle_byte_width} must be 0, 32, 64 or 128 bytes.")
        if self.element_bitwidth not in (8, 16, 32, 64):
            raise LlgenError(f"nvmma_shared element bit width {self.element_bitwidth} must be 8, 16, 32 or 64.")
        if self.rank != 2:
            raise LlgenError(f"nvmma_shared supports rank 2 here, got rank {self.rank}.")
        object.__setattr__(self, "cga_layout", check_cga(self.cga_layout, self.rank))

    def tma_box(self, per_cta: Sequence[int]) -> list[int]:
        """Triton's getTMABlockShape: every dim at most 256; the contiguous dim exactly the swizzle width."""
        box = [min(s, 256) for s in per_cta]
        contig = 0 if self.transposed else len(box) - 1
        if self.swizzle_byte_width:
            want = 8 * self.swizzle_byte_width // self.element_bitwidth
            if box[contig] < want:
                raise LlgenError(
                    f"shape {list(per_cta)} is too small for a {self.swizzle_byte_width}-byte swizzle of "
                    f"{self.element_bitwidth}-bit elements (needs {want} contiguous elements)."
                )
            box[contig] = want
        return box

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        per_cta = per_cta_shape(shape, self.cga_layout)
        box = self.tma_box(per_cta)
        names = [dim_name(0), dim_name(1)]
        if self.swizzle_byte_width == 0:
            cta = identity1d(box[1], "offset", names[1]) * identity1d(box[0], "offset", names[0])
        else:
            rows, cols = (box[1], box[0]) if self.transposed else (box[0], box[1])
            tile_cols = 8 * self.swizzle_byte_width // self.element_bitwidth
            vec, per_phase, max_phase = (
                128 // self.element_bitwidth,
                128 // self.swizzle_byte_width,
                self.swizzle_byte_width // 16,
            )
            bases = swizzled_rows(8, tile_cols, vec, per_phase, max_phase)
            bases += [[8 * r, 0] for r in _powers(rows // 8)] + [[0, tile_cols * c] for c in _powers(cols // tile_cols)]
            if self.transposed:
                bases = [[c, r] for r, c in bases]
            cta = from_bases({"offset": bases}, names)
        cta = _grow(cta, dict(zip(names, per_cta, strict=True)))
        return combine_with_shape(cta, self.cga_layout, shape, SHARED_INS)


def _grow(layout: LinearLayout, shape: dict[str, int]) -> LinearLayout:
    """Extend offsets over the rest of each CTA's share, dim0 first."""
    for name in sorted(shape):
        have = layout.out_size(name)
        if shape[name] > have:
            layout = layout * identity1d(shape[name] // have, "offset", name)
    return layout


def nvmma_shared(
    swizzle_byte_width: int, element_bitwidth: int, shape: Shape, transposed: bool = False, cga_layout: CgaLayout = ()
) -> LinearLayout:
    """Triton's NVMMASharedLayout over ``shape`` (see `NvmmaShared`)."""
    return NvmmaShared(
        swizzle_byte_width, element_bitwidth, bool(transposed), len(shape), tuple(map(tuple, cga_layout))
    ).to_linear(shape)
