"""Statistics of a set of pairs: families, ranks, shapes and tile sizes drawn."""

from __future__ import annotations

from collections import Counter

from llgen.core.dtypes import dtype as to_dtype
from llgen.randlayout.bits import has_replicas
from llgen.randlayout.ctx import Pair


def top_family(name: str) -> str:
    """``slice(mma_v2)`` -> ``slice``; ``linear(trans mfma)`` -> ``linear``."""
    return name.split("(")[0]


def tile_bytes(pair: Pair) -> int:
    return (1 << pair.a.total_out_bits) * to_dtype(pair.dtype).bytes


def pair_stats(pairs: list[Pair]) -> dict:
    """Counts over ``pairs``: families (A and B together, top level and full), ranks, warps,
    dtypes, and how many pairs have replicas, one element, rank 1, or more than 64 KiB."""
    fams = Counter(f for p in pairs for f in (p.family_a, p.family_b))
    return {
        "pairs": len(pairs),
        "families": Counter(top_family(f) for f in fams.elements()),
        "family_detail": fams,
        "ranks": Counter(len(p.a.shape) for p in pairs),
        "warps": Counter(p.a.in_size("warp") for p in pairs),
        "dtypes": Counter(p.dtype for p in pairs),
        "replicas": sum(has_replicas(p.a) or has_replicas(p.b) for p in pairs),
        "single_element": sum(p.a.total_out_bits == 0 for p in pairs),
        "rank1": sum(len(p.a.shape) == 1 for p in pairs),
        "over_64k": sum(tile_bytes(p) > 64 * 1024 for p in pairs),
        "max_elements": max((1 << p.a.total_out_bits for p in pairs), default=0),
    }
