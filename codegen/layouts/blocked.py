"""Blocked, slice and explicit linear layouts (Triton's BlockedEncoding, SliceEncoding, LinearEncoding).

Each family is a frozen dataclass of Gluon's parameters with ``to_linear(shape)``, plus a
function of the same parameters and the shape that returns the `LinearLayout` directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import LlgenError
from ..layout import LinearLayout
from .common import (
    DISTRIBUTED_INS,
    CgaLayout,
    Shape,
    check_cga,
    check_order,
    check_pow2,
    check_rank,
    check_shape,
    combine_with_shape,
    dim_name,
    identity_nd,
    standard_outs,
    with_in_dims,
)


@dataclass(frozen=True)
class Blocked:
    """registers over size_per_thread, lanes over threads_per_warp, warps over warps_per_cta,
    each walking the dims in ``order`` (fastest first)."""

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    cga_layout: CgaLayout = ()

    def __post_init__(self):
        rank = len(self.size_per_thread)
        set_ = object.__setattr__
        set_(self, "size_per_thread", check_pow2("size_per_thread", tuple(self.size_per_thread)))
        set_(self, "threads_per_warp", check_pow2("threads_per_warp", check_rank("threads_per_warp", self.threads_per_warp, rank)))
        set_(self, "warps_per_cta", check_pow2("warps_per_cta", check_rank("warps_per_cta", self.warps_per_cta, rank)))
        set_(self, "order", check_order(check_rank("order", self.order, rank), rank))
        set_(self, "cga_layout", check_cga(self.cga_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.size_per_thread)

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        cta = (identity_nd("register", self.size_per_thread, self.order)
               * identity_nd("lane", self.threads_per_warp, self.order)
               * identity_nd("warp", self.warps_per_cta, self.order))
        return combine_with_shape(cta, self.cga_layout, shape)


def blocked(size_per_thread: Sequence[int], threads_per_warp: Sequence[int], warps_per_cta: Sequence[int],
            order: Sequence[int], shape: Shape, cga_layout: CgaLayout = ()) -> LinearLayout:
    """Triton's BlockedLayout over ``shape`` (see `Blocked`)."""
    return Blocked(tuple(size_per_thread), tuple(threads_per_warp), tuple(warps_per_cta), tuple(order),
                   tuple(map(tuple, cga_layout))).to_linear(shape)


@dataclass(frozen=True)
class Slice:
    """The parent over the shape with a size-1 dim inserted at ``dim``, that out-dim removed,
    and the register bases that became zero dropped (zero lane/warp bases stay: broadcast)."""

    dim: int
    parent: object  # any encoding with ``rank`` and ``to_linear(shape)``

    def __post_init__(self):
        if not 0 <= self.dim < self.parent.rank:
            raise LlgenError(f"slice dim {self.dim} is outside the parent's rank {self.parent.rank}.")

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        parent_shape = list(shape)
        parent_shape.insert(self.dim, 1)
        par = self.parent.to_linear(parent_shape)
        names = [n for n in par.out_names if n != dim_name(self.dim)]
        sliced = par.sublayout(par.in_names, names)
        bases = {n: [list(sliced.basis(n, i)) for i in range(k)] for n, k in sliced.ins}
        bases["register"] = [v for v in bases["register"] if any(v)]
        outs = [(dim_name(j), sliced.out_size(n)) for j, n in enumerate(names)]
        return LinearLayout.from_bases(bases, outs)


def slice_layout(dim: int, parent, shape: Shape) -> LinearLayout:
    """Triton's SliceLayout(dim, parent) over ``shape`` (see `Slice`); ``parent`` is an encoding
    object such as `Blocked` or `NvidiaMma`."""
    return Slice(dim, parent).to_linear(shape)


@dataclass(frozen=True)
class Linear:
    """Explicit bases, Triton's LinearEncoding: ``register``, ``lane``, ``warp``, ``block`` lists of
    [d0, d1, ...] vectors. The shape must be the one the bases span."""

    register: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()

    @property
    def rank(self) -> int:
        for vecs in (self.register, self.lane, self.warp, self.block):
            if vecs:
                return len(vecs[0])
        raise LlgenError("a linear layout needs at least one basis to know its rank.")

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, len(shape))
        bases = {n: [list(v) for v in getattr(self, n)] for n in DISTRIBUTED_INS}
        lay = LinearLayout.from_dict({"bases": bases, "out_dims": {dim_name(d): s for d, s in enumerate(shape)}})
        if not lay.is_surjective():
            raise LlgenError(f"the linear layout's bases do not cover the shape {list(shape)}.")
        return with_in_dims(standard_outs(lay, len(shape)), DISTRIBUTED_INS)


def linear(register: Sequence[Sequence[int]], lane: Sequence[Sequence[int]], warp: Sequence[Sequence[int]],
           block: Sequence[Sequence[int]], shape: Shape) -> LinearLayout:
    """An explicit distributed layout (Gluon's DistributedLinearLayout) over ``shape``."""
    tup = lambda vs: tuple(tuple(v) for v in vs)
    return Linear(tup(register), tup(lane), tup(warp), tup(block)).to_linear(shape)
