"""The named variants of a conversion: the planner's pick and each option set that forces another plan.

One name means one option set everywhere: `llgen check` and gpu-check run CHECKED (every valid path), `llgen
bench` measures the pick and the latency objective's pick (LATENCY_PICK) against ALTERNATIVES (every path the
planner could have picked) and BASELINES (the kernels the picks are compared with), and the calibration table names
its rows' plans by ALTERNATIVES. `variant_table` plans a case both ways by each of them and drops what cannot work
or repeats a plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from llgen.core.errors import LlgenError
from llgen.plan import plan_conversion

PICK = "llgen"  # the planner's own choice: no options
LATENCY_PICK = "llgen_latency"  # its choice for one CTA's latency (--objective latency)
PICKS = (PICK, LATENCY_PICK)
OPTIONS: dict[str, dict] = {
    PICK: {},
    LATENCY_PICK: {"objective": "latency"},
    "registers": {"path": "registers"},
    "shuffle": {"path": "shuffle"},
    "shared": {"path": "shared"},  # ldmatrix / stmatrix where they fit
    "shared_vec": {"path": "shared", "matrix": False},  # vector ld/st.shared only
    "unswizzled": {"path": "shared", "swizzle": "unswizzled"},
    "classic_matrix": {"path": "shared", "swizzle": "classic"},
    "classic": {"path": "shared", "swizzle": "classic", "matrix": False},
    "naive": {"path": "shared", "swizzle": "unswizzled", "scalar": True},
    # the picks with free pairing (plan/pairing.py): both sides' registers reordered so no word is rebuilt
    "llgen_free": {"pairing": "free"},
    "llgen_latency_free": {"pairing": "free", "objective": "latency"},
}


def _named(*names: str) -> tuple[tuple[str, dict], ...]:
    return tuple((n, OPTIONS[n]) for n in names)


CHECKED = _named(PICK, "shuffle", "shared", "unswizzled", "classic_matrix", "shared_vec", "naive", "llgen_free")
ALTERNATIVES = _named("registers", "shuffle", "shared", "shared_vec")
BASELINES = _named("naive", "classic")
# other words, not other paths: timed beside the picks where they differ (a pair whose natural words agree has none)
FREE_PAIRING = _named("llgen_free", "llgen_latency_free")
OWN = PICKS + tuple(n for n, _ in ALTERNATIVES)  # llgen's own paths; the baselines are not
LLGEN = OWN + tuple(n for n, _ in FREE_PAIRING)  # every kernel llgen would emit: what must never spill


@dataclass
class Variant:
    name: str
    fwd: object
    bwd: object
    kinds: tuple[str, str] = ("", "")  # the alternative each direction's plan is (A -> B, B -> A)
    same_as: list[str] = field(default_factory=list)  # alternatives whose kernels are these (not run again)

    @property
    def is_pick(self) -> bool:
        """Whether these are the kernels of one of the planner's picks (throughput or latency)."""
        return any(n in PICKS for n in (self.name, *self.same_as))


def case_options(case, options: dict | None = None) -> dict:
    """Plan options for a case: its own shared-memory budget (Case.smem_budget), then the run's (they win)."""
    out = {"smem_budget": case.smem_budget} if getattr(case, "smem_budget", None) else {}
    out.update(options or {})
    return out


def plan_key(plan) -> tuple:
    """What makes two plans the same kernels."""
    return (plan.path, plan.detail, plan.out_copies)


def plan_cost(plan) -> float:
    """The cost model's cycles for one plan, as the planner recorded them for its path (cost.py): 0 for a register
    permutation."""
    return dict(plan.costs).get(plan.path, 0.0)


def plan_latency(plan) -> float:
    """The latency model's cycles for one CTA to run one plan (latency.py), as the planner recorded them for its path:
    0 for a register permutation."""
    return dict(plan.latencies).get(plan.path, 0.0)


def variant_table(case, target: str, options: dict | None = None, baselines: bool = True) -> tuple[list[Variant], dict]:
    """(variants, skipped): llgen's pick, then each alternative and baseline that plans both directions and differs
    from every earlier variant; ``skipped`` maps every other name to why. ``options`` go to every plan."""
    opts = case_options(case, options)

    def plan(kw: dict) -> tuple:
        """Both directions planned with ``kw``: each a Plan, or the reason it cannot be."""
        out = []
        for tag, (s, d) in (("A -> B", (case.src, case.dst)), ("B -> A", (case.dst, case.src))):
            try:
                out.append(plan_conversion(s, d, case.dtype, target, **{**kw, **opts}))
            except LlgenError as e:
                out.append(f"{tag}: {e}")
        return tuple(out)

    # the latency pick after the alternatives: where it is one of them (the common case), that row keeps its name
    later = ((LATENCY_PICK, OPTIONS[LATENCY_PICK]),) + FREE_PAIRING + (BASELINES if baselines else ())
    named = [(PICK, plan({}))] + [(n, plan(kw)) for n, kw in ALTERNATIVES + later]
    if isinstance(named[0][1][0], str) or isinstance(named[0][1][1], str):
        raise LlgenError(f"llgen cannot plan {case.id}: {next(p for p in named[0][1] if isinstance(p, str))}")
    alternatives = named[1 : 1 + len(ALTERNATIVES)]

    def kind(plan, side: int) -> str:
        """The first alternative whose plan of this direction is this plan (a baseline is its own kind)."""
        key = plan_key(plan)
        for n, ps in alternatives:
            if not isinstance(ps[side], str) and plan_key(ps[side]) == key:
                return n
        return "?"

    out, skipped, seen = [], {}, {}
    for name, (f, b) in named:
        if isinstance(f, str) or isinstance(b, str):
            skipped[name] = f if isinstance(f, str) else b
            continue
        key = (plan_key(f), plan_key(b))
        if key in seen:
            skipped[name] = f"the same kernels as {seen[key].name}"
            seen[key].same_as.append(name)
            continue
        kinds = (kind(f, 0), kind(b, 1)) if name not in dict(BASELINES + FREE_PAIRING) else (name, name)
        seen[key] = Variant(name, f, b, kinds=kinds)
        out.append(seen[key])
    return out, skipped


def variants(case, target: str, options: dict | None = None, baselines: bool = True) -> list[Variant]:
    """llgen's own choice and every alternative and baseline that is valid for the case (see variant_table)."""
    return variant_table(case, target, options, baselines)[0]
