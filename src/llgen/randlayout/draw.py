"""Drawing one layout: the family table, picking a family that fits, building it, and the families drawn from
another one (slice, linear)."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

from llgen import layouts as L
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.target import target as to_target
from llgen.randlayout.bits import _log2, _split, _weighted
from llgen.randlayout.ctx import (
    RANK3_PENDING,
    RANK3_REASONS,
    RANK3_REFUSALS,
    THREAD_BYTES,
    THREAD_ELEMENTS,
    Ctx,
    Drawn,
    Family,
    Make,
)
from llgen.randlayout.families import (
    draw_blocked,
    draw_mfma,
    draw_mfma_dot,
    draw_mma_v2,
    draw_mma_v2_dot,
    draw_mma_v3,
    draw_mma_v3_dot,
    draw_wmma,
    draw_wmma_dot,
)


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
