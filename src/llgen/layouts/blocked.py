"""Blocked, slice and explicit linear layouts (Triton's BlockedEncoding, SliceEncoding, LinearEncoding).

Each family is a frozen dataclass of Gluon's parameters with ``to_linear(shape)``, plus a
function of the same parameters and the shape that returns the `LinearLayout` directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.layouts.common import (
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
    ensure_not_larger,
    ensure_not_smaller,
    from_bases,
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
        set_(
            self, "threads_per_warp", check_pow2("threads_per_warp", check_rank("threads_per_warp", self.threads_per_warp, rank))
        )
        set_(self, "warps_per_cta", check_pow2("warps_per_cta", check_rank("warps_per_cta", self.warps_per_cta, rank)))
        set_(self, "order", check_order(check_rank("order", self.order, rank), rank))
        set_(self, "cga_layout", check_cga(self.cga_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.size_per_thread)

    def to_linear(self, shape: Shape) -> LinearLayout:
        shape = check_shape(shape, self.rank)
        cta = (
            identity_nd("register", self.size_per_thread, self.order)
            * identity_nd("lane", self.threads_per_warp, self.order)
            * identity_nd("warp", self.warps_per_cta, self.order)
        )
        return combine_with_shape(cta, self.cga_layout, shape)


def blocked(
    size_per_thread: Sequence[int],
    threads_per_warp: Sequence[int],
    warps_per_cta: Sequence[int],
    order: Sequence[int],
    shape: Shape,
    cga_layout: CgaLayout = (),
) -> LinearLayout:
    """Triton's BlockedLayout over ``shape`` (see `Blocked`)."""
    return Blocked(
        tuple(size_per_thread), tuple(threads_per_warp), tuple(warps_per_cta), tuple(order), tuple(map(tuple, cga_layout))
    ).to_linear(shape)


@dataclass(frozen=True)
class Slice:
    """The parent over the shape with a size-1 dim inserted at ``dim``, that out-dim removed,
    and the register bases that became zero dropped (zero lane/warp bases stay: broadcast)."""

    dim: int
    parent: object  # any encoding with ``rank`` and ``to_linear(shape)``

    def __post_init__(self):
        if not 0 <= self.dim < self.parent.rank:
            raise LlgenError(f"slice dim {self.dim} is outside the parent's rank {self.parent.rank}.")
        if isinstance(self.parent, Linear):
            self.parent.check_cga_split()

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
    [d0, d1, ...] vectors, each moving along at most one dim (Triton's rule for distributed
    layouts). The layout's own shape is the smallest that holds the bases, as Triton infers it
    when it parses ``#ttg.linear``; over another shape it is resized the way Triton does (see
    `to_linear`)."""

    register: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self):
        rank = len(next((vecs[0] for vecs in self._vectors().values() if vecs), ()))
        for name, vecs in self._vectors().items():
            for v in vecs:
                check_linear_basis(name, v, rank)

    def _vectors(self) -> dict[str, tuple[tuple[int, ...], ...]]:
        return {n: getattr(self, n) for n in DISTRIBUTED_INS}

    @property
    def rank(self) -> int:
        for vecs in self._vectors().values():
            if vecs:
                return len(vecs[0])
        raise LlgenError("a linear layout needs at least one basis to know its rank.")

    def native(self, rank: int) -> LinearLayout:
        """The layout over the shape its bases span; Triton requires it to be surjective."""
        names = [dim_name(d) for d in range(rank)]
        lay = from_bases({n: [list(v) for v in vecs] for n, vecs in self._vectors().items()}, names)
        if not lay.is_surjective():
            raise LlgenError(f"the linear layout's bases do not cover the shape {list(lay.shape)} they span.")
        return lay

    def check_cga_split(self) -> None:
        """A slice asks its linear parent for its cluster layout, which Triton (linearToCGAEncodingAttr)
        gets by splitting the bases into one CTA's share and the ``block`` bases above it; it aborts
        unless, along every dim, each register, lane and warp coordinate stays below the size over
        2**(block bases moving along the dim) and each block coordinate is a multiple of it."""
        rank = self.rank
        sizes = self.native(rank).shape
        for d in range(rank):
            per_cta = sizes[d] >> sum(1 for v in self.block if v[d])
            if per_cta < 1:
                raise LlgenError(
                    f"the block bases {[list(v) for v in self.block]} split {dim_name(d)} of size {sizes[d]} into more "
                    f"CTAs than it has elements, so Triton cannot slice the linear layout."
                )
            for name in ("register", "lane", "warp", "block"):
                for v in getattr(self, name):
                    if (v[d] >= per_cta) if name != "block" else (v[d] % per_cta):
                        raise LlgenError(
                            f"basis {list(v)} of {name} crosses the CTA boundary {per_cta} along {dim_name(d)}, so "
                            f"Triton cannot split the linear layout into CTAs to slice it."
                        )

    def rep_order(self, rank: int) -> list[int]:
        """Triton's LinearEncodingAttr::getRepOrder (its getOrder): dims in the order the register
        bases first move along them, then the unseen dims from the last to the first."""
        order = [next(d for d, c in enumerate(v) if c) for v in self.register if any(v)]
        order += range(rank - 1, -1, -1)
        return list(dict.fromkeys(order))

    def to_linear(self, shape: Shape) -> LinearLayout:
        """Triton's LinearEncodingAttr::toLinearLayout: list the out-dims in `rep_order`, add
        register bases where the shape is larger (the first dim in that order first), then shrink
        where it is smaller, dropping the register bases that fall off (not broadcasting them)
        and zeroing lane, warp and block ones (broadcast)."""
        rank = self.rank if any(self._vectors().values()) else len(shape)
        shape = check_shape(shape, rank)
        want = {dim_name(d): s for d, s in enumerate(shape)}
        lay = self.native(rank).transpose_outs([dim_name(d) for d in self.rep_order(rank)])
        lay = ensure_not_larger(ensure_not_smaller(lay, want), want, broadcast_registers=False)
        return with_in_dims(standard_outs(lay, rank), DISTRIBUTED_INS)


def check_linear_basis(name: str, v: Sequence[int], rank: int) -> None:
    """One basis of a distributed linear layout: ``rank`` non-negative integers, at most one of
    them non-zero (Triton rejects a basis that moves along two dims)."""
    if len(v) != rank or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in v):
        raise LlgenError(f"basis {list(v)} of {name} must hold {rank} non-negative integers, like the first basis.")
    if sum(1 for c in v if c) > 1:
        raise LlgenError(f"basis {list(v)} of {name} moves along more than one dim, which a distributed layout may not.")


def linear(
    register: Sequence[Sequence[int]],
    lane: Sequence[Sequence[int]],
    warp: Sequence[Sequence[int]],
    block: Sequence[Sequence[int]],
    shape: Shape,
) -> LinearLayout:
    """An explicit distributed layout (Gluon's DistributedLinearLayout) over ``shape``."""

    def tup(vs: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(v) for v in vs)

    return Linear(tup(register), tup(lane), tup(warp), tup(block)).to_linear(shape)


def swapped(layout: LinearLayout, swaps: Sequence[tuple[tuple[str, int], tuple[str, int]]]) -> LinearLayout:
    """``layout`` (a distributed one) with its (in-dim, index) bases exchanged pairwise, one transposition after
    another: the same elements, other owners (register and lane swaps keep every warp's data in its warp)."""
    bases = {n: [list(layout.basis(n, i)) for i in range(layout.in_bits(n))] for n in ("register", "lane", "warp")}
    for (d1, i1), (d2, i2) in swaps:
        bases[d1][i1], bases[d2][i2] = bases[d2][i2], bases[d1][i1]
    return linear(bases["register"], bases["lane"], bases["warp"], [], layout.shape)
