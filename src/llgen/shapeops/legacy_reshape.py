"""Triton's legacy reshape of a blocked layout (inferReshapeOpLegacyEncoding): where the reshape merges and splits
dims so that every thread keeps its elements, the result is again a blocked layout, with sizePerThread,
threadsPerWarp and warpsPerCTA handed out minor dim first; otherwise None, and the caller falls back to the
linear-layout reshape. Also the default blocked layout Triton gives an unannotated tensor, which reshapes to the
default of the new shape."""

from __future__ import annotations

import math
from collections.abc import Sequence

from llgen import layouts as L
from llgen.spec.defaults import blocked_threads

Shape = Sequence[int]


def decomposition(src: Shape, dst: Shape) -> list[tuple[list[int], list[int]]]:
    """getReshapeDecomposition: consecutive groups of source dims that merge and then split into consecutive
    groups of result dims, e.g. [4,4,4] -> [2,2,8,2] is ([0], [0,1]), ([1,2], [2,3])."""
    ret: list[tuple[list[int], list[int]]] = [([], [])]
    si = di = 0
    sn = dn = 1
    while si < len(src) or di < len(dst):
        if sn < dn or (si < len(src) and sn == 1) or (si < len(src) and src[si] == 1):
            sn *= src[si]
            ret[-1][0].append(si)
            si += 1
        elif dn < sn or (di < len(dst) and dst[di] == 1):
            dn *= dst[di]
            ret[-1][1].append(di)
            di += 1
        else:
            ret.append(([], []))
            sn = dn = 1
    return ret


def ctas_per_cga(cga: Sequence[Sequence[int]], rank: int) -> list[int]:
    """CTAsPerCGA of a cluster layout: per dim 2**(block bases along it); a broadcast (zero) basis counts for the
    dim of the last non-zero basis before it (dim 0 when there is none), as Triton's basesPerDim does."""
    ret, last = [1] * rank, 0
    for v in cga:
        nz = [d for d, c in enumerate(v) if c]
        if nz:
            last = nz[0]
        ret[last] *= 2
    return ret


def default_blocked(shape: Shape, warps: int, lanes: int, ctas: int) -> L.Blocked:
    """getDefaultBlockedEncoding: one element per thread, row-major order, lanes then warps handed to the dims
    fastest first (BlockedEncodingAttr::get), CTAs to the dims slowest first."""
    rank = len(shape)
    order = list(range(rank - 1, -1, -1))
    cga: tuple = ()
    per_cta = list(shape)
    if ctas > 1:
        cta_per, left = [1] * rank, ctas
        for i in reversed(order):
            cta_per[i] = min(max(left, 1), max(1, shape[i]))
            left //= cta_per[i]
        splits = list(cta_per)
        cta_per[rank - 1] *= left
        cga = L.cga_from_split(cta_per, splits, order)
        per_cta = [max(1, s // c) for s, c in zip(shape, splits, strict=True)]
    tpw, wpc = blocked_threads(per_cta, order, lanes, warps)
    return L.Blocked((1,) * rank, tpw, wpc, tuple(order), cga)


def reshape_blocked(enc: L.Blocked, src: Shape, dst: Shape) -> L.Blocked | None:
    """The blocked layout over ``dst`` that holds every thread's elements where it held them over ``src``, or None
    where no blocked layout does (Triton then reshapes the linear layout)."""
    src, dst = tuple(src), tuple(dst)
    if src == dst:
        return enc
    warps, lanes = math.prod(enc.warps_per_cta), math.prod(enc.threads_per_warp)
    ctas = math.prod(ctas_per_cga(enc.cga_layout, enc.rank))
    if enc == default_blocked(src, warps, lanes, ctas):
        return default_blocked(dst, warps, lanes, ctas)
    if enc.cga_layout:  # Triton leaves clusters to the linear reshape
        return None
    groups = decomposition(src, dst)
    inv = _inverse(enc.order)
    for sdims, _ in groups:  # merged source dims must be consecutive in the order, the first the most major
        ranks = [inv[d] for d in reversed(sdims)]
        if any(b != a + 1 for a, b in zip(ranks, ranks[1:], strict=False)):
            return None
    for sdims, _ in groups:
        left = [src[d] for d in sdims]  # one running remainder for all three fields, as Triton's lambda shares it
        for sub in (enc.size_per_thread, enc.threads_per_warp, enc.warps_per_cta):
            if not _fills_minor_first(sdims, left, sub):
                return None
    remaining = list(dst)
    fields = [
        _hand_out(groups, sub, remaining, len(dst)) for sub in (enc.size_per_thread, enc.threads_per_warp, enc.warps_per_cta)
    ]
    groups.sort(key=lambda g: inv[g[0][0]])
    dst_inv, i = [0] * len(dst), 0
    for _, ddims in groups:
        for d in reversed(ddims):
            dst_inv[d] = i
            i += 1
    return L.Blocked(*(tuple(f) for f in fields), tuple(_inverse(dst_inv)))


def _fills_minor_first(sdims: list[int], left: list[int], sub: Sequence[int]) -> bool:
    """Within a merged group, a more major dim may hold a field's values only once the more minor ones are used
    up; the field may outgrow the shape only in the group's most major dim. ``left`` is updated in place."""
    for i in range(len(sdims) - 1, -1, -1):
        s = sub[sdims[i]]
        if s == 1:
            continue
        if any(left[j] != 1 for j in range(i + 1, len(sdims))):
            return False
        left[i] = left[i] // s if left[i] >= s else 0
        if left[i] == 0 and i != 0:
            return False
    return True


def _hand_out(groups, sub: Sequence[int], remaining: list[int], rank: int) -> list[int]:
    """One field of the result: each group's product handed to its result dims minor first, as much as each
    remaining dim holds; what is left over goes to the group's most major dim. ``remaining`` shrinks in place."""
    out = [1] * rank
    for sdims, ddims in groups:
        left = math.prod(sub[d] for d in sdims)
        for d in reversed(ddims):
            val = min(left, remaining[d])
            out[d] = val
            left //= val
            remaining[d] //= val
        out[ddims[0]] *= left
    return out


def _inverse(perm: Sequence[int]) -> list[int]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv
