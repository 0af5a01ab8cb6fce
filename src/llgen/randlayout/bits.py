"""Small helpers of the drawers: dealing a shape's bits among dims and warps over matrix tiles."""

from __future__ import annotations

import random

from llgen.core.layout import LinearLayout
from llgen.randlayout.ctx import Ctx


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _weighted(rng: random.Random, table: dict):
    """A key of ``table`` drawn with probability proportional to its value."""
    return rng.choices(list(table), weights=list(table.values()))[0]


def _split(rng: random.Random, bits: int, room: list[int] | int) -> tuple[int, ...]:
    """Powers of two, one per dim, whose product is 2**bits, each bit in a random dim. ``room`` is
    the rank (any dim takes any bit) or, per dim, how many bits it takes while some dim has room
    left (the dims of a layout fitted to its tensor)."""
    room = [bits] * room if isinstance(room, int) else room
    parts = [0] * len(room)
    for _ in range(bits):
        dims = [d for d, r in enumerate(room) if parts[d] < r] or list(range(len(room)))
        parts[rng.choice(dims)] += 1
    return tuple(1 << p for p in parts)


def _room(shape: tuple[int, ...], *used: tuple[int, ...]) -> list[int]:
    """log2 of what is left of each dim once ``used`` (sizes per dim) are taken, at least 0."""
    out = []
    for d, s in enumerate(shape):
        for u in used:
            s //= u[d]
        out.append(_log2(s) if s > 1 else 0)
    return out


def _fill(bits: int, caps: list[int], order: list[int]) -> tuple[int, ...]:
    """Triton's way of spreading 2**bits threads (or warps) over dims: fastest dim first, each up
    to 2**cap, whatever is left on the slowest dim."""
    out = [0] * len(caps)
    for d in order[:-1]:
        take = min(bits, max(0, caps[d]))
        out[d], bits = take, bits - take
    out[order[-1]] += bits
    return tuple(1 << b for b in out)


def _row_major(rank: int) -> list[int]:
    return list(range(rank - 1, -1, -1))


def _warps_per_tile(shape: tuple[int, ...], warps: int, tile: tuple[int, int]) -> tuple[int, int]:
    """Triton's warpsPerTile (mma v2, mfma, wmma): double the M warps while M has more instruction
    tiles per warp than N has pairs of them, else double the N warps."""
    m, n = shape[-2], shape[-1]
    ret = [1, 1]
    while ret[0] * ret[1] < warps:
        if m // tile[0] // ret[0] >= n // (tile[1] * 2) // ret[1] and ret[0] < m // tile[0]:
            ret[0] *= 2
        else:
            ret[1] *= 2
    return ret[0], ret[1]


def _matrix_warps(rng: random.Random, ctx: Ctx, tile: tuple[int, int]) -> tuple[int, ...]:
    """warps_per_cta of a matrix-core layout whose instruction tile is ``tile`` (M, N): Triton's
    heuristic ([warps, 1, 1] with a batch dim) or a random split, mostly fitted to the tensor."""
    form = _weighted(rng, {"triton": 2, "fitted": 2, "random": 1})
    if form == "triton":
        return (ctx.warps, 1, 1) if ctx.rank == 3 else _warps_per_tile(ctx.shape, ctx.warps, tile)
    room = _room(ctx.shape, (1,) * (ctx.rank - 2) + tile) if form == "fitted" else ctx.rank
    return _split(rng, _log2(ctx.warps), room)


def _tiles_per_warp(rng: random.Random, rank: int) -> tuple[int, ...]:
    """AMD tiles_per_warp: one tile most of the time, else up to 4 tiles over M and N (1 on a batch dim)."""
    tpw = (1, 1) if rng.random() < 0.7 else _split(rng, rng.randint(1, 2), 2)
    return (1,) * (rank - 2) + tpw


def _dot_sized(shape: tuple[int, ...]) -> bool:
    """Whether a matrix-core layout fits the tensor as a kernel would hold it: each matrix dim at
    least 16 (tl.dot's minimum) or 1 (a reduction expanded back)."""
    return all(s == 1 or s >= 16 for s in shape[-2:])


def has_replicas(layout: LinearLayout) -> bool:
    """Whether some register, lane or warp basis is zero: several slots hold the same element."""
    return any(c == 0 for n in ("register", "lane", "warp") for c in layout.flat_cols(n))
