"""Building blocks shared by every layout family.

Conventions, stated once for the package:

* Every constructor takes the tensor ``shape`` and returns a `LinearLayout` whose in-dims are
  ``register, lane, warp, block`` (distributed) or ``offset, block`` (shared), and whose
  out-dims are ``dim0, dim1, ...`` in that order (``dim0`` outermost). ``block`` is always
  present, with no bases when there is one CTA.
* A CTA tile is built as a product of `identity1d` factors, fastest dim first, exactly as
  Triton does; the out-dim order of that product decides where repeats go (`fit_to_shape`).
* Clusters are described by ``cga_layout``: Triton 3.6's bases of the ``block`` dim in units of
  one CTA's share of the tensor. ``cga_from_split`` turns the older CTAsPerCGA / CTASplitNum /
  CTAOrder triple into it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout, log2_exact

DISTRIBUTED_INS = ("register", "lane", "warp", "block")
SHARED_INS = ("offset", "block")

Shape = Sequence[int]
CgaLayout = tuple[tuple[int, ...], ...]


def dim_name(d: int) -> str:
    """The out-dim name of tensor dim ``d``."""
    return f"dim{d}"


def empty() -> LinearLayout:
    """The layout with no in-dims and no out-dims: the unit of the product."""
    return LinearLayout((), (), ())


def identity1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    """``size`` values of ``in_dim`` walking ``out_dim`` in unit steps (size 1: both dims, no bits)."""
    k = log2_exact(size, f"the size along {out_dim}")
    return LinearLayout(((in_dim, k),), ((out_dim, k),), tuple(1 << i for i in range(k)))


def zeros1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    """``size`` values of ``in_dim`` that all map to 0 of a size-1 ``out_dim`` (broadcast)."""
    k = log2_exact(size, f"the size of {in_dim}")
    return LinearLayout(((in_dim, k),), ((out_dim, 0),), (0,) * k)


def identity_nd(in_dim: str, sizes: Shape, order: Sequence[int]) -> LinearLayout:
    """Triton's identityStandardND: ``in_dim`` walks every dim in ``order`` (fastest first)."""
    out = empty()
    for d in order:
        out = out * identity1d(sizes[d], in_dim, dim_name(d))
    return out


def from_bases(bases: Mapping[str, Sequence[Sequence[int]]], out_names: Sequence[str]) -> LinearLayout:
    """A layout from Triton-style bases whose out-dim sizes are the smallest that hold them."""
    sizes = []
    for j, _ in enumerate(out_names):
        top = max((v[j] for vecs in bases.values() for v in vecs), default=0)
        sizes.append(1 << top.bit_length())
    return LinearLayout.from_bases(bases, list(zip(out_names, sizes, strict=True)))


def standard_outs(layout: LinearLayout, rank: int) -> LinearLayout:
    """Out-dims listed as dim0, dim1, ... (missing ones added with size 1)."""
    return with_out_order(layout, [dim_name(d) for d in range(rank)])


def with_out_order(layout: LinearLayout, names: Sequence[str]) -> LinearLayout:
    """The same map with out-dims listed in ``names``; names the layout lacks get size 1."""
    missing = [n for n in names if n not in layout.out_names]
    if missing:
        layout = layout * LinearLayout((), tuple((n, 0) for n in missing), ())
    return layout.transpose_outs(list(names))


def with_in_dims(layout: LinearLayout, names: Sequence[str]) -> LinearLayout:
    """The same map with in-dims listed in ``names``; names the layout lacks get size 1."""
    for n in names:
        if n not in layout.in_names:
            layout = layout.resize_in(n, 1)
    return layout.transpose_ins(list(names))


def ensure_not_smaller(layout: LinearLayout, shape: Mapping[str, int]) -> LinearLayout:
    """Grow each out-dim to ``shape[dim]`` with extra bases of the first in-dim (registers or
    offsets), visiting out-dims in the layout's own order: that order is the repeat order."""
    kdim = layout.in_names[0]
    for name in layout.out_names:
        have, want = layout.out_size(name), shape[name]
        if want > have:
            layout = layout * identity1d(want // have, kdim, name)
    return layout


def ensure_not_larger(layout: LinearLayout, shape: Mapping[str, int], broadcast_registers: bool = True) -> LinearLayout:
    """Triton's ensureLayoutNotLargerThan: shrink each out-dim to ``shape[dim]`` by clearing its
    largest coordinates first, one halving per cleared coordinate, so what falls off the edge
    becomes broadcast. With ``broadcast_registers`` False a cleared register basis is dropped
    instead: the layout holds fewer registers rather than replicated ones."""
    bases = {n: [list(layout.basis(n, i)) for i in range(k)] for n, k in layout.ins}
    dropped: set[int] = set()
    outs = []
    for j, (name, k) in enumerate(layout.outs):
        want = min(1 << k, shape[name])
        for n, i in _coords_past(bases, j, name, 1 << k, want):
            if not broadcast_registers and n == "register":
                dropped.add(i)
            else:
                bases[n][i][j] = 0
        outs.append((name, want))
    if dropped:
        bases["register"] = [v for i, v in enumerate(bases["register"]) if i not in dropped]
    return LinearLayout.from_bases(bases, outs)


def _coords_past(bases: dict[str, list[list[int]]], j: int, name: str, size: int, want: int) -> list[tuple[str, int]]:
    """The (in-dim, index) of the bases whose coordinate ``j`` Triton clears to shrink out-dim
    ``name`` from ``size`` to ``want``: the largest values first. Where Triton would abort (a
    coordinate that is not a power of two, or one left past the edge because the dim repeats a
    coordinate) this raises an LlgenError instead; so the order among equal values never shows."""
    if size <= want:
        return []
    coords = [(v[j], n, i) for n, vecs in bases.items() for i, v in enumerate(vecs) if v[j]]
    for value, n, i in coords:
        if value & (value - 1):
            raise LlgenError(
                f"basis {bases[n][i]} of {n} has coordinate {value} along {name}, not a power of two, "
                f"so the layout cannot shrink to size {want} there."
            )
    coords.sort(key=lambda c: -c[0])
    cleared = coords[: (size // want).bit_length() - 1]
    left = [(n, i) for v, n, i in coords[len(cleared) :] if v >= want]
    if left:
        n, i = left[0]
        raise LlgenError(
            f"basis {bases[n][i]} of {n} still points past size {want} of {name} after the layout shrinks, "
            f"because {name} repeats a coordinate."
        )
    return [(n, i) for _, n, i in cleared]


def cga_from_split(ctas_per_cga: Shape, cta_split_num: Shape, cta_order: Sequence[int]) -> CgaLayout:
    """Triton's make_cga_layout: for each dim in ``cta_order``, identity bases over
    CTASplitNum, then zero bases for CTAsPerCGA / CTASplitNum (CTAs that share data)."""
    rank = len(ctas_per_cga)
    if not len(cta_split_num) == len(cta_order) == rank:
        raise LlgenError(
            f"CTAsPerCGA {list(ctas_per_cga)}, CTASplitNum {list(cta_split_num)} and CTAOrder {list(cta_order)} differ in rank."
        )
    out = []
    for d in cta_order:
        split = 1 << log2_exact(cta_split_num[d], "CTASplitNum")
        ctas = 1 << log2_exact(ctas_per_cga[d], "CTAsPerCGA")
        if ctas < split:
            raise LlgenError(f"CTASplitNum {list(cta_split_num)} exceeds CTAsPerCGA {list(ctas_per_cga)}.")
        out += [tuple((1 << i) if e == d else 0 for e in range(rank)) for i in range(split.bit_length() - 1)]
        out += [(0,) * rank] * ((ctas // split).bit_length() - 1)
    return tuple(out)


def cga_shape(cga: CgaLayout, rank: int) -> list[int]:
    """CTAs the tensor is split into per dim (Triton's CTASplitNum)."""
    return [1 << max((v[d] for v in cga), default=0).bit_length() for d in range(rank)]


def check_cga(cga: CgaLayout, rank: int) -> CgaLayout:
    """Validate a cga_layout: each basis has ``rank`` coordinates, each a power of two or 0."""
    cga = tuple(tuple(int(c) for c in v) for v in cga)
    for v in cga:
        if len(v) != rank:
            raise LlgenError(f"cga_layout basis {list(v)} has {len(v)} coordinates but the layout has rank {rank}.")
        if any(c < 0 or c & (c - 1) for c in v):
            raise LlgenError(f"cga_layout basis {list(v)} must hold powers of two or 0.")
    return cga


def combine_with_shape(cta: LinearLayout, cga: CgaLayout, shape: Shape, ins: Sequence[str] = DISTRIBUTED_INS) -> LinearLayout:
    """Triton's combineCtaCgaWithShape: clip the cluster to the shape, fit the CTA tile to each
    CTA's share (repeats into the first in-dim, in the tile's out-dim order; overhang
    broadcast), append the ``block`` bases, and list dims in the standard order."""
    rank = len(shape)
    names = [dim_name(d) for d in range(rank)]
    full = {n: int(s) for n, s in zip(names, shape, strict=True)}
    for n, s in full.items():
        log2_exact(s, f"the shape's {n}")
    cta = with_out_order(cta, [n for n in cta.out_names if n in names] + [n for n in names if n not in cta.out_names])
    block = from_bases({"block": [list(v) for v in cga]}, names)
    block = ensure_not_larger(block, full).transpose_outs(list(cta.out_names))
    per_cta = {n: max(1, full[n] // block.out_size(n)) for n in names}
    cta = ensure_not_larger(ensure_not_smaller(cta, per_cta), per_cta)
    return with_in_dims(standard_outs(cta * block, rank), ins)


def check_rank(what: str, values: Shape, rank: int) -> tuple[int, ...]:
    """``values`` as a tuple, or a one-sentence error when it has not ``rank`` entries."""
    if len(values) != rank:
        raise LlgenError(f"{what} {list(values)} has {len(values)} entries but the layout has rank {rank}.")
    return tuple(int(v) for v in values)


def check_pow2(what: str, values: Shape) -> tuple[int, ...]:
    """``values`` as a tuple, or a one-sentence error naming the first non power of two."""
    for v in values:
        if not isinstance(v, int) or v < 1 or v & (v - 1):
            raise LlgenError(f"{what} {list(values)} holds {v}, which is not a power of two.")
    return tuple(values)


def check_order(order: Sequence[int], rank: int) -> tuple[int, ...]:
    """``order`` as a tuple, or an error when it is not a permutation of range(rank)."""
    if sorted(order) != list(range(rank)):
        raise LlgenError(f"order {list(order)} is not a permutation of 0..{rank - 1}.")
    return tuple(order)


def check_shape(shape: Shape, rank: int) -> tuple[int, ...]:
    """The tensor shape as a tuple, checked for rank and powers of two."""
    shape = tuple(shape)
    if not shape:
        raise LlgenError("shape [] has rank 0, but a layout needs a tensor of rank 1 or more.")
    if len(shape) != rank:
        raise LlgenError(f"shape {list(shape)} has rank {len(shape)} but the layout has rank {rank}.")
    return check_pow2("shape", shape)
