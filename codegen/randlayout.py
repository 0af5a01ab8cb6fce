"""Random real layouts and random conversion plans, for property tests and `llgen check --random`.

A random layout is one a Triton 3.6 kernel can hold: a layout family with random valid parameters,
built with the constructors in `llgen.layouts`. The families, each drawn by its own ``draw_*``
function below:

* ``blocked``: what the coalesce pass picks, or random size_per_thread / threads_per_warp /
  warps_per_cta / order;
* ``mma_v2``, ``mma_v3``: NVIDIA mma.sync and wgmma accumulators; ``mma_v2_dot`` (operand 0 or 1)
  and ``mma_v3_dot`` (operand 0, also over a rank-3 wgmma parent) their register operands, k_width
  from the dtype;
* ``mfma`` (wave64) and ``mfma_dot``; ``wmma`` (wave32, v1/v2/v3) and ``wmma_dot``;
* ``slice(P)``: a slice of any of the above (the result of a reduction);
* ``linear``: explicit bases with broadcast (zero) columns, and the linear layouts Triton makes
  from the others: ``linear(trans P)`` (tt.trans) and ``linear(reshape P)`` (tt.reshape, join, split).

A pair shares the tensor shape (rank 1 to 3; from one element to several times a layout's
coverage, so lanes and warps broadcast on small tiles and registers repeat on large ones), the
warp count (1 to 8) and the dtype. Same seed, same pairs: the seed's `random.Random` deals one
sub-seed per pair index, so pair ``i`` does not depend on how pairs before it were drawn, and
``draw_pair(seed, i, target)`` redraws the pair a label names.

Rank 3 of mma v2, mfma and wmma (and their operands and slices) is drawn with Triton's parameters
([1, 16, 8] for mma v2); where a constructor still refuses one, `_draw_family` (the one place)
counts the refusal in `RANK3_REFUSALS` and draws another family.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from . import layouts as L
from .dtypes import DTYPES as ALL_DTYPES
from .dtypes import dtype as to_dtype
from .errors import LlgenError
from .layout import LinearLayout
from .layouts.amd import WMMA_K_WIDTHS
from .target import target as to_target

DTYPES = list(ALL_DTYPES)  # every element type llgen knows, i8 to f64
PATHS = [None, None, "shared", "shuffle"]  # requested paths of random cases: default twice as often
THREAD_ELEMENTS, THREAD_BYTES = 128, 512  # the most of an ordinary tile one thread may hold (128 32-bit registers)
LARGE_THREAD_ELEMENTS, LARGE_THREAD_BYTES = 256, 1024  # of a large tile (256x256 f32 over 8 warps of 32)
SMALL_ELEMENTS = 8192  # the most elements of an ordinary tile; large tiles (a few percent) go past it
LARGE_ELEMENTS = 65536  # the most elements of a large tile
RANK3_PENDING = ("mma_v2", "mfma", "wmma")  # families whose rank-3 form the constructors may not take yet
RANK3_REFUSALS: Counter[str] = Counter()  # family -> rank-3 draws the constructors refused (see _draw_family)
RANK3_REASONS: dict[str, str] = {}  # family -> the first refusal's message

Make = Callable[[], object]  # builds an encoding (constructors run inside _draw_family's one try)
Drawer = Callable[[random.Random, "Ctx"], "tuple[str, Make] | None"]


class Ctx(NamedTuple):
    """What every layout of a pair shares."""

    shape: tuple[int, ...]
    warps: int
    lanes: int
    dtype_bytes: int
    target: str

    @property
    def rank(self) -> int:
        return len(self.shape)


class Drawn(NamedTuple):
    """One drawn layout: its family name (``slice(mma_v2)``, ``linear(trans mfma)``, ...), the encoding
    object it was built from and the `LinearLayout`."""

    family: str
    encoding: object
    layout: LinearLayout


class Pair(NamedTuple):
    """Two layouts of the same tensor, warp count and dtype, for one target."""

    label: str
    a: LinearLayout
    b: LinearLayout
    dtype: str
    target: str
    family_a: str
    family_b: str


@dataclass(frozen=True)
class Family:
    name: str
    lanes: tuple[int, ...]  # warp sizes it runs on
    ranks: tuple[int, ...]
    weight: float  # how often it is drawn among the families that fit
    draw: Drawer


# ---------------------------------------------------------------------------------- small helpers
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


def _natural_k_width(dtype_bytes: int) -> int:
    """Consecutive K elements per 32-bit register: 4 for 8-bit types, 2 for 16-bit, 1 for 32/64-bit."""
    return max(1, 4 // dtype_bytes)


def has_replicas(layout: LinearLayout) -> bool:
    """Whether some register, lane or warp basis is zero: several slots hold the same element."""
    return any(c == 0 for n in ("register", "lane", "warp") for c in layout.flat_cols(n))


# ---------------------------------------------------------------------------------- family drawers
def draw_blocked(rng: random.Random, ctx: Ctx) -> tuple[str, Make]:
    """Triton's BlockedEncoding. A third of the time what the coalesce pass picks for a row-major
    tensor (16 bytes per thread along the fastest dim, lanes then warps fastest dim first); else
    random: order row-major or shuffled, size_per_thread up to the 16-byte vector along the fastest
    dim and up to 4 elsewhere, lanes and warps split at random over the dims, mostly where the
    tensor has room for them."""
    rank, vec = ctx.rank, 16 // ctx.dtype_bytes
    if rng.random() < 0.35:
        order = _row_major(rank)
        spt = [1] * rank
        spt[order[0]] = min(vec, ctx.shape[order[0]])
        tpw = _fill(_log2(ctx.lanes), [_log2(s // p) for s, p in zip(ctx.shape, spt, strict=True)], order)
        wpc = _fill(_log2(ctx.warps), [_log2(max(1, s // (p * t))) for s, p, t in zip(ctx.shape, spt, tpw, strict=True)], order)
    else:
        order = _row_major(rank)
        if rng.random() < 0.4:
            rng.shuffle(order)
        spt = [rng.choice((1, 1, 1, 2, 4)) for _ in range(rank)]
        spt[order[0]] = rng.choice((1, 2, 4, vec, vec))
        fitted = rng.random() < 0.75
        tpw = _split(rng, _log2(ctx.lanes), _room(ctx.shape, spt) if fitted else rank)
        wpc = _split(rng, _log2(ctx.warps), _room(ctx.shape, spt, tpw) if fitted else rank)
    return "blocked", lambda: L.Blocked(
        size_per_thread=tuple(spt), threads_per_warp=tuple(tpw), warps_per_cta=tuple(wpc), order=tuple(order)
    )


def _mma_v2_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """NvidiaMma v2 parameters: instr [16, 8] ([1, 16, 8] with a batch dim, as Triton 3.6 wants)."""
    if ctx.lanes != 32 or ctx.rank not in (2, 3) or not _dot_sized(ctx.shape):
        return None
    instr = (16, 8) if ctx.rank == 2 else (1, 16, 8)
    return {"version": 2, "warps_per_cta": _matrix_warps(rng, ctx, (16, 8)), "instr_shape": instr}


def draw_mma_v2(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The mma v2 (mma.sync) accumulator: instr [16, 8], warps as Triton's warpsPerTile picks them
    or split at random; rank 2, or 3 with a leading batch dim."""
    p = _mma_v2_params(rng, ctx)
    return None if p is None else ("mma_v2", lambda: L.NvidiaMma(**p))


def _wgmma_n(rng: random.Random, n_size: int, warps_n: int) -> int:
    """wgmma's N: the widest power of two in 8..256 that one warp's share of N holds (as Triton
    picks it) most of the time, else any of them."""
    if rng.random() < 0.6:
        return min(256, max(8, n_size // warps_n))
    return 1 << rng.randint(3, 8)


def _mma_v3_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """NvidiaMma v3 parameters: a warpgroup (4 warps) along M, the rest along M or N; instr
    [16, N, K] with K 32 bytes of the dtype. Rank 3 (a batched operand A's parent only: Triton
    builds no batched wgmma accumulator) puts the warps on the batch dim, as Gluon's convert
    tests do, or a warpgroup on M and the rest on the batch dim."""
    if ctx.lanes != 32 or ctx.rank not in (2, 3) or ctx.warps < 4 or not _dot_sized(ctx.shape):
        return None
    if ctx.rank == 3:
        wpc = rng.choice(((ctx.warps, 1, 1), (ctx.warps // 4, 4, 1)))
    else:
        wpc = (4, 1) if ctx.warps == 4 else rng.choice(((8, 1), (4, 2)))
    n = _wgmma_n(rng, ctx.shape[-1], wpc[-1])
    return {"version": 3, "warps_per_cta": wpc, "instr_shape": (16, n, max(4, 32 // ctx.dtype_bytes))}


def draw_mma_v3(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The wgmma (mma v3) accumulator, rank 2, 4 or 8 warps."""
    p = _mma_v3_params(rng, ctx) if ctx.rank == 2 else None
    return None if p is None else ("mma_v3", lambda: L.NvidiaMma(**p))


def draw_mma_v2_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A (0) or B (1) of an mma v2 dot in registers; k_width 32 bits of the dtype, or twice
    that (the upcast operands of mixed-precision dots)."""
    p = _mma_v2_params(rng, ctx)
    if p is None:
        return None
    op = rng.choice((0, 1))
    kw = _natural_k_width(ctx.dtype_bytes) * rng.choice((1, 1, 2))
    return "mma_v2_dot", lambda: L.DotOperand(operand_index=op, parent=L.NvidiaMma(**p), k_width=kw)


def draw_mma_v3_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A of a wgmma in registers (the only operand wgmma reads from registers); rank 2, or
    3 with a batch dim."""
    p = _mma_v3_params(rng, ctx)
    if p is None:
        return None
    kw = _natural_k_width(ctx.dtype_bytes)
    return "mma_v3_dot", lambda: L.DotOperand(operand_index=0, parent=L.NvidiaMma(**p), k_width=kw)


MFMA_K_BASE = {1: 8, 2: 4, 4: 1, 8: 1}  # K elements one lane holds per mfma, by element bytes


def _mfma_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """AmdMfma parameters for the dtype: 16x16 or 32x32 (16x16 and a 64-bit accumulator for 8-byte
    types), K from the dtype, transposed or not, tiles_per_warp; version 2 on gfx90a, else 3."""
    if ctx.lanes != 64 or ctx.rank not in (2, 3) or not _dot_sized(ctx.shape):
        return None
    non_k = 16 if ctx.dtype_bytes == 8 else rng.choice((16, 32))
    return {
        "warps_per_cta": _matrix_warps(rng, ctx, (non_k, non_k)),
        "tiles_per_warp": _tiles_per_warp(rng, ctx.rank),
        "cga_layout": (),
        "instr_shape": (non_k, non_k, MFMA_K_BASE[ctx.dtype_bytes] * 64 // non_k),
        "transposed": rng.random() < 0.5,
        "element_bitwidth": 64 if ctx.dtype_bytes == 8 else 32,
        "version": 2 if ctx.target == "gfx90a" else 3,
    }


def draw_mfma(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The mfma accumulator (wave64)."""
    p = _mfma_params(rng, ctx)
    return None if p is None else ("mfma", lambda: L.AmdMfma(**p))


def draw_mfma_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A or B of an mfma dot: k_width the K one lane holds per instruction, or twice that (kpack 2)."""
    p = _mfma_params(rng, ctx)
    if p is None:
        return None
    op = rng.choice((0, 1))
    kw = MFMA_K_BASE[ctx.dtype_bytes] * rng.choice((1, 1, 2))
    return "mfma_dot", lambda: L.DotOperand(operand_index=op, parent=L.AmdMfma(**p), k_width=kw)


def _wmma_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """AmdWmma parameters: version 1 (RDNA3), 2 (RDNA4) or 3 (gfx1250, instr K 32 or 64),
    transposed or not, tiles_per_warp."""
    if ctx.lanes != 32 or ctx.rank not in (2, 3) or not _dot_sized(ctx.shape):
        return None
    version = rng.choice((1, 2, 3))
    instr = (16, 16, 16) if version < 3 else (16, 16, rng.choice((32, 64)))
    return {
        "warps_per_cta": _matrix_warps(rng, ctx, (16, 16)),
        "tiles_per_warp": _tiles_per_warp(rng, ctx.rank),
        "cga_layout": (),
        "version": version,
        "transposed": rng.random() < 0.5,
        "instr_shape": instr,
    }


def draw_wmma(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The wmma accumulator (wave32)."""
    p = _wmma_params(rng, ctx)
    return None if p is None else ("wmma", lambda: L.AmdWmma(**p))


def draw_wmma_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A or B of a wmma dot, k_width one of those Triton 3.6 accepts for the version."""
    p = _wmma_params(rng, ctx)
    if p is None:
        return None
    op = rng.choice((0, 1))
    kw = rng.choice(WMMA_K_WIDTHS[p["version"]])
    return "wmma_dot", lambda: L.DotOperand(operand_index=op, parent=L.AmdWmma(**p), k_width=kw)


def draw_slice(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """SliceEncoding(dim, parent): a parent of any other family over the shape with a 1 inserted
    at ``dim`` (a reduction's result); rank 4 parents are blocked."""
    dim = rng.randrange(ctx.rank + 1)
    pctx = ctx._replace(shape=ctx.shape[:dim] + (1,) + ctx.shape[dim:])
    fam = _pick_family(rng, pctx, exclude=("slice", "linear"))
    got = fam.draw(rng, pctx) if fam else None
    if got is None:
        return None
    pname, pmake = got
    return f"slice({pname})", lambda: L.Slice(dim=dim, parent=pmake())


def _linear_of(lay: LinearLayout, coords: Callable[[tuple[int, ...]], list[int]]) -> Make:
    """Gluon's DistributedLinearLayout from ``lay``'s bases, each mapped through ``coords``."""
    vecs = {n: tuple(tuple(coords(lay.basis(n, i))) for i in range(lay.in_bits(n))) for n in ("register", "lane", "warp")}
    return lambda: L.Linear(register=vecs["register"], lane=vecs["lane"], warp=vecs["warp"], block=())


def _linear_random(rng: random.Random, ctx: Ctx, spare_zeros: bool = True) -> tuple[str, Make]:
    """Explicit bases: the tensor's bits dealt in random order to lanes, warps, then registers;
    lane and warp slots the tensor cannot fill are zero (broadcast), and with ``spare_zeros`` a few
    more zero columns (lane, warp or register) where there is room."""
    bits = [(d, i) for d, s in enumerate(ctx.shape) for i in range(_log2(s))]
    rng.shuffle(bits)
    slots = ["lane"] * _log2(ctx.lanes) + ["warp"] * _log2(ctx.warps)
    extra = rng.choice((0, 0, 0, 1, 2)) if spare_zeros else 0
    n_zero = min(len(slots), max(0, len(slots) - len(bits)) + extra)
    zero_at = set(rng.sample(range(len(slots)), n_zero))
    rank = ctx.rank

    def vec(b):
        return tuple((1 << b[1]) if e == b[0] else 0 for e in range(rank)) if b else (0,) * rank

    cols = {"register": [], "lane": [], "warp": []}
    for j, kind in enumerate(slots):
        cols[kind].append(vec(None if j in zero_at or not bits else bits.pop()))
    cols["register"] = [vec(b) for b in bits]
    if spare_zeros and rng.random() < 0.15:
        cols["register"].insert(rng.randint(0, len(cols["register"])), vec(None))
    reg, lane, warp = (tuple(cols[k]) for k in ("register", "lane", "warp"))
    return "linear", lambda: L.Linear(register=reg, lane=lane, warp=warp, block=())


def _linear_transposed(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """tt.trans of another family's layout: result dim j is the source's dim ``order[j]``."""
    order = list(range(ctx.rank))
    while order == sorted(order):
        rng.shuffle(order)
    src_shape = [0] * ctx.rank
    for j, d in enumerate(order):
        src_shape[d] = ctx.shape[j]
    inner = _draw_any(rng, ctx._replace(shape=tuple(src_shape)), exclude=("linear",))
    if inner is None:
        return None
    return f"linear(trans {inner.family})", _linear_of(inner.layout, lambda v: [v[d] for d in order])


def _linear_reshaped(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """tt.reshape (or join / split) of another family's layout over a shape of as many elements
    and rank 1 to 3: the row-major element order is kept."""
    nbits = sum(_log2(s) for s in ctx.shape)
    rank = rng.randint(1, 3)
    src_shape = _split(rng, nbits, [9] * rank)
    if src_shape == ctx.shape:
        return None
    inner = _draw_any(rng, ctx._replace(shape=src_shape), exclude=("linear",))
    if inner is None:
        return None
    lay = inner.layout.reshape_outs([(f"dim{d}", s) for d, s in enumerate(ctx.shape)])
    return f"linear(reshape {inner.family})", _linear_of(lay, list)


def draw_linear(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Triton's LinearEncoding: explicit random bases (half of the time; see `_linear_random`), else
    a transpose or a reshape of another family's layout."""
    form = _weighted(rng, {"random": 2, "trans": 1 if ctx.rank > 1 else 0, "reshape": 1})
    if form == "random":
        return _linear_random(rng, ctx)
    return _linear_transposed(rng, ctx) if form == "trans" else _linear_reshaped(rng, ctx)


FAMILIES = [
    Family("blocked", (32, 64), (1, 2, 3, 4), 3.0, draw_blocked),
    Family("mma_v2", (32,), (2, 3), 2.0, draw_mma_v2),
    Family("mma_v3", (32,), (2,), 3.0, draw_mma_v3),
    Family("mma_v2_dot", (32,), (2, 3), 2.0, draw_mma_v2_dot),
    Family("mma_v3_dot", (32,), (2, 3), 2.0, draw_mma_v3_dot),
    Family("wmma", (32,), (2, 3), 1.5, draw_wmma),
    Family("wmma_dot", (32,), (2, 3), 1.5, draw_wmma_dot),
    Family("mfma", (64,), (2, 3), 3.0, draw_mfma),
    Family("mfma_dot", (64,), (2, 3), 3.0, draw_mfma_dot),
    Family("slice", (32, 64), (1, 2, 3), 2.5, draw_slice),
    Family("linear", (32, 64), (1, 2, 3), 2.5, draw_linear),
]


def families_for(lanes: int) -> list[str]:
    """The family names drawn on a target with ``lanes`` threads per warp."""
    return [f.name for f in FAMILIES if lanes in f.lanes]


# ---------------------------------------------------------------------------------- drawing a layout
def _pick_family(rng: random.Random, ctx: Ctx, exclude=(), only: str | None = None) -> Family | None:
    """A family for the warp size and rank, by weight (None when none fits)."""
    fams = [
        f
        for f in FAMILIES
        if ctx.lanes in f.lanes and ctx.rank in f.ranks and f.name not in exclude and (only is None or f.name == only)
    ]
    if not fams:
        return None
    return rng.choices(fams, weights=[f.weight for f in fams])[0]


@lru_cache(maxsize=8192)
def _to_linear(encoding, shape: tuple[int, ...]) -> LinearLayout:
    return encoding.to_linear(shape)


def _max_registers(ctx: Ctx) -> int:
    """The most elements a layout may give one thread: its share of the tile, or more (replicas)
    up to THREAD_ELEMENTS elements and THREAD_BYTES bytes."""
    share = (1 << sum(_log2(s) for s in ctx.shape)) // (ctx.warps * ctx.lanes)
    return max(share, min(THREAD_ELEMENTS, THREAD_BYTES // ctx.dtype_bytes))


def _rank3_pending(family: str, rank: int) -> bool:
    """Whether ``family`` at ``rank`` is a rank-3 mma v2 / mfma / wmma (or an operand or slice of one)."""
    depth = family.count("slice(")
    base = family.replace("slice(", "").rstrip(")").removesuffix("_dot")
    return rank + depth == 3 and base in RANK3_PENDING


def _draw_family(rng: random.Random, fam: Family, ctx: Ctx) -> Drawn | None:
    """One layout of ``fam`` over ``ctx``, or None when the family has no parameters for it, the
    layout would give a thread more registers than `_max_registers`, or a constructor refuses a rank-3
    mma v2 / mfma / wmma. That refusal is the ONE LlgenError caught here (counted in RANK3_REFUSALS);
    every other error propagates."""
    got = fam.draw(rng, ctx)
    if got is None:
        return None
    name, make = got
    try:
        enc = make()
        lay = _to_linear(enc, ctx.shape)
    except LlgenError as e:
        if not _rank3_pending(name, ctx.rank):
            raise
        RANK3_REFUSALS[name] += 1
        RANK3_REASONS.setdefault(name, str(e))
        return None
    if lay.in_size("register") > _max_registers(ctx):
        return None
    return Drawn(name, enc, lay)


def _draw_any(rng: random.Random, ctx: Ctx, exclude=(), only: str | None = None, tries: int = 12) -> Drawn | None:
    """A layout of a random family that fits ``ctx`` (None after ``tries`` misses)."""
    for _ in range(tries):
        fam = _pick_family(rng, ctx, exclude, only)
        if fam is None:
            return None
        drawn = _draw_family(rng, fam, ctx)
        if drawn is not None:
            return drawn
    return None


def draw_layout(rng: random.Random, shape, warps: int, target: str, dtype: str = "f16", family: str | None = None) -> Drawn:
    """A random real layout over ``shape`` for ``warps`` warps of ``target``'s warp size, with
    parameters fit for ``dtype``; ``family`` restricts it to one family name (see FAMILIES). When
    nothing else fits, explicit random bases (which always do)."""
    tgt = to_target(target)
    ctx = Ctx(tuple(shape), warps, tgt.lanes, to_dtype(dtype).bytes, tgt.name)
    drawn = _draw_any(rng, ctx, only=family)
    if drawn is None:
        if family not in (None, "linear"):
            raise LlgenError(f"no {family} layout fits shape {list(shape)} with {warps} warps on {tgt.name}.")
        name, make = _linear_random(rng, ctx, spare_zeros=False)
        enc = make()
        drawn = Drawn(name, enc, _to_linear(enc, ctx.shape))
    return drawn


def random_layout(
    rng: random.Random, shape, warps: int, target: str, dtype: str = "f16", family: str | None = None
) -> LinearLayout:
    """The `LinearLayout` of `draw_layout`."""
    return draw_layout(rng, shape, warps, target, dtype, family).layout


# ---------------------------------------------------------------------------------- shapes and pairs
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


def random_cases(n: int, seed: int, target: str, **options) -> list[tuple[str, object]]:
    """``n`` (label, plan) pairs; the label names the pair by seed and index, dtype and requested path
    (default, or forced shuffle or shared; a forced path the planner cannot do is skipped, so indices
    may have gaps). One pair in six also gets a shared-memory budget of a half to an eighth of its tile
    (label ``_b<bytes>``), so that plans in scratch rounds come up often; a tile that cannot be split that
    far is planned without it. ``options`` go to every plan_conversion call (e.g. matrix=False)."""
    from .plan import plan_conversion
    from .target import target as to_target

    out = []
    for i, s in enumerate(_pair_seeds(seed)):
        if len(out) == n:
            break
        rng = random.Random(s)
        pair = _pair_from(rng, seed, i, target)
        path = rng.choice(PATHS)
        budget = None
        if "smem_budget" not in options and rng.random() < 1 / 6:
            budget = min(max(256, tile_bytes(pair) >> rng.randint(1, 3)), to_target(target).smem_per_cta)
        try:
            try:
                plan = plan_conversion(pair.a, pair.b, pair.dtype, target, path=path, smem_budget=budget, **options)
            except LlgenError as e:
                if budget is None or "cannot be split" not in str(e):
                    raise
                budget = None
                plan = plan_conversion(pair.a, pair.b, pair.dtype, target, path=path, **options)
        except LlgenError as e:  # a forced path that cannot work
            if path is None or "cannot" not in str(e):
                raise
            continue
        out.append((f"{pair.label}_{path or 'auto'}" + (f"_b{budget}" if budget else ""), plan))
    return out


def random_plans(n: int, seed: int, target: str) -> list:
    """``n`` random plans (see `random_cases`)."""
    return [p for _, p in random_cases(n, seed, target)]


# ---------------------------------------------------------------------------------- statistics
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
