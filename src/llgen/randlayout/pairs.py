"""Shapes, contexts and pairs: what two layouts of a conversion share, dealt from a seed."""

from __future__ import annotations

import random
from collections.abc import Iterator

from llgen.core.dtypes import dtype as to_dtype
from llgen.core.target import target as to_target
from llgen.randlayout.bits import _log2, _weighted
from llgen.randlayout.ctx import (
    DTYPES,
    LARGE_ELEMENTS,
    LARGE_THREAD_BYTES,
    LARGE_THREAD_ELEMENTS,
    SMALL_ELEMENTS,
    THREAD_BYTES,
    THREAD_ELEMENTS,
    Ctx,
    Pair,
)
from llgen.randlayout.draw import draw_layout


def _matrix_bits(rng: random.Random, rank: int, nbits: int, most: int = 8) -> tuple[int, ...]:
    """A shape of 2**nbits elements: a batch dim of 1 to 8 first when rank 3, then two matrix
    dims of similar size (each at least 16 where there are 256 elements or more, and at most
    2**most where possible)."""
    if rank == 1:
        return (1 << nbits,)
    batch = [min(max(0, nbits - 8), rng.randint(0, 3))] if rank == 3 else []
    rest = nbits - sum(batch)
    lo, hi = (4, rest - 4) if rest >= 8 else (0, rest)
    m = rest // 2 + rng.randint(-1, 1) + rng.randint(-1, 1)
    m = min(max(m, lo, rest - most), hi, most)
    return tuple(1 << b for b in batch + [m, rest - m])


def draw_shape(rng: random.Random, rank: int, kind: str, threads: int, dtype_bytes: int) -> tuple[int, ...]:
    """A tensor shape of ``kind``: ``single`` (one element), ``thin`` (one dim of 16 to 256, the
    others 1: 1x64, 64x1, a 1-D slice), ``tile`` (16 to 256 elements in rank 1; else 256 to 8K,
    or 16 to 128 a fifth of the time) or ``large`` (128 or 256 KiB of the dtype where a thread's
    share allows: scratch rounds). A thread's share is at most THREAD_ELEMENTS elements and
    THREAD_BYTES bytes (the LARGE_ ones for a large tile)."""
    most, nbytes = (LARGE_THREAD_ELEMENTS, LARGE_THREAD_BYTES) if kind == "large" else (THREAD_ELEMENTS, THREAD_BYTES)
    per_thread = min(most, nbytes // dtype_bytes)
    cap = _log2(per_thread * threads)
    if kind == "single":
        return (1,) * rank
    if kind == "thin":
        shape = [1] * rank
        shape[rng.randrange(rank)] = 1 << rng.randint(4, 8)
        return tuple(shape)
    if kind == "tile":
        if rank == 1:
            return (1 << rng.randint(4, 8),)
        nbits = rng.randint(4, 7) if rng.random() < 0.2 else rng.randint(8, _log2(SMALL_ELEMENTS))
        return _matrix_bits(rng, rank, min(cap, nbits))
    nbits = min(cap, _log2(LARGE_ELEMENTS), rng.choice((17, 18)) - _log2(dtype_bytes))
    return _matrix_bits(rng, rank, nbits, most=9)


def draw_context(rng: random.Random, target: str) -> tuple[str, Ctx]:
    """The dtype and what both layouts of a pair share: rank (1 to 3), shape kind (see
    `draw_shape`), warp count (1 to 8; 4 or 8 for a large tile) and shape."""
    tgt = to_target(target)
    dt = rng.choice(DTYPES)
    rank = _weighted(rng, {1: 2, 2: 6, 3: 2})
    kind = _weighted(rng, {"single": 4, "thin": 8, "tile": 85, "large": 3})
    warps = rng.choice((4, 8)) if kind == "large" else _weighted(rng, {1: 2, 2: 2, 4: 4, 8: 2})
    nbytes = to_dtype(dt).bytes
    shape = draw_shape(rng, rank, kind, warps * tgt.lanes, nbytes)
    return dt, Ctx(shape, warps, tgt.lanes, nbytes, tgt.name)


def _pair_seeds(seed: int) -> Iterator[int]:
    """One sub-seed per pair index, dealt by the seed's own generator."""
    rng = random.Random(seed)
    while True:
        yield rng.getrandbits(64)


def _pair_from(rng: random.Random, seed: int, index: int, target: str) -> Pair:
    dt, ctx = draw_context(rng, target)
    a = draw_layout(rng, ctx.shape, ctx.warps, target, dt)
    b = draw_layout(rng, ctx.shape, ctx.warps, target, dt)
    return Pair(f"r{seed}_{index}_{dt}", a.layout, b.layout, dt, ctx.target, a.family, b.family)


def draw_pair(seed: int, index: int, target: str) -> Pair:
    """Pair ``index`` of ``seed`` alone (the one `random_pairs` gives at that index)."""
    seeds = _pair_seeds(seed)
    for _ in range(index):
        next(seeds)
    return _pair_from(random.Random(next(seeds)), seed, index, target)


def random_pairs(n: int, seed: int, target: str) -> list[Pair]:
    """``n`` random pairs of real layouts, not planned; the label names seed, index and dtype."""
    return [_pair_from(random.Random(s), seed, i, target) for i, s in zip(range(n), _pair_seeds(seed), strict=False)]
