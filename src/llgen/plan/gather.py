"""Gather plans (docs/design.md §9, the paper §5.5): out[..i..] = src[..index[..i..]..] along ``axis``.

The source, the index and the output share one distributed layout L. Thread (lane l, warp w)
holds in register j the element x_j = L(j, l, w); its output there is the element y_j that has
x_j's coordinates except along the axis, where it has idx[j] (a run-time value). Every bit of the
axis coordinate is held by exactly one hardware bit of L (a distributed layout is a permutation
with zero columns): a register bit, a lane bit or a warp bit.

* **shuffle** (no axis bit is a warp bit, the whole axis lives in one warp): y_j lives in this
  warp, in the lane ``(lane & lane_keep) | deposit(idx[j], lane_runs)`` and in the register
  ``(j & ~axis registers) | deposit(idx[j], register bits)``. The sender does not know idx, so for
  each destination register there is one round per candidate source register (2^|L_reg^axis|,
  compile-time indices): every lane sends that candidate and receives from the run-time source
  lane with shfl.idx; the receiver keeps the word when idx's register bits name that candidate.
  Sub-word types pack candidates along the lowest axis register bits into one 32-bit word and
  pick the element with a run-time shift. With no axis bit on lanes the rounds are local selects
  (path "registers").
* **shared** (the axis crosses warps): store the tile row-major in shared memory (vectorized like
  a global store, one replica writes), barrier, each thread loads each output element at
  ``load_thread + const_j + ((idx[j] & axis_mask) << axis_shift)``.

Runs: a ``deposit(x, runs)`` is ``OR over (src, dst, width) of ((x >> src) & (2^width - 1)) << dst``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from llgen.core.dtypes import DType
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.target import Target
from llgen.core.target import target as to_target
from llgen.plan.affine import Affine
from llgen.plan.hw import Hw
from llgen.plan.io import GlobalIO, global_io

Runs = tuple[tuple[int, int, int], ...]
GATHER_PATHS = ("registers", "shuffle", "shared")


@dataclass(frozen=True)
class _Tile:
    """What both gather paths read of the tile: its layout, that layout's hardware bits, the element type and the
    target."""

    layout: LinearLayout
    hw: Hw
    dt: DType
    tgt: Target


@dataclass(frozen=True)
class GatherRound:
    """Fill destination register ``dest`` from one word: ``send`` lists the element registers
    packed into it (element t at position t); every thread sends it, each receives it from its
    own source lane (op "idx", shfl.idx) or from itself (op "local"), and keeps it where
    ``(idx[dest] & select_mask) == select_value``."""

    dest: int
    send: tuple[int, ...]
    select_value: int
    op: str


@dataclass(frozen=True)
class GatherShuffle:
    kind = "shuffle"
    lane_keep: int  # source lane = (lane & lane_keep) | deposit(idx, lane_runs)
    lane_runs: Runs
    select_mask: int  # idx bits that choose among one destination's rounds
    pack_runs: Runs  # element position inside the kept word = deposit(idx, pack_runs)
    pack: int  # elements per shuffled word (1, 2 or 4)
    words_per_element: int  # 2 for 64-bit types
    rounds: tuple[GatherRound, ...]  # grouped by destination, in order
    shuffles: int  # SHFL instructions per thread

    @property
    def rounds_per_dest(self) -> int:
        return 1 << self.select_mask.bit_count()


@dataclass(frozen=True)
class GatherShared:
    kind = "shared"
    scratch_elems: int
    scratch_bytes: int
    store: GlobalIO  # the source tile stored row-major (offsets are element offsets in the scratch)
    load_thread: Affine  # the thread's part of each load offset (its non-axis bits)
    loads: tuple[tuple[int, int], ...]  # (destination register, constant offset)
    axis_mask: int  # idx & axis_mask ...
    axis_shift: int  # ... << axis_shift is the load offset's axis part


@dataclass(frozen=True)
class GatherPlan:
    kind: ClassVar[str] = "gather"  # llgen.plan.kinds.PlanKind: which emitter spells it
    layout: LinearLayout
    axis: int
    dtype: DType
    target: Target
    path: str  # registers | shuffle | shared
    detail: GatherShuffle | GatherShared
    warps: int
    n_regs: int  # registers per thread (source, index and output alike)
    axis_size: int
    out_copies: tuple[tuple[int, int], ...]  # (j, k): out[j] = out[k], broadcast register replicas
    why: str
    global_io: GlobalIO  # how the kernels read the source and write the output tile (one replica writes)
    index_io: GlobalIO  # how they read the 32-bit index tile

    @property
    def lanes(self) -> int:
        return self.target.lanes

    @property
    def shuffles(self) -> int:
        return self.detail.shuffles if self.detail.kind == "shuffle" else 0

    def explain(self) -> str:
        from llgen.plan.explain import plural

        d = self.detail
        lines = [
            (
                f"gather along axis {self.axis} ({self.axis_size} positions) of a "
                f"{'x'.join(map(str, self.layout.shape))} {self.dtype.name} tile, {plural(self.warps, 'warp')} x "
                f"{self.lanes} lanes on {self.target.name}"
            ),
            f"path: {self.path} ({self.why})",
        ]
        if d.kind == "shuffle":
            lines += [
                f"source lane = (lane & {d.lane_keep:#x}) | deposit(idx, {list(d.lane_runs)})",
                (
                    f"{d.rounds_per_dest} round(s) per destination register, {d.pack} element(s) per word, "
                    f"{len(d.rounds)} rounds, {d.shuffles} SHFL per thread"
                ),
            ]
        else:
            lines += [
                (
                    f"scratch {d.scratch_bytes} bytes, store {len(d.store.instrs)} x {d.store.width}-element vectors, "
                    f"{len(d.loads)} scalar loads at ld + c + ((idx & {d.axis_mask:#x}) << {d.axis_shift})"
                )
            ]
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The gather's facts as `llgen plan --json` prints a plan's: what it gathers, its path and why, and the path's
        instruction counts."""
        d = self.detail
        out = {
            "kind": self.kind,
            "path": self.path,
            "why": self.why,
            "layout": self.layout.to_dict(),
            "axis": self.axis,
            "dtype": self.dtype.name,
            "target": self.target.name,
            "warps": self.warps,
            "registers": self.n_regs,
        }
        if d.kind == "shuffle":
            out["shuffle"] = {"rounds": len(d.rounds), "shfl": d.shuffles, "pack": d.pack}
        else:
            out["shared"] = {"scratch_bytes": d.scratch_bytes, "loads": len(d.loads)}
        return out


def plan_gather(
    layout: LinearLayout,
    axis: int,
    dtype: str | DType = "f32",
    target: str | Target = "sm_90",
    *,
    path: str | None = None,
    smem_budget: int | None = None,
) -> GatherPlan:
    """Plan tl.gather along ``axis`` for a tile whose source, index and output are in ``layout``.

    ``path`` forces "shuffle" or "shared" (tests and benchmarks); shuffles cannot cross warps."""
    dt, tgt = to_dtype(dtype), to_target(target)
    if dt.sub_byte:  # single elements move: the nibbles widen to bytes, the 8-bit gather moves them, they pack again
        from llgen.plan.packed import BYTES, PackedPlan

        if layout.in_bits("register") == 0:
            raise LlgenError(f"the layout holds one element a thread; {dt.name} needs two (a byte) or more.")
        inner = plan_gather(layout, axis, BYTES, tgt, path=path, smem_budget=smem_budget)
        return PackedPlan(layout, layout, dt, "nibbles", None, inner)
    if not isinstance(axis, int) or not 0 <= axis < len(layout.outs):
        raise LlgenError(f"axis {axis} is out of range for a {len(layout.outs)}-dimensional tile.")
    if path is not None and path not in GATHER_PATHS:
        raise LlgenError(f"unknown gather path '{path}'; known: {', '.join(GATHER_PATHS)}.")
    hw = Hw.of(layout)
    if not layout.is_distributed():
        raise LlgenError("gather needs a distributed layout (each basis zero or one distinct bit, covering the tile).")
    if layout.in_size("lane") != tgt.lanes:
        raise LlgenError(f"the layout has {layout.in_size('lane')} lanes but {tgt.name} warps have {tgt.lanes}.")
    axis_name = layout.out_names[axis]
    shift, abits = layout.out_offset(axis_name), layout.out_bits(axis_name)
    axis_flat = ((1 << abits) - 1) << shift
    reg_ax, lane_ax, warp_ax = [], [], []  # (idx bit k, hardware bit)
    for k in range(abits):
        f = 1 << (shift + k)
        for cols, out in ((hw.reg, reg_ax), (hw.lane, lane_ax), (hw.warp, warp_ax)):
            if f in cols:
                out.append((k, cols.index(f)))
    bcast = hw.reg_broadcast_mask
    n = 1 << len(hw.reg)
    copies = tuple((j, j & ~bcast) for j in range(n) if j & bcast)
    dests = [j for j in range(n) if not j & bcast]
    tile = _Tile(layout, hw, dt, tgt)
    common = {
        "layout": layout,
        "axis": axis,
        "dtype": dt,
        "target": tgt,
        "warps": layout.in_size("warp"),
        "n_regs": n,
        "axis_size": 1 << abits,
        "out_copies": copies,
        "global_io": global_io(layout, dt, tgt),
        "index_io": global_io(layout, to_dtype("i32"), tgt),
    }

    if path is None or path in ("shuffle", "registers"):
        if warp_ax:
            if path is not None:
                raise LlgenError(f"the {path} path cannot do this gather: the axis crosses warps.")
        elif path == "registers" and lane_ax:
            raise LlgenError("the registers path cannot do this gather: the axis crosses lanes.")
        else:
            detail = _plan_shuffle(tile, reg_ax, lane_ax, dests)
            if lane_ax:
                why = "the axis lives in one warp: shfl.idx from the lane that holds the index"
                kind = "shuffle"
            else:
                why = "the axis lives in each thread's registers: run-time selects, no shuffles"
                kind = "registers"
            return GatherPlan(path=kind, detail=detail, why=why, **common)
    detail = _plan_shared(tile, axis_flat, shift, dests, smem_budget)
    why = "forced" if path == "shared" else "the axis crosses warps"
    return GatherPlan(path="shared", detail=detail, why=why + ": through shared memory", **common)


def _runs(pairs: list[tuple[int, int]]) -> Runs:
    """(src bit, dst bit) pairs as maximal runs of consecutive bits."""
    out: list[list[int]] = []
    for s, d in sorted(pairs):
        if out and out[-1][0] + out[-1][2] == s and out[-1][1] + out[-1][2] == d:
            out[-1][2] += 1
        else:
            out.append([s, d, 1])
    return tuple(tuple(r) for r in out)


def _plan_shuffle(tile: _Tile, reg_ax, lane_ax, dests) -> GatherShuffle:
    hw, dt, tgt = tile.hw, tile.dt, tile.tgt
    lane_bits = len(hw.lane)
    lane_keep = ((1 << lane_bits) - 1) & ~sum(1 << p for _, p in lane_ax)
    cap = (tgt.shuffle_bytes // dt.bytes).bit_length() - 1 if dt.bytes < tgt.shuffle_bytes else 0
    by_reg = sorted(reg_ax, key=lambda e: e[1])
    packed, chosen = by_reg[:cap], by_reg[cap:]
    reg_mask = sum(1 << i for _, i in reg_ax)
    select_mask = sum(1 << k for k, _ in chosen)
    op = "idx" if lane_ax else "local"
    words = 2 if dt.bits == 64 else 1
    rounds = []
    for j in dests:
        base = j & ~reg_mask
        for g in range(1 << len(chosen)):
            regs = base | sum(1 << i for m, (_, i) in enumerate(chosen) if g >> m & 1)
            value = sum(1 << k for m, (k, _) in enumerate(chosen) if g >> m & 1)
            send = tuple(regs | sum(1 << i for m, (_, i) in enumerate(packed) if t >> m & 1) for t in range(1 << len(packed)))
            rounds.append(GatherRound(j, send, value, op))
    shuffles = len(rounds) * words if lane_ax else 0
    return GatherShuffle(
        lane_keep,
        _runs([(k, p) for k, p in lane_ax]),
        select_mask,
        _runs([(k, m) for m, (k, _) in enumerate(packed)]),
        1 << len(packed),
        words,
        tuple(rounds),
        shuffles,
    )


def _plan_shared(tile: _Tile, axis_flat: int, shift: int, dests, budget) -> GatherShared:
    layout, hw, dt, tgt = tile.layout, tile.hw, tile.dt, tile.tgt
    elems = 1 << hw.nbits
    limit = tgt.static_smem if budget is None else budget  # gather kernels keep a static array
    if elems * dt.bytes > limit:
        raise LlgenError(f"the gather's shared-memory scratch ({elems * dt.bytes} bytes) exceeds the budget of {limit} bytes.")
    store = global_io(layout, dt, tgt)
    load_thread = Affine(0, tuple(c & ~axis_flat for c in hw.lane + hw.warp))
    loads = tuple((j, hw.element(j, 0, 0) & ~axis_flat) for j in dests)
    return GatherShared(elems, elems * dt.bytes, store, load_thread, loads, axis_flat >> shift, shift)
