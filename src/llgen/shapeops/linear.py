"""The linear-layout half of Triton's shape-op inference: what it does to ``toLinearLayout(shape, enc)`` when no
legacy family keeps the result, returning the ``#ttg.linear`` encoding Triton builds, its bases in Triton's own
order (so the printed text is Triton's, zero and past-the-edge bases included).

Bases are handled in Triton's form: per in-dim (register, lane, warp, block) a list of coordinate lists, one
coordinate per tensor dim, dim0 first."""

from __future__ import annotations

from collections.abc import Sequence

from llgen import layouts as L
from llgen.core.layout import LinearLayout

INS = ("register", "lane", "warp", "block")
Bases = dict[str, list[list[int]]]


def bases_of(lay: LinearLayout) -> Bases:
    """A distributed layout's bases in Triton's form (every in-dim of INS, empty where the layout lacks it)."""
    return {n: [list(lay.basis(n, i)) for i in range(lay.in_bits(n))] for n in INS}


def encoding(bases: Bases) -> L.Linear:
    """The ``#ttg.linear`` encoding with exactly these bases."""
    return L.Linear(*(tuple(tuple(v) for v in bases.get(n, [])) for n in INS))


def transposed(lay: LinearLayout, perm: Sequence[int]) -> L.Linear:
    """transposeLinearLayout: result dim i is the source's dim ``perm[i]``; every basis is permuted alike."""
    return encoding({n: [[v[p] for p in perm] for v in vecs] for n, vecs in bases_of(lay).items()})


def reshaped(lay: LinearLayout, shape: Sequence[int]) -> L.Linear:
    """reshapeLayout: the same map with the row-major element index re-split into ``shape``."""
    return encoding(bases_of(lay.reshape_outs([(f"dim{d}", s) for d, s in enumerate(shape)])))


def times_pair(lay: LinearLayout, axis: int) -> L.Linear:
    """``identity1D(2, register, dim<axis>) * lay``: a new lowest register walks the pair along ``axis`` and every
    other basis's ``axis`` coordinate doubles (join on a size-1 axis, fp4_to_fp's upcast)."""
    b = bases_of(lay)
    rank = len(lay.outs)
    pair = [1 if d == axis else 0 for d in range(rank)]
    out = {n: [[c * 2 if d == axis else c for d, c in enumerate(v)] for v in vecs] for n, vecs in b.items()}
    out["register"] = [pair, *out["register"]]
    return encoding(out)


def joined(lay: LinearLayout) -> L.Linear:
    """tryJoinOnAxis forward on a new last dim of size 1 (Triton's join of two tensors in a non-blocked layout)."""
    shape = [*lay.shape, 1]
    return times_pair(lay.reshape_outs([(f"dim{d}", s) for d, s in enumerate(shape)]), len(shape) - 1)


def split_last(lay: LinearLayout) -> L.Linear | None:
    """tryJoinOnAxis backward on the last dim (of size 2): drop the registers that walk it, halve every other
    basis's last coordinate (a lane or warp along it becomes a broadcast) and drop the dim. None where no register
    walks it: the pair is not in one thread."""
    axis = len(lay.outs) - 1
    found = False
    out: Bases = {}
    for n, vecs in bases_of(lay).items():
        kept = []
        for v in vecs:
            if n == "register" and v[axis] == 1:
                found = True
                continue
            kept.append(v[:axis] + [v[axis] // 2] + v[axis + 1 :])
        out[n] = [v[:axis] for v in kept]
    return encoding(out) if found else None


def fp4_down(lay: LinearLayout, axis: int) -> L.Linear | None:
    """divideLeft(lay, identity1D(2, register, dim<axis>)): the packed layout whose upcast is ``lay``, or None
    where the first register does not walk the pair along ``axis`` or another basis splits a pair."""
    from llgen.layouts.common import identity1d

    rest = lay.divide_left(identity1d(2, "register", f"dim{axis}"))
    if rest is None:
        return None
    return encoding(bases_of(rest))


def rep_order(lay: LinearLayout) -> list[int]:
    """LinearEncodingAttr::getOrder of a layout: the dims in the order its registers first walk them, then the
    dims no register walks, last to first."""
    order = [next(d for d, c in enumerate(v) if c) for v in bases_of(lay)["register"] if any(v)]
    order += range(len(lay.outs) - 1, -1, -1)
    return list(dict.fromkeys(order))
