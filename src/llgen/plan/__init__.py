"""`plan_conversion(A, B, dtype, target, path=None) -> Plan`: how a tile moves from A to B.

The kinds of plan, cheapest first (docs/design.md §3): no-op, register permutation, warp
shuffle, shared memory. A plan is a frozen record of everything the emitter prints: the conversion (a
shuffle plan's words as built, a shared plan's barrier), how the standalone kernel reads A and writes B in
global memory (vector widths, whole words or elements), the scratch and launch bounds its kernels declare,
and, for a plan that uses stmatrix, the same conversion planned for sm_80 (a header must build there too).
Nothing is decided after planning: the emitter imports only the planner's data types
(tests/test_emit_imports.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from typing import ClassVar

from llgen.core.dtypes import DType
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.options import DEFAULTS, Options
from llgen.core.target import Target
from llgen.core.target import target as to_target
from llgen.core.vocab import PATHS as VOCAB_PATHS
from llgen.plan.cost import choose_path, shared_cost, shuffle_cost
from llgen.plan.hw import Hw
from llgen.plan.io import GlobalIO, global_io
from llgen.plan.latency import shared_latency, shuffle_latency
from llgen.plan.pairing import free_order, reordered, word_bits
from llgen.plan.shared import Barrier, SharedPlan, interleaved_rounds, plan_shared
from llgen.plan.shuffle import ShufflePlan, plan_shuffle

# The kinds of plan, cheapest first (llgen.core.vocab.PATHS; str-valued: JSON and the templates read them as text)
Path = StrEnum("Path", [(p.upper(), p) for p in VOCAB_PATHS], module=__name__)
PATHS = tuple(Path)


@dataclass(frozen=True)
class RegisterPlan:
    """out[j] = in[perm[j]] with compile-time indices."""

    kind = "registers"
    perm: tuple[int, ...]


@dataclass(frozen=True)
class Plan:
    kind: ClassVar[str] = "conversion"  # llgen.plan.kinds.PlanKind: which emitter spells it
    src: LinearLayout
    dst: LinearLayout
    dtype: DType
    target: Target
    path: Path
    detail: RegisterPlan | ShufflePlan | SharedPlan
    warps: int
    n_in: int  # registers per thread in A
    n_out: int  # registers per thread in B
    out_copies: tuple[tuple[int, int], ...]  # (j, k): out[j] = out[k], B's register replicas
    costs: tuple[tuple[str, float], ...]  # the cost model's throughput cycles for each valid path (cost.py)
    why: str  # one sentence: why this path
    global_load: GlobalIO  # how the kernels read A's registers from a row-major tile
    global_store: GlobalIO  # how they write B's registers (one replica writes)
    fallback: Plan | None = None  # for a plan with stmatrix: the same conversion planned for sm_80
    latencies: tuple[tuple[str, float], ...] = ()  # one CTA's latency in cycles for each valid path (latency.py)
    options: Options = DEFAULTS  # what it was planned as: the pick's objective, a forced path, the scratch budget, ...
    # free pairing (plan/pairing.py): the asked layouts' register bits in the order src and dst hold them; None: as asked
    register_order: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    @property
    def objective(self) -> str:
        """What the path was picked for: throughput or latency (llgen.core.vocab.OBJECTIVES)."""
        return self.options.objective

    @property
    def uses_shared(self) -> bool:
        return self.path == Path.SHARED

    @property
    def permutes_registers(self) -> bool:
        """A no-op or a register permutation: every thread already holds what it needs."""
        return self.path in (Path.NOOP, Path.REGISTERS)

    @property
    def uses_stmatrix(self) -> bool:
        return self.uses_shared and self.detail.store.op.startswith("stmatrix")

    @property
    def lanes(self) -> int:
        return self.target.lanes

    @property
    def scratch_bytes(self) -> int:
        """Shared memory this plan's conversion uses (0 off the shared path)."""
        return self.detail.scratch_bytes if self.uses_shared else 0

    @property
    def smem_bytes(self) -> int:
        """The scratch a header declares (kSmemBytes): this plan's, or its sm_80 fallback's where that is larger."""
        return max(self.scratch_bytes, self.fallback.scratch_bytes if self.fallback else 0)

    @property
    def dynamic_smem(self) -> bool:
        """Whether the standalone kernels take their scratch as dynamic shared memory: over a static array's limit
        (they declare it extern and need the opt-in attribute)."""
        return self.smem_bytes > self.target.static_smem

    @property
    def min_ctas(self) -> int:
        """The standalone kernels' __launch_bounds__ minimum of CTAs per SM (0: none). Without one ptxas budgets
        registers for an occupancy it guesses, and can spill where a thread holds many registers; with dynamic
        scratch it cannot see how few CTAs fit, so those that fit tell it (bench/NOTES.md). HIP's second bound would
        mean waves per EU, and the reason is ptxas's: none there."""
        if self.target.is_hip:
            return 0
        return max(1, self.target.smem_per_cta // self.smem_bytes) if self.dynamic_smem else 1

    @property
    def barrier(self) -> Barrier:
        """What orders the conversion's shared-memory accesses: none without shared memory (SharedPlan.barrier)."""
        return self.detail.barrier if self.uses_shared else Barrier.NONE

    @property
    def warp_regions(self):
        """Which warp owns each byte of a warp-local plan's scratch, None for any other plan: its tag in the
        scratch rule (scratch.py)."""
        from llgen.plan.scratch import warp_regions

        return warp_regions(self)

    @property
    def pairing_text(self) -> str | None:
        """Free pairing's words in one sentence, None for natural ones (the header says it, `llgen plan` too)."""
        from llgen.plan.explain import pairing_text

        return pairing_text(self)

    def explain(self) -> str:
        from llgen.plan.explain import explain

        return explain(self)

    def to_json(self) -> dict:
        from llgen.plan.explain import to_json

        return to_json(self)


# Each of a pair's plans checks it again; a pair that passes passes every time (what raises is not cached)
@lru_cache(maxsize=8)
def check_pair(a: LinearLayout, b: LinearLayout, tgt: Target) -> None:
    """Reject pairs no plan can convert, with one sentence each."""
    if a.outs != b.outs:
        raise LlgenError(
            f"the layouts cover different tensors: { {n: 1 << k for n, k in a.outs} } vs { {n: 1 << k for n, k in b.outs} }."
        )
    for lay, side in ((a, "source"), (b, "destination")):
        if "offset" in lay.in_names:
            raise LlgenError(
                f"the {side} layout is a shared-memory layout (in-dims {', '.join(lay.in_names)}); llgen converts "
                "between distributed (register) layouts only."
            )
    if a.in_size("warp") != b.in_size("warp"):
        raise LlgenError(f"the layouts use different warp counts: {a.in_size('warp')} vs {b.in_size('warp')}.")
    for lay, side in ((a, "source"), (b, "destination")):
        if lay.in_size("lane") != tgt.lanes:
            raise LlgenError(f"the {side} layout has {lay.in_size('lane')} lanes but {tgt.name} warps have {tgt.lanes}.")
    if not b.is_surjective():
        raise LlgenError("the destination layout is not surjective: some elements have no home in it.")
    if not a.is_surjective():
        raise LlgenError("the source layout is not surjective: it does not hold every element of the tensor.")
    for lay, side in ((a, "source"), (b, "destination")):
        check_distributed(lay, side)


def check_distributed(lay: LinearLayout, side: str) -> None:
    """Refuse a layout outside the distributed definition (each basis one tensor bit or zero, no two non-zero
    bases alike): the planner's replica rules (zero bases are replicas, one replica stores) assume it."""
    seen: dict[int, tuple[str, int]] = {}
    for name in lay.in_names:
        for i, c in enumerate(lay.flat_cols(name)):
            if c & (c - 1) or c in seen:
                where = f"{name} basis {i} {list(lay.basis(name, i))}"
                if c & (c - 1):
                    raise LlgenError(f"the {side} layout is not a distributed layout: its {where} has several bits set.")
                other = seen[c]
                raise LlgenError(
                    f"the {side} layout is not a distributed layout: its {where} repeats {other[0]} basis {other[1]}."
                )
            if c:
                seen[c] = (name, i)


def plan_conversion(
    a: LinearLayout,
    b: LinearLayout,
    dtype: str | DType = "f16",
    target: str | Target = "sm_90",
    path: str | None = None,
    **choices,
) -> Plan:
    """Plan the conversion of a tile held in layout ``a`` into layout ``b``, as ``options`` (llgen.core.options.Options)
    say, or as keyword choices of the same names: ``path`` forces "shuffle" or "shared" (for benchmarks and tests; a
    forced path that cannot work raises LlgenError saying why); ``swizzle`` (optimal | unswizzled | classic),
    ``matrix`` (allow ldmatrix/stmatrix), ``scalar`` (one element per access) and ``one_sided`` (let one side's own
    registers widen its accesses, docs/design.md §6.1) shape shared plans, for the baselines and for comparing
    memory layouts at one access width; ``smem_budget`` caps the scratch; ``objective`` picks the path by the cost
    model's throughput (many CTAs hide each other's latency) or by one CTA's latency (a conversion that runs alone)."""
    options = choices.pop("options", None)
    if options is None:
        options = Options.of(path=path, **choices)
    elif path is not None or choices:
        raise LlgenError("give the plan options as one Options or as keywords, not both.")
    dt, tgt = to_dtype(dtype), to_target(target)
    if dt.sub_byte:  # two elements to a byte: the byte plan of the pairs, or of the widened nibbles
        if options.pairing != "natural":
            raise LlgenError(
                f"--pairing {options.pairing} is for 8- and 16-bit elements; {dt.name}'s bytes pair as its packed plan "
                "says (docs/four-bit.md)."
            )
        from llgen.plan.packed import BYTES, plan_packed

        check_pair(a, b, tgt)
        return plan_packed(a, b, dt, lambda x, y: _plan(x, y, BYTES, tgt, options))
    if options.pairing == "free" and word_bits(dt):
        check_pair(a, b, tgt)
        return _free_paired(a, b, dt, tgt, options)
    return _plan(a, b, dt, tgt, options)


def _free_paired(a: LinearLayout, b: LinearLayout, dt: DType, tgt: Target, options: Options) -> Plan:
    """Free pairing (plan/pairing.py): the plan of the reordered layouts where a round trip A -> B -> A so takes no
    more shared-memory or shuffle instructions and the latency model, the one that prices byte permutes, finds it
    no dearer, or where only it can take a forced path; else the natural words' (its register_order the identity:
    asked, and kept). Both directions decide alike, so a round trip's two plans agree on B's order."""
    order = free_order(a, b, dt)
    keep = (tuple(range(a.in_bits("register"))), tuple(range(b.in_bits("register"))))
    if order is None:  # the natural words already agree, or too few tensor bits are register bits of both
        return replace(_plan(a, b, dt, tgt, options), register_order=keep)
    a2, b2 = reordered(a, order[0]), reordered(b, order[1])
    natural, free = _attempt(a, b, dt, tgt, options), _attempt(a2, b2, dt, tgt, options)
    if isinstance(natural, LlgenError) and isinstance(free, LlgenError):
        raise natural
    if isinstance(free, LlgenError) or isinstance(natural, LlgenError):  # a forced path only one of them can take
        return replace(natural, register_order=keep) if isinstance(free, LlgenError) else replace(free, register_order=order)

    def round_trip(fwd: Plan, src: LinearLayout, dst: LinearLayout) -> tuple[int, float]:
        """(accesses a thread, the latency model's cycles) of fwd and its way back (by any path, where the way back
        cannot take a forced one)."""
        back = _attempt(dst, src, dt, tgt, options)
        both = (fwd, _plan(dst, src, dt, tgt, replace(options, path=None)) if isinstance(back, LlgenError) else back)
        return sum(map(_accesses, both)), sum(dict(p.latencies).get(p.path, 0.0) for p in both)

    (free_acc, free_lat), (nat_acc, nat_lat) = round_trip(free, a2, b2), round_trip(natural, a, b)
    if free_acc <= nat_acc and free_lat <= nat_lat:  # a tie: the model sees no difference, and free adds no access
        return replace(free, register_order=order)
    return replace(natural, register_order=keep)


def _attempt(a: LinearLayout, b: LinearLayout, dt: DType, tgt: Target, options: Options) -> Plan | LlgenError:
    """The plan, or the error that says why there is none (a forced path it cannot take)."""
    try:
        return _plan(a, b, dt, tgt, options)
    except LlgenError as e:
        return e


def _plan(a: LinearLayout, b: LinearLayout, dt: DType, tgt: Target, options: Options) -> Plan:
    path, smem_budget = options.path, options.smem_budget
    if smem_budget is not None and not 0 < smem_budget <= tgt.smem_per_cta:
        raise LlgenError(
            f"the shared-memory budget {smem_budget} must be between 1 and {tgt.name}'s {tgt.smem_per_cta} bytes per CTA."
        )
    check_pair(a, b, tgt)
    ha, hb = Hw.of(a), Hw.of(b)
    warps = a.in_size("warp")
    copies = _replica_copies(hb)
    common = {
        "src": a,
        "dst": b,
        "dtype": dt,
        "target": tgt,
        "warps": warps,
        "n_in": a.in_size("register"),
        "n_out": b.in_size("register"),
        "out_copies": copies,
        "global_load": global_io(a, dt, tgt),
        "global_store": global_io(b, dt, tgt),
        "options": options,
    }

    if path in (None, "noop", "registers"):
        perm = _register_perm(ha, hb)
        if perm is not None:
            kind = "noop" if perm == tuple(range(len(perm))) and len(ha.reg) == len(hb.reg) else "registers"
            if path in (None, kind) or (path == "registers" and kind == "noop"):
                why = "A and B are the same map" if kind == "noop" else "every thread already holds what it needs"
                return Plan(path=Path(kind), detail=RegisterPlan(perm), costs=(), why=why, **common)
        if path is not None:
            raise LlgenError(f"the {path} path cannot do this conversion: threads need elements other threads hold.")

    costs, latencies = [], []
    shuffle = None
    if path in (None, "shuffle"):
        res = _shuffle_option(ha, hb, dt, tgt, warps)
        if isinstance(res, str):
            if path == "shuffle":
                raise LlgenError(f"the shuffle path cannot do this conversion: {res}.")
        else:
            shuffle = res[0]
            costs.append(("shuffle", res[1]))
            latencies.append(("shuffle", res[2]))
    shared = None
    if path in (None, "shared"):
        bits = b.out_bits(b.out_names[-1])
        shared, cost, latency = _shared_option(ha, hb, dt, tgt, bits, options)
        costs.append(("shared", cost))
        latencies.append(("shared", latency))
    kind, why = choose_path(dict(costs), forced=path, objective=options.objective, latencies=dict(latencies))
    detail = shuffle if kind == "shuffle" else shared
    plan = Plan(path=Path(kind), detail=detail, costs=tuple(costs), latencies=tuple(latencies), why=why, **common)
    if plan.uses_stmatrix:  # headers build for sm_80 too, where there is no stmatrix
        old = to_target("sm_80")
        budget = min(smem_budget or old.smem_per_cta, old.smem_per_cta)
        fallback = _plan(a, b, dt, old, replace(options, path=kind, smem_budget=budget))
        plan = replace(plan, fallback=fallback)
    return plan


def _accesses(plan: Plan) -> int:
    """A thread's shared-memory instructions (shared) or shuffles (shuffle) for one conversion; 0 in registers."""
    if plan.uses_shared:
        return len(plan.detail.store.instrs) + len(plan.detail.load.instrs)
    return plan.detail.shuffles if plan.path == Path.SHUFFLE else 0


# An unforced plan and the same pair's forced plans (tests, bench variants, a header's sm_80 fallback) plan the same
# candidates: the planner is pure, so the last few are kept.
@lru_cache(maxsize=8)
def _shuffle_option(ha: Hw, hb: Hw, dt: DType, tgt: Target, warps: int) -> tuple[ShufflePlan, float, float] | str:
    """The shuffle plan with its throughput cost and latency, or why there is none."""
    res = plan_shuffle(ha, hb, dt, tgt)
    return res if isinstance(res, str) else (res, shuffle_cost(res, warps), shuffle_latency(res, warps))


@lru_cache(maxsize=8)
def _shared_option(ha: Hw, hb: Hw, dt: DType, tgt: Target, bits: int, options: Options) -> tuple[SharedPlan, float, float]:
    """The shared-memory plan with its throughput cost and latency. A warp-local plan is split into the rounds (1, 2, 4
    or 8: as many as keep its accesses) the latency model expects soonest done: behind __syncwarp a round's loads
    follow its own stores, which measured faster at one CTA on 34 of 38 warp-local cases and no slower for throughput
    (1.4% faster on the geometric mean, the worst 1.9% slower; bench/NOTES.md). The baselines (unswizzled,
    classic, naive) keep the textbook single round. For one CTA's latency, plain vectors replace ldmatrix/stmatrix
    tiles where the latency model expects them sooner done: on the six cases where it did, the vectors measured
    faster at one CTA on five (up to 1.12x) and 0.8% slower on the sixth (bench/NOTES.md)."""
    warps = 1 << len(ha.warp)
    plan = plan_shared(ha, hb, dt, tgt, bits, options)
    latency = shared_latency(plan, warps, dt)
    if options.swizzle != "optimal" or options.scalar:
        return plan, shared_cost(plan), latency
    candidates = []
    latency_first = options.objective == "latency"
    if latency_first and options.matrix:
        candidates.append(plan_shared(ha, hb, dt, tgt, bits, replace(options, matrix=False)))
    if plan.barrier == Barrier.WARP:
        # where ldmatrix/stmatrix tiles hold the bits rounds would split on, plain vectors may split further: four
        # warps measured vectors in 4 rounds 2-3% faster than tiles in one (wl4_mma2b_f16, wl4_b2dotA_f16; bench/NOTES.md)
        for tiles in (True, False) if options.matrix else (False,):
            candidates += interleaved_rounds(ha, hb, dt, tgt, bits, replace(options, matrix=tiles))
    for cand in candidates:
        if latency_first or (cand.rounds > plan.rounds and cand.wavefronts == plan.wavefronts):
            cand_latency = shared_latency(cand, warps, dt)
            # for one warp's latency a tie goes to plain vectors (wl1_b2b_i8: 6% faster than its tiles at one CTA, on
            # the H100 and the H200 alike)
            tie_to_vectors = latency_first and warps == 1 and _tiles(plan) and not _tiles(cand)
            if cand_latency < latency or (tie_to_vectors and cand_latency == latency):
                plan, latency = cand, cand_latency
    return plan, shared_cost(plan), latency


def _tiles(plan: SharedPlan) -> bool:
    """Whether a side of ``plan`` moves ldmatrix / stmatrix tiles."""
    return bool(plan.store.matrices or plan.load.matrices)


def _replica_copies(hb: Hw) -> tuple[tuple[int, int], ...]:
    """B registers whose register bits include broadcast bits copy the canonical one."""
    mask = hb.reg_broadcast_mask
    return tuple((j, j & ~mask) for j in range(1 << len(hb.reg)) if j & mask)


def _register_perm(ha: Hw, hb: Hw) -> tuple[int, ...] | None:
    """out[j] = in[perm[j]] when lanes and warps agree and A's registers hold B's."""
    from llgen.core import f2

    if ha.lane != hb.lane or ha.warp != hb.warp:
        return None
    perm = f2.solve_each(list(ha.reg), f2.span(hb.reg))  # B register j holds element span(hb.reg)[j]
    return None if None in perm else tuple(perm)
