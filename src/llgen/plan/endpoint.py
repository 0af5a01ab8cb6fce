"""Shared memory as an endpoint (paper §5.3): a tile moves between registers in a distributed layout D and a
shared-memory layout S the hardware fixes (an NVMMA tile for wgmma/TMA, a swizzled or padded tile), by a store
(registers -> S) or a load (S -> registers), what Triton's local_store and local_load do.

S maps an element offset to a tensor element, so the access is L = S^-1 ∘ D: (register, lane, warp) -> offset.
An instruction fits where L divides by its tile: a vector where register bits of D walk offset bits 0..k-1
(contiguous and aligned), ldmatrix/stmatrix where D's registers and lanes walk 16-byte rows (plan/tiles.py).
The instructions are built by the conversion planner's own side builder (plan/shared.py) with S^-1 as the offset
map. A padded S is a linear remap plus a padding function: its instructions come from the remap, and its
wavefronts are counted by brute force over the padded byte addresses (the padding moves banks).

A store writes each element once: D's broadcast registers are skipped and broadcast warps predicated off, while
broadcast lanes of one instruction write the same word, which the hardware merges. A load fills every replica:
every warp loads, and broadcast registers copy the canonical one (``copies``).

When D's accesses are narrow or conflicting, a two-step plan may be cheaper: access S in a staging layout Q with
D's warp bits whose registers hold 16 contiguous bytes and whose lanes are conflict-free, and convert between Q and
D inside each warp (registers or shuffles); the cost model (plan/cost.py) picks the cheaper plan.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from llgen import layouts as L
from llgen.core import f2
from llgen.core.dtypes import DType
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.target import Target
from llgen.core.target import target as to_target
from llgen.core.vocab import ENDPOINT_FORMS
from llgen.layouts.shared_linear import pad_offset
from llgen.plan.cost import WAVEFRONTS_PER_CLK, shuffle_cost
from llgen.plan.hw import Hw
from llgen.plan.io import GlobalIO, global_io
from llgen.plan.select import LaneSelect, lane_masks, stages_of, with_lane_select
from llgen.plan.shared import Side, SideSpec, build_side, half_warp_load
from llgen.plan.tiles import ldmatrix_tile


@dataclass(frozen=True)
class Buffer:
    """What an endpoint reads of its shared layout's encoding, typed once: the padding's (interval, padding) pairs, the
    NVMMA swizzle width and the alignment the layout states (a bare linear map has none of them)."""

    intervals: tuple[tuple[int, int], ...] = ()
    swizzle_bytes: int = 0
    alignment: int = 0

    @staticmethod
    def of(enc) -> Buffer:
        if isinstance(enc, L.PaddedShared):
            return Buffer(intervals=enc.intervals)
        if isinstance(enc, L.NvmmaShared):
            return Buffer(swizzle_bytes=enc.swizzle_byte_width)
        if isinstance(enc, L.SharedLinear):
            return Buffer(alignment=enc.alignment)
        return Buffer()

    @property
    def padded(self) -> bool:
        return bool(self.intervals)

    def pad(self, offset: int) -> int:
        """Where element offset ``offset`` lies in the buffer (itself where S is not padded)."""
        return pad_offset(offset, self.intervals)


@dataclass(frozen=True)
class Banking:
    """How an endpoint's accesses meet the banks, beyond the instructions: the element type and the target (a phase's
    lanes, the banks), whether they store (a load may serve a half warp a phase) and the buffer, whose padding moves
    an offset's bank."""

    dtype: DType
    target: Target
    store: bool
    buffer: Buffer = Buffer()


@dataclass(frozen=True)
class _Endpoint:
    """One endpoint apart from the registers' layout: the direction, S (offset -> element, in D's out-dim order) and
    its encoding (None for a bare linear map), the element type and the target. A two-step plan's access in Q and a
    direct plan's in D read the same one."""

    direction: str
    s: LinearLayout
    enc: object | None
    dt: DType
    tgt: Target

    @property
    def store(self) -> bool:
        return self.direction == "store"


@dataclass(frozen=True)
class EndpointPlan:
    kind = "endpoint"
    direction: str  # "store" (registers -> shared; path "local_store") or "load" (shared -> registers; "local_load")
    dist: LinearLayout  # D, the registers' layout
    shared: LinearLayout  # S: offset -> element, out-dims in D's order
    encoding: object | None  # S's encoding object (its padding, its swizzle width), None for a bare linear map
    dtype: DType
    target: Target
    warps: int
    side: Side  # the instructions, in S's unpadded element offsets
    copies: tuple[tuple[int, int], ...]  # load: (j, k), register j is a replica of register k
    instr_wavefronts: tuple[int, ...]  # per instruction, summed over the warps that run it
    wavefronts_per_access: int  # the most one warp's instruction takes
    floor: int  # the fewest wavefronts any access of S can take for this tile
    floor_reason: str  # why the plan is above the floor ("" at the floor)
    smem_bytes: int  # kSmemBytes: S's buffer, padding included
    smem_align: int  # kSmemAlign: the base alignment S's swizzle and the widest access need
    align_reason: str
    staging: LinearLayout | None = None  # two-step plans: Q, the layout the shared access uses
    convert: object | None = None  # two-step plans: the Q <-> D plan (llgen.plan.Plan), or a chain of them (plan.chain)
    cost: float = 0.0  # the cost model's cycles (plan/cost.py): wavefronts, plus the conversion's
    tile_io: GlobalIO | None = None  # how the check kernels move D's registers to and from a dense global tile
    buffer: Buffer = Buffer()  # what the plan reads of S's encoding: its padding, swizzle width and stated alignment

    @property
    def path(self) -> str:
        return "local_store" if self.direction == "store" else "local_load"

    @property
    def form(self) -> str:
        """direct (D accesses S), select (Q is D with registers picked by lane, plan/select.py) or two_step (Q is
        converted by registers or shuffles)."""
        if self.convert is None:
            return "direct"
        return "select" if self.convert.path == "select" else "two_step"

    @property
    def wavefronts(self) -> int:
        return sum(self.instr_wavefronts)

    @property
    def convert_cycles(self) -> float:
        """The in-warp step as the cost model prices it (a two-step plan's shuffles, a lane select's SELs); 0 for a
        direct plan."""
        return self.cost - self.wavefronts / WAVEFRONTS_PER_CLK if self.staging is not None else 0.0

    @property
    def pipe_floor(self) -> float:
        """The plan's stated floor in cycles: its wavefronts and its in-warp step (shuffles, or a select's SELs on the
        integer ALU) each on its own pipe, overlapped (the cost model adds them)."""
        return max(self.wavefronts / WAVEFRONTS_PER_CLK, self.convert_cycles)

    @property
    def banking(self) -> Banking:
        return Banking(self.dtype, self.target, self.direction == "store", self.buffer)

    @property
    def access_bytes(self) -> int:
        """Bytes a thread moves in one instruction (16 per ldmatrix/stmatrix x4)."""
        return self.side.width * self.dtype.bytes if not self.side.matrices else 4 * self.side.matrices

    def explain(self) -> str:
        from llgen.plan.endpoint_text import explain

        return explain(self)

    def to_json(self) -> dict:
        from llgen.plan.endpoint_text import to_json

        return to_json(self)


def plan_store(
    dist: LinearLayout, shared, dtype: str | DType = "f16", target: str | Target = "sm_90", form: str | None = None
) -> EndpointPlan:
    """Registers in ``dist`` -> shared memory in ``shared`` (a LinearLayout with in-dim offset, or a shared
    encoding object such as `llgen.layouts.PaddedShared`). ``form`` "direct", "two_step" or "select" forces that
    plan (the bench measures each); None takes the cheapest."""
    return _plan("store", dist, shared, to_dtype(dtype), to_target(target), form)


def plan_load(
    shared, dist: LinearLayout, dtype: str | DType = "f16", target: str | Target = "sm_90", form: str | None = None
) -> EndpointPlan:
    """Shared memory in ``shared`` -> registers in ``dist`` (see `plan_store`)."""
    return _plan("load", dist, shared, to_dtype(dtype), to_target(target), form)


def shared_map(shared, dist: LinearLayout) -> tuple[LinearLayout, object | None]:
    """(S over D's tensor with D's out-dim order, its encoding object or None); an error unless S is one CTA's
    bijection between offsets and the tensor's elements."""
    enc = None if isinstance(shared, LinearLayout) else shared
    lay = shared if enc is None else enc.to_linear(dist.shape)
    if "offset" not in lay.in_names or set(lay.in_names) - {"offset", "block"}:
        raise LlgenError(f"a shared-memory layout has in-dims offset (and block), not {list(lay.in_names)}.")
    if any(lay.flat_cols("block")):
        raise LlgenError("shared layouts with a non-trivial block (cluster) dim are accessed per CTA; pass one CTA's layout.")
    if sorted(lay.outs) != sorted(dist.outs):
        raise LlgenError(
            f"the layouts cover different tensors: { {n: 1 << k for n, k in lay.outs} } vs { {n: 1 << k for n, k in dist.outs} }."
        )
    lay = lay.transpose_outs(dist.out_names)
    cols = lay.flat_cols("offset")
    if len(cols) == lay.total_out_bits and f2.rank(cols) != len(cols):
        raise LlgenError("the shared-memory layout stores some elements at several offsets and others at none.")
    if len(cols) != lay.total_out_bits:
        raise LlgenError(
            f"the shared-memory layout maps {1 << len(cols)} offsets onto the tensor's {1 << lay.total_out_bits} elements, "
            "not one offset per element."
        )
    return lay, enc


def _plan(direction: str, dist: LinearLayout, shared, dt: DType, tgt: Target, form: str | None = None) -> EndpointPlan:
    from llgen.plan import check_distributed

    check_distributed(dist, "register")
    if dist.in_size("lane") != tgt.lanes:
        raise LlgenError(f"the distributed layout has {dist.in_size('lane')} lanes but {tgt.name} warps have {tgt.lanes}.")
    if dt.sub_byte:  # the byte endpoint of the pairs (llgen.plan.packed)
        from llgen.plan.packed import BYTES, plan_packed_endpoint

        if isinstance(shared, LinearLayout):  # an offset map over the 4-bit elements, in D's out-dim order
            shared = shared_map(shared, dist)[0]
        return plan_packed_endpoint(direction, dist, shared, dt, lambda d, m: _plan(direction, d, m, BYTES, tgt, form))
    if form not in (None, *ENDPOINT_FORMS):
        raise LlgenError(f"unknown endpoint plan form '{form}'; use {', '.join(ENDPOINT_FORMS)}.")
    s, enc = shared_map(shared, dist)
    end = _Endpoint(direction, s, enc, dt, tgt)
    direct = _direct(end, dist)
    plans = {"direct": direct}
    if form in (None, "two_step"):
        plans["two_step"] = _two_step(end, dist, with_chain=form == "two_step")
    if form in (None, "select"):
        plans["select"] = _lane_select(end, dist, direct)
    if form is not None and plans[form] is None:
        raise LlgenError(_NO_FORM[form])
    best = plans[form] if form else min((p for p in plans.values() if p is not None), key=lambda p: p.cost)
    return replace(best, tile_io=global_io(dist, dt, tgt))


_NO_FORM = {
    "two_step": "no two-step plan: too few tensor bits outside the warps for a staging layout's lanes.",
    "select": "no lane-select plan: the direct accesses have no bank conflict that a select of registers by lane removes.",
}


def _direct(end: _Endpoint, dist: LinearLayout, name: str = "D") -> EndpointPlan:
    """The cheapest single-step plan: every instruction the map of ``dist`` (called ``name`` in the reasons) to S's
    offsets divides by."""
    store, dt, tgt = end.store, end.dt, end.tgt
    hw = Hw.of(dist)
    scols = end.s.flat_cols("offset")
    inv = [f2.solve(list(scols), 1 << i) for i in range(len(scols))]

    def off(x: int) -> int:
        return f2.combine(x, inv)

    cap = _access_cap(end.enc, dt, tgt)
    narrow = replace(tgt, max_access_bytes=cap)
    tiles = [None]
    if cap >= 16 and (tgt.stmatrix if store else tgt.ldmatrix):
        rows = Hw(scols, (), (), hw.nbits)  # the tile's 16-byte rows must be S's lowest offsets
        tiles = [t for t in (ldmatrix_tile(hw, rows, dt.bytes, trans) for trans in (False, True)) if t] + tiles
    best = None
    for tile in tiles:
        side = build_side(SideSpec(hw, hw, tile, store, False, ()), off, dt, narrow)
        if side is None:
            continue
        plan = _finish(end, dist, hw, side, name)
        key = (plan.cost, len(side.instrs), tile is not None)
        if best is None or key < best[0]:
            best = (key, plan)
    assert best is not None  # one element a thread always fits
    return best[1]


def _access_cap(enc, dt: DType, tgt: Target) -> int:
    """The widest access S allows: a padded layout keeps a vector aligned and in one piece only up to its
    smallest interval and the alignment of each padding."""
    cap = tgt.max_access_bytes
    for interval, pad in Buffer.of(enc).intervals:
        cap = min(cap, interval * dt.bytes, (pad * dt.bytes) & -(pad * dt.bytes))
    return max(cap, dt.bytes)


def _finish(end: _Endpoint, dist: LinearLayout, hw: Hw, side: Side, name: str) -> EndpointPlan:
    """The plan of ``side``'s instructions for ``dist`` (whose hardware bits are ``hw``): its wavefronts, floor, buffer
    size and alignment, and why it is above the floor."""
    store, s, enc, dt, tgt = end.store, end.s, end.enc, end.dt, end.tgt
    warps = 1 << len(hw.warp)
    active = warps >> side.predicate_warp_mask.bit_count()
    buffer = Buffer.of(enc)
    if buffer.padded:  # the padding moves banks: brute force over the padded byte addresses
        per_warp = list(_warp_wavefronts(side, warps, Banking(dt, tgt, store, buffer)))
        instr_wf, per_access = tuple(sum(ws) for ws in per_warp), max(max(ws) for ws in per_warp)
    else:  # linear: the exact model of plan/swizzle.py
        instr_wf, per_access = (side.wavefronts_per_instr * active,) * len(side.instrs), side.wavefronts_per_instr
    floor = _floor(hw, dt, tgt, store)
    total = sum(instr_wf)
    plan = EndpointPlan(
        end.direction,
        dist,
        s,
        enc,
        dt,
        tgt,
        warps,
        side,
        _replica_copies(hw) if not store else (),
        instr_wf,
        per_access,
        floor,
        "",
        _smem_bytes(s, enc, dt),
        0,
        "",
        cost=total / WAVEFRONTS_PER_CLK,
        buffer=buffer,
    )
    align, why = _alignment(buffer, plan.access_bytes, dt)
    reason = _floor_reason(plan, hw, _access_cap(enc, dt, tgt), name) if total > floor else ""
    return replace(plan, smem_align=align, align_reason=why, floor_reason=reason)


def _replica_copies(hw: Hw) -> tuple[tuple[int, int], ...]:
    mask = hw.reg_broadcast_mask
    return tuple((j, j & ~mask) for j in range(1 << len(hw.reg)) if j & mask)


def _smem_bytes(s: LinearLayout, enc, dt: DType) -> int:
    return enc.padded_bytes(dt.bytes) if isinstance(enc, L.PaddedShared) else s.in_size("offset") * dt.bytes


def _alignment(buffer: Buffer, access_bytes: int, dt: DType) -> tuple[int, str]:
    """kSmemAlign: NVMMA swizzles XOR address bits inside 8 rows of the swizzle width, so the base must sit on that
    repeat; other layouts swizzle offsets relative to the base and need only the widest access aligned."""
    swz = buffer.swizzle_bytes
    if swz:
        return 8 * swz, f"the {swz}-byte swizzle repeats every 8 rows x {swz} bytes"
    own = buffer.alignment
    if own > access_bytes:
        return own, f"the layout states {own}-byte alignment"
    return max(access_bytes, dt.bytes), f"the widest access moves {max(access_bytes, dt.bytes)} bytes"


def _floor(hw: Hw, dt: DType, tgt: Target, store: bool) -> int:
    """The data volume: each warp moves the distinct elements it holds once, at 128 bytes a wavefront (at least
    one wavefront a warp); a store takes one replica of each warp, a load every warp."""
    held = 1 << sum(1 for c in hw.reg + hw.lane if c)
    warps = 1 << len(hw.warp)
    if store:
        warps >>= hw.warp_broadcast_mask.bit_count()
    return warps * max(1, -(-held * dt.bytes // tgt.wavefront_bytes))


def _floor_reason(plan: EndpointPlan, hw: Hw, cap: int, name: str) -> str:
    """Why ``plan`` takes more wavefronts than the floor: narrow accesses, replicated lanes, bank conflicts. An access
    takes at least a wavefront a phase (Side.phases), and at least one per 128 distinct bytes it moves."""
    tgt, side = plan.target, plan.side
    lanes = 1 << sum(1 for c in hw.lane if c)
    moved = 128 * side.matrices if side.matrices else lanes * plan.access_bytes  # distinct bytes a warp instruction
    ideal = max(side.phases, -(-moved // tgt.wavefront_bytes))
    why = []
    capped = plan.buffer.padded and not side.matrices and plan.access_bytes == cap < tgt.max_access_bytes
    if capped:
        why.append(f"S's padding keeps accesses aligned only up to {cap} bytes")
    if moved < side.phases * tgt.wavefront_bytes:  # a phase moves less than a wavefront could
        if lanes < tgt.lanes:
            why.append(f"{name}'s lanes replicate: only {lanes} of {tgt.lanes} hold distinct elements, {moved} bytes an access")
        elif not capped:
            b = plan.access_bytes
            why.append(
                f"{name} holds {b} contiguous byte{'s' if b > 1 else ''} a thread along S's offset order, "
                f"so accesses are {b} byte{'s' if b > 1 else ''} wide"
            )
    if plan.wavefronts_per_access > ideal:
        k = plan.wavefronts_per_access / ideal
        why.append(
            f"S's offsets put {k:g} words of one access in one bank ({plan.wavefronts_per_access} wavefronts, not {ideal})"
        )
    return "; ".join(why) or "its accesses split the data into more wavefronts than its volume needs"


def instruction_phases(side: Side, ins, warp: int, banking: Banking) -> list[list[tuple[int, int]]]:
    """One warp's instruction as phases, each a list of (byte address, bytes) the hardware serves together."""
    dt, tgt, padded = banking.dtype, banking.target, banking.buffer.pad
    lanes, lb = tgt.lanes, tgt.lane_bits
    base = [(side.thread_offset.value(lane | warp << lb) ^ ins.xor_const) + ins.add_const for lane in range(lanes)]
    if side.matrices:  # one 8x8 matrix a phase: eight 16-byte rows, row i of matrix m from lane 8m + i
        return [[(padded(base[8 * m + i]) * dt.bytes, 16) for i in range(8)] for m in range(side.matrices)]
    vb = len(ins.regs) * dt.bytes
    per = tgt.phase_lanes(vb)
    quarters = [base[q : q + per] for q in range(0, lanes, per)]
    if half_warp_load(banking.store, vb, lanes, max(len(set(q)) for q in quarters)):
        per *= 2
    return [[(padded(o) * dt.bytes, vb) for o in base[g : g + per]] for g in range(0, lanes, per)]


def phase_wavefronts(phase: list[tuple[int, int]], tgt: Target) -> int:
    """The busiest bank's distinct 4-byte words."""
    words = {w for a, n in phase for w in range(a // tgt.bank_bytes, (a + n - 1) // tgt.bank_bytes + 1)}
    per_bank: dict[int, int] = {}
    for w in words:
        per_bank[w % tgt.banks] = per_bank.get(w % tgt.banks, 0) + 1
    return max(per_bank.values())


def _warp_wavefronts(side: Side, warps: int, banking: Banking):
    """Per instruction, per running warp: brute-force wavefronts."""
    for ins in side.instrs:
        yield [
            sum(phase_wavefronts(p, banking.target) for p in instruction_phases(side, ins, w, banking))
            for w in range(warps)
            if not (banking.store and w & side.predicate_warp_mask)
        ]


# ------------------------------------------------------------------------------------------- lane selects
def _lane_select(end: _Endpoint, dist: LinearLayout, direct: EndpointPlan) -> EndpointPlan | None:
    """The plan that accesses S in Q = D with registers picked by lane (plan/select.py), where D's own vector accesses
    conflict and the selects pay for themselves; None otherwise. Only whole 32-bit words outside the access's vector
    move, and only in layouts without replicas."""
    hw = Hw.of(dist)
    side = direct.side
    if side.matrices or direct.wavefronts <= direct.floor or hw.reg_broadcast_mask or not all(hw.lane):
        return None
    scols = end.s.flat_cols("offset")
    inv = [f2.solve(list(scols), 1 << i) for i in range(len(scols))]
    per = max(1, 32 // end.dt.bits)  # registers in one word
    best = None
    for width in _widths(direct.access_bytes, end):  # narrower accesses free the vector's registers to move
        inside = {k for k, c in enumerate(hw.reg) if _in_vector(k, side) and _offset_of(c, inv) * end.dt.bytes < width}
        movable = {k: _offset_of(c, inv) for k, c in enumerate(hw.reg) if 1 << k >= per and c and k not in inside}
        phase = end.tgt.phase_lanes(width).bit_length() - 1
        lanes = [_offset_of(c, inv) for c in hw.lane[:phase]]
        for _, masks in lane_masks(lanes, movable, end.dt.bytes, width, end.tgt):
            q = with_lane_select(dist, masks)
            access = _direct(end, q, "Q")
            sel = LaneSelect(*((dist, q) if end.store else (q, dist)), end.dt, end.tgt, access.warps, stages_of(masks))
            cost = access.cost + sel.cycles()
            if cost < (best or direct).cost:
                best = replace(access, dist=dist, staging=q, convert=sel, cost=cost)
    return best


def _widths(top: int, end: _Endpoint) -> list[int]:
    """Access widths from ``top`` bytes down, halving, to a word or one element, whichever is wider (``top`` itself
    always)."""
    out = [top]
    while out[-1] // 2 >= max(end.dt.bytes, end.tgt.bank_bytes):
        out.append(out[-1] // 2)
    return out


def _in_vector(k: int, side: Side) -> bool:
    """Whether register bit k lies inside one instruction's vector (its registers differ in bit k)."""
    return any(len({r >> k & 1 for r in ins.regs}) > 1 for ins in side.instrs)


# ------------------------------------------------------------------------------------------- two-step plans
def staging_layout(dist: LinearLayout, s: LinearLayout, dt: DType, tgt: Target, cap: int) -> LinearLayout | None:
    """Q: D's warp bits; registers first hold S's lowest offsets (up to ``cap`` contiguous bytes, as far as they are
    single tensor bits outside D's warps: Q must be a distributed layout with D's warps), then lanes take logical
    bits whose offsets land in distinct bank groups of one phase (conflict-free), then the rest go to registers.
    None when too few bits are left for the lanes."""
    hw = Hw.of(dist)
    scols = list(s.flat_cols("offset"))
    inv = [f2.solve(scols, 1 << i) for i in range(len(scols))]
    free = [1 << i for i in range(hw.nbits) if (1 << i) not in set(hw.warp)]
    vec: list[int] = []
    for c in scols[: (cap // dt.bytes).bit_length() - 1]:
        if c not in free:
            break
        vec.append(c)
    if len(free) < len(vec) + tgt.lane_bits:
        return None
    rest = sorted((c for c in free if c not in vec), key=lambda c: _offset_of(c, inv))  # S's offset order
    low = len(vec)  # offset bits inside one access
    per = tgt.phase_lanes(dt.bytes << low).bit_length() - 1  # lane bits of one phase
    bank_bits = (tgt.wavefront_bytes // dt.bytes).bit_length() - 1  # offset bits inside one wavefront
    lanes: list[int] = []
    seen: list[int] = []
    for c in rest:
        if len(lanes) == per:
            break
        group = (_offset_of(c, inv) >> low) & ((1 << (bank_bits - low)) - 1)
        if group and not f2.contains(f2.reduce(seen), group):
            lanes.append(c)
            seen.append(group)
    rest = [c for c in rest if c not in lanes]
    lanes += rest[: tgt.lane_bits - len(lanes)]
    return _with_hw(dist, vec + [c for c in rest if c not in lanes], lanes)


def _offset_of(c: int, inv: list[int]) -> int:
    return f2.combine(c, inv)


def _coords(flat: int, lay: LinearLayout) -> list[int]:
    from llgen.core.layout import unflatten

    return list(unflatten(flat, lay.outs))


def _two_step(end: _Endpoint, dist: LinearLayout, with_chain: bool = False) -> EndpointPlan | None:
    """Access S in Q and convert Q <-> D inside each warp: Q from `staging_layout`, converted by registers or
    shuffles, or (``with_chain``) Q from `_swap_chain`, converted one register <-> lane swap at a time; the cheaper.
    The chain is offered where a two-step plan is asked for (the bench's two-step variant measures it), not to the
    default pick: in the mixed suite's LOOP, beside an upcast, it measured slower than the direct plan
    (docs/design.md §11.2)."""
    from llgen.plan import plan_conversion

    dt, tgt = end.dt, end.tgt
    best = None
    q = staging_layout(dist, end.s, dt, tgt, _access_cap(end.enc, dt, tgt))
    if q is not None:
        access = _direct(end, q, "Q")
        a, b = (dist, q) if end.store else (q, dist)
        for path in ("registers", "shuffle"):
            try:
                conv = plan_conversion(a, b, dt, tgt, path=path)
            except LlgenError:
                continue
            cost = access.cost + (shuffle_cost(conv.detail, access.warps) if conv.path == "shuffle" else 0.0)
            if best is None or cost < best.cost:
                best = replace(access, dist=dist, staging=q, convert=conv, cost=cost)
    chain = _swap_chain(end, dist) if with_chain else None
    if chain is not None and (best is None or chain.cost < best.cost):
        best = chain
    return best


def _swap_chain(end: _Endpoint, dist: LinearLayout) -> EndpointPlan | None:
    """The two-step plan whose Q is D with registers swapped for D's lanes, one pair at a time, until Q's first
    registers hold S's lowest offsets (up to an access width: the widest S allows, or a narrower one down to a word,
    which needs fewer swaps), each swap one in-warp conversion (llgen.plan.chain); the cheapest over the widths.
    None where none of S's lowest offsets is a lane of D, or no conversion can be planned."""
    best = None
    for width in _widths(_access_cap(end.enc, end.dt, end.tgt), end):
        plan = _swap_chain_at(end, dist, width) if width >= end.tgt.bank_bytes else None
        if plan is not None and (best is None or plan.cost < best.cost):
            best = plan
    return best


def _swap_chain_at(end: _Endpoint, dist: LinearLayout, width: int) -> EndpointPlan | None:
    """`_swap_chain` whose Q holds ``width`` contiguous bytes of S in its first registers."""
    from llgen.plan import plan_conversion
    from llgen.plan.chain import Chain

    dt, tgt = end.dt, end.tgt
    scols = list(end.s.flat_cols("offset"))[: (width // dt.bytes).bit_length() - 1]
    regs, lanes = list(dist.flat_cols("register")), list(dist.flat_cols("lane"))
    want = []
    for c in scols:
        if c not in regs and c not in lanes:
            break
        want.append(c)
    moved = [lanes.index(c) for c in want if c not in regs]  # the lanes that become registers
    givers = [i for i, r in enumerate(regs) if r and r not in want]  # the registers that may become those lanes
    if not moved or len(givers) < len(moved):
        return None
    best = None
    for chosen in itertools.islice(itertools.permutations(givers, len(moved)), 64):
        layouts = _swaps(dist, regs, lanes, list(zip(chosen, moved, strict=True)), want)
        access = _direct(end, layouts[-1], "Q")  # which registers go to the lanes decides the access's banks
        if best is None or access.cost < best[1].cost:
            best = (layouts, access)
    layouts, access = best
    pairs = list(zip(layouts, layouts[1:], strict=False))
    steps = []
    try:
        for d_side, q_side in pairs if end.store else reversed(pairs):
            a, b = (d_side, q_side) if end.store else (q_side, d_side)
            steps.append(plan_conversion(a, b, dt, tgt, path="shuffle"))
    except LlgenError:
        return None
    cost = access.cost + sum(shuffle_cost(s.detail, access.warps) for s in steps if s.path == "shuffle")
    return replace(access, dist=dist, staging=layouts[-1], convert=Chain(tuple(steps)), cost=cost)


def _swaps(dist: LinearLayout, regs: list[int], lanes: list[int], pairs: list[tuple[int, int]], want: list[int]):
    """[D, M1, ..., Q]: D after each (register, lane) swap of ``pairs`` in turn, Q with ``want`` as its first
    registers."""
    regs, lanes = list(regs), list(lanes)
    layouts = [dist]
    for j, lane in pairs:
        regs[j], lanes[lane] = lanes[lane], regs[j]
        layouts.append(_with_hw(dist, regs, lanes))
    layouts[-1] = _with_hw(dist, want + [r for r in regs if r not in want], lanes)  # the access's registers first
    return layouts


def _with_hw(dist: LinearLayout, regs: list[int], lanes: list[int]) -> LinearLayout:
    """D with these register and lane vectors (flat), its warps kept."""
    bases = {
        "register": [_coords(c, dist) for c in regs],
        "lane": [_coords(c, dist) for c in lanes],
        "warp": [list(dist.basis("warp", i)) for i in range(dist.in_bits("warp"))],
        "block": [],
    }
    return LinearLayout.from_bases(bases, [(n, 1 << k) for n, k in dist.outs])
