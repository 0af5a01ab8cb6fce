"""The calibration table: per case and variant, both objectives as a GPU run measured them (LOOP
per-SM ns for throughput, one-CTA LOOP ns for latency) and both models' predictions for the same two plans (cycles:
src/llgen/plan/cost.py, src/llgen/plan/latency.py). tests/test_calibration.py re-plans every row with the current models
and holds each model's order of a case's variants to the measured order of its objective; a measured gap under TIE
is a tie, which any prediction matches. The table's "unexplained" list names the cases a model still orders
wrongly (an entry's "objective", throughput where it names none), each with what was measured (bench/NOTES.md); the
test fails on any other, and on an entry the model no longer gets wrong.

A row names its plans by their kinds, one per direction (A -> B, B -> A): the forced path that plans it
(llgen.plan.variants.ALTERNATIVES: registers, shuffle, shared, shared_vec), or the baseline (naive, classic). llgen's
picks are among those each way, so a row stays meaningful when a new model picks differently. The baselines are rows
too: older reports timed one CTA for the pick and the baselines only, and those give the latency order.

Write the table from a bench report: llgen bench calibrate bench/report.json -o tests/data/calibration.json
"""

from __future__ import annotations

import json
from functools import cache
from itertools import combinations
from pathlib import Path

from llgen.cases.suite import suite as suite_cases
from llgen.cases.suite import suite_name
from llgen.core.errors import LlgenError
from llgen.core.files import write_atomic
from llgen.plan import plan_conversion
from llgen.plan.variants import BASELINES, OPTIONS, OWN, case_options, plan_cost, plan_latency, variant_table
from llgen.runtime.bench.rules import TIE

MEASURED = {"throughput": "loop_ns", "latency": "lat_ns"}  # a row's measurement of each objective
PREDICTED = {"throughput": "cost_pred", "latency": "lat_pred"}  # and its model's cycles
VARIANTS = OWN + tuple(n for n, _ in BASELINES)  # what becomes a row: llgen's variants and the baselines


def rows_of(report: dict, target: str = "sm_90") -> tuple[list[dict], list[str]]:
    """(rows, notes): one row per case and distinct variant with a LOOP time, with its one-CTA time where the run
    measured one. An older report without the variants' kinds gets them by re-planning each variant by its
    name; a variant whose re-planned path is not the measured one is left out, with a note."""
    rows, notes = [], []
    for c in report["cases"]:
        # endpoints through a fixed S: their own model and report (endpoint_suite_report.py)
        if suite_name(c.get("suite") or "") == "endpoint":
            continue
        measured = {
            n: r for n, r in c.get("variants", {}).items() if n in VARIANTS and r.get("loop_per_sm_ns") and not r.get("error")
        }
        if not measured:
            continue
        replanned = None
        for name, r in measured.items():
            kinds = r.get("kinds")
            if not kinds:
                if replanned is None:
                    replanned = _replan(c, target)
                v = replanned.get(name)
                if v is None or f"{v.fwd.path}/{v.bwd.path}" != r.get("path"):
                    notes.append(f"{c['id']} / {name}: left out, its plans today are not the measured {r.get('path')}")
                    continue
                kinds = list(v.kinds)
            rows.append(
                {
                    "suite": c.get("suite") or "core",
                    "case": c["id"],
                    "variant": name,
                    "kinds": list(kinds),
                    "path": r.get("path"),
                    "loop_ns": round(r["loop_per_sm_ns"], 3),
                    "cost_pred": r.get("cost_pred"),
                }
                | ({"lat_ns": round(r["loop_lat_ns"], 3), "lat_pred": r.get("lat_pred")} if r.get("loop_lat_ns") else {})
            )
    return rows, notes


def _replan(c: dict, target: str) -> dict:
    try:
        case = find_case(c.get("suite") or "core", c["id"])
        return {v.name: v for v in variant_table(case, target)[0]}
    except LlgenError:
        return {}


@cache
def _cases_by_id(suite: str) -> dict:
    """The suite's cases by id, built once (building a suite parses every layout: a table looks up each row)."""
    return {c.id: c for c in suite_cases(suite)}


def find_case(suite: str, case_id: str):
    case = _cases_by_id(suite).get(case_id)
    if case is None:
        raise LlgenError(f"case {case_id} is not in suite {suite}.")
    return case


def case_plans(case, kinds, target: str = "sm_90") -> tuple:
    """The case's two plans of these kinds: A -> B planned as kinds[0], B -> A as kinds[1]."""
    pairs = ((case.src, case.dst), (case.dst, case.src))
    return tuple(
        plan_conversion(s, d, case.dtype, target, **{**OPTIONS[kind], **case_options(case)})
        for (s, d), kind in zip(pairs, kinds, strict=True)
    )


def cycles(plans, objective: str = "throughput") -> float:
    """The objective's model's cycles for ``plans``: the cost model's for throughput, the latency model's for latency."""
    model = plan_cost if objective == "throughput" else plan_latency
    return sum((model(p) for p in plans), 0.0)


def write_table(report: dict, out: str, target: str = "sm_90") -> str:
    """The calibration table of ``report`` (with each row's prediction by today's model) written to ``out``."""
    rows, notes = rows_of(report, target)
    for r in rows:
        plans = case_plans(find_case(r["suite"], r["case"]), r["kinds"], target)
        for objective, key in PREDICTED.items():
            if MEASURED[objective] in r:
                r[key] = round(cycles(plans, objective), 1)
    info = report.get("info", {})
    try:  # the cases the model is known to order wrongly, each with what was measured, stay with the table
        unexplained = json.loads(Path(out).read_text()).get("unexplained", [])
    except (OSError, ValueError):
        unexplained = []
    table = {
        "about": "LOOP per-SM ns per conversion (loop_ns) and one CTA's LOOP ns (lat_ns) measured by llgen bench, and the "
        "cost model's and the latency model's cycles for the same plans (cost_pred, lat_pred); tests/test_calibration.py "
        "holds each model's order to the measured one (src/llgen/runtime/bench/calibration.py)",
        "source": {k: info.get(k) for k in ("device", "date", "date_end", "commit", "nvrtc")},
        "target": target,
        "tie": TIE,
        "notes": notes,
        "unexplained": unexplained,
        "rows": rows,
    }
    write_atomic(out, json.dumps(table, indent=1) + "\n", make_dirs=True)
    return out


def order_mismatches(rows: list[dict], predict, tie: float = TIE, objective: str = "throughput") -> list[str]:
    """Pairs of one case's variants whose measured order of the objective (a gap over ``tie``) the prediction does not
    give: the faster one must not be predicted dearer. ``predict(row)`` is the objective's model's cycles for a row;
    rows without the objective's measurement are not ordered."""
    key = MEASURED[objective]
    by_case: dict = {}
    for r in rows:
        if key in r:
            by_case.setdefault((r["suite"], r["case"]), []).append(r)
    form, model = (" one CTA", "latency model") if objective == "latency" else ("", "model")
    out = []
    for (_, case), rs in by_case.items():
        cost = {id(r): predict(r) for r in rs}
        for a, b in combinations(rs, 2):
            fast, slow = (a, b) if a[key] <= b[key] else (b, a)
            if slow[key] <= fast[key] * tie:
                continue
            # equal costs are the model declining to rank (ldmatrix/stmatrix against plain vectors: the same
            # wavefronts); the planner's tie-break decides those, and bench/NOTES.md counts how it fares
            if cost[id(fast)] > cost[id(slow)]:
                out.append(
                    f"{case}: {fast['variant']} ({'/'.join(fast['kinds'])}) measured {fast[key]:.1f} ns < "
                    f"{slow['variant']} ({'/'.join(slow['kinds'])}) {slow[key]:.1f} ns{form}, but the {model} predicts "
                    f"{cost[id(fast)]:.0f} vs {cost[id(slow)]:.0f} cycles"
                )
    return out
