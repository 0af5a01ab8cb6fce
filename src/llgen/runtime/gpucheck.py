"""`llgen gpu-check` (`make gpu-check`): the GPU is the judge. One command on the GPU machine, under a time budget:

1. correctness: every core-suite case by every valid path (default, shuffle, shared optimal, unswizzled,
   classic, vector-only), then random layout pairs; every slot and replica of B (debug kernel) and every
   output element (stacked-tile kernel) against NumPy, bit for bit, on fresh random input; the gather kernels and
   `llgen bench`'s STREAM and copy kernels too;
2. shared-memory endpoints (stores and loads, src/llgen/runtime/endpoint_gpucheck.py): every shared family against
   real and random distributed layouts and the endpoint suite's plans, store, load and round trip, byte and slot exact;
3. Nsight Compute: shared-memory wavefronts and instructions of every shared-memory debug kernel (one CTA =
   one tile) next to the planner's prediction, then (part endpoint-ncu) those of the endpoint check kernels;
4. compute-sanitizer memcheck, synccheck and racecheck over every suite, gather, STREAM and copy kernel and a
   sample of endpoint kernels (src/llgen/runtime/gpucheck_sanitizer.py).

`--skip endpoints` leaves endpoint kernels out of every part (endpoint-ncu and the sanitizers' sample too).

This module holds the parts but the sanitizers' and runs them in order (main). Each part runs in its own try (and
the tools in their own processes), so one failure loses nothing else; the run's clock and record are a State
(src/llgen/runtime/gpucheck_state.py, its Settings in src/llgen/runtime/gpucheck_settings.py); the report (src/llgen/runtime/gpucheck_report.py:
Settings.prefix + .md and .json, llgen-gpu-check/gpu-check by default, never a tracked report unless asked for) is
rewritten after every part, and copied to $OUT when that is set. A short table is printed last, then the verdict.

Each part gets the share of the budget its expected time is of what is left (gpucheck_settings.expected_seconds). A
part the budget cuts short is INCOMPLETE and says "not finished" with what it did check, unless that already shows
something wrong (FAIL): the budget is never a failure of the code. The verdict is FAIL (exit status 1) if any part
failed, else INCOMPLETE (exit status 4) if any part did not finish, else PASS. The command line is `llgen gpu-check`
(src/llgen/cli/main.py).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import traceback
from pathlib import Path

from llgen.core.errors import LlgenError, error_line
from llgen.runtime import endpoint_cases, endpoint_report
from llgen.runtime import endpoint_gpucheck as epc
from llgen.runtime.cases import ncu_jobs
from llgen.runtime.check import Batching, CheckRuns, check_many
from llgen.runtime.compile import device
from llgen.runtime.gpucheck_kernels import random_list, run_bench_kernels, run_gathers, suite_unique
from llgen.runtime.gpucheck_report import summary_lines, verdict
from llgen.runtime.gpucheck_sanitizer import part_sanitizer
from llgen.runtime.gpucheck_settings import (
    EXIT,
    FAIL,
    INCOMPLETE,
    PARTS,
    PASS,
    SANITIZER_TOOLS,
    SKIP,
    TARGET,
    Settings,
    expected_seconds,
)
from llgen.runtime.gpucheck_state import State, log
from llgen.runtime.ncu import FENCED_MATCH, LAUNCHES, measure, measure_endpoints, tool_path
from llgen.runtime.report import counts


def _git_head() -> str:
    try:
        return (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10, check=False
            ).stdout.strip()
            or "?"
        )
    except (OSError, subprocess.SubprocessError):
        return "?"


# -------------------------------------------------------------------------------------------- parts
def part_correctness(st: State) -> None:
    args = st.args
    uniq, alljobs, skipped = suite_unique()
    st.record["suite_variants"] = {
        "run": [j.label for j in uniq],
        "same_plan": {j.label: j.same_as for j in alljobs if j.same_as},
        "not_valid": skipped,
    }
    log(
        f"correctness: {len(uniq)} suite kernels ({len(alljobs) - len(uniq)} variants repeat a plan, "
        f"{len(skipped)} cannot work), then {args.random} random pairs"
    )
    sms = st.device["sms"]

    def on(bucket):
        def f(r):
            bucket.append(r)
            if not r.ok:
                log(f"  FAIL {r.label}: {r.error or ''} {r.first_bad or ''} {r.first_bad_tile or ''}")

        return f

    runs = CheckRuns(tiles=args.tiles, runs=args.runs)
    check_many([(j.label, j.plan) for j in uniq], how=runs, batching=Batching(16), sms=sms, on_result=on(st.suite_results))
    run_gathers(tiles=args.tiles, on_result=on(st.suite_results))
    run_bench_kernels(on_result=on(st.suite_results), which=args.bench_kernels)
    st.save()
    suite_s = time.monotonic() - st.slot_start  # the suite's kernels run whole: only the random pairs stop at the slot
    rjobs = random_list(args.random, args.seed)
    stop_at = st.slot_start + st.slot
    done = []

    class OutOfTime(Exception):
        pass

    def on_random(r):
        on(st.random_results)(r)
        done.append(r)
        if len(done) % 50 == 0:
            log(f"  random: {len(done)}/{len(rjobs)}")
            st.save()
        if time.monotonic() > stop_at and len(done) < len(rjobs):
            raise OutOfTime

    stopped = False
    try:
        check_many([(j.label, j.plan) for j in rjobs], how=runs, batching=Batching(24, workers=8), sms=sms, on_result=on_random)
    except OutOfTime:
        stopped = True
        log(f"  random: stopped at {len(done)} of {len(rjobs)} pairs (time budget)")
    cs, cr = counts(st.suite_results), counts(st.random_results)
    paths = {}
    for r in st.random_results:
        paths[r.path] = paths.get(r.path, 0) + 1
    st.record["random_paths"] = paths
    failed = cs["failed"] + cr["failed"]
    found = (
        f"{cs['slot_mismatches'] + cr['slot_mismatches']} slot and "
        f"{cs['element_mismatches'] + cr['element_mismatches']} element mismatches, {cs['errors'] + cr['errors']} errors"
    )
    checked = f"{len(done)}/{len(rjobs)} random pairs checked in its {st.slot:.0f} s share of the budget"
    if stopped and not failed:
        status = INCOMPLETE
        detail = f"not finished: {checked}, all exact; suite {cs['kernels']} kernels, all exact"
    else:
        status = PASS if not failed and len(st.random_results) >= min(args.random, 2000) else FAIL
        detail = f"suite {cs['kernels']} kernels / random {cr['kernels']} pairs: {found}" + (
            f" (not finished: {checked})" if stopped else ""
        )
    progress = {"suite_s": round(suite_s, 1), "random_done": len(done), "random_total": len(rjobs)}
    st.part("correctness", status, detail, suite=cs, random=cr, stopped=stopped, **progress)


def part_endpoints(st: State) -> None:
    a = st.args
    notes: list[str] = []
    stop_at = st.slot_start + st.slot
    stopped = []
    log(f"endpoints: the real layouts, the endpoint suite and {a.endpoints} random pairs, {a.runs} run(s) each")

    def out_of_time() -> bool:
        if time.monotonic() > stop_at:
            stopped.append(True)
        return bool(stopped)

    def on(r):
        st.endpoint_results.append(r)
        if not r.ok:
            log(f"  FAIL {r.label}: {r.error or '; '.join(r.mismatches[:2])}")
        if len(st.endpoint_results) % 50 == 0:
            log(f"  endpoints: {len(st.endpoint_results)} cases")
            st.save()

    results = epc.run_cases(
        epc.all_cases(a.endpoints, a.seed, notes), runs=a.runs, seed=a.seed, on_result=on, out_of_time=out_of_time
    )
    why = f"Stopped after {len(results)} cases (time budget): the rest were not drawn." if stopped else ""
    c = endpoint_report.counts(results)
    st.record["endpoints"] = {"counts": c, "by_family": endpoint_report.by_family(results), "notes": notes, "stopped": why}
    groups = {g: sum(r.group == g for r in results) for g in ("real", "suite", "random")}
    if stopped and c["failed"] == 0:
        status = INCOMPLETE
        detail = (
            f"not finished: {c['cases']} cases checked x store, load, round trip in its {st.slot:.0f} s share of the "
            f"budget ({groups['real']} real, {groups['suite']} endpoint suite, {groups['random']}/{a.endpoints} random)"
            + (", all exact" if c["cases"] else "")
            + (f", {c['not_run']} not run" if c["not_run"] else "")
            + "; the rest were not drawn"
        )
    else:
        status = PASS if c["failed"] == 0 else FAIL
        detail = (
            f"{c['cases']} cases x store, load, round trip: {c['mismatches']} mismatches, {c['errors']} errors, "
            f"{c['not_run']} not run" + (f"; not finished: {why}" if why else "")
        )
    st.part("endpoints", status, detail, counts=c, stopped=bool(stopped))


def part_ncu(st: State) -> None:
    a = st.args
    jobs = ncu_jobs(a.random, a.seed, a.ncu_random, TARGET)
    res = measure(
        [(j.name, j.plan) for j in jobs],
        f"llgen.runtime.cases:ncu_plans {a.random} {a.seed} {a.ncu_random} {TARGET}",
        st.slot,
        st.logs,
        TARGET,
        log,
    )
    if res["rc"] is None:
        st.part("ncu", SKIP, res["out"])
        return
    rows = []
    for j in jobs:
        row = dict(res["rows"][j.name])
        row.update({"kernel": j.label, "group": j.group, "dtype": j.plan.dtype.name})
        rows.append(row)
    st.record["ncu_rows"] = rows
    st.record["ncu_metrics"] = res["metrics"]
    n_meas = sum(r_["verdict"] != "not measured" for r_ in rows)
    n_match = sum(r_["verdict"] == "match" for r_ in rows)
    n_unstable = sum(r_["verdict"] == "unstable" for r_ in rows)
    n_fenced = sum(r_["verdict"] == FENCED_MATCH for r_ in rows)
    agree = n_match + n_unstable + n_fenced == n_meas
    status = PASS if n_meas == len(rows) and agree and rows else FAIL
    tail = "" if n_meas else f"; ncu rc {res['rc']}{' (timed out)' if res['timed_out'] else ''}: {res['out']!r}"
    if res["timed_out"] and agree and n_meas < len(rows):  # stopped at its share of the budget: the rest is unknown
        st.part(
            "ncu",
            INCOMPLETE,
            f"not finished: {n_meas}/{len(rows)} shared kernels measured before ncu was stopped at its {st.slot:.0f} s "
            f"share of the budget (rc {res['rc']}), " + ("all as predicted" if n_meas else "none compared"),
            metrics=res["metrics"],
            rc=res["rc"],
            timed_out=True,
        )
        return
    unstable = (
        f", {n_unstable} unstable (identical launches counted differently, at least one exactly as predicted)"
        if n_unstable
        else ""
    ) + (
        f", {n_fenced} over it as emitted and exactly it with a barrier before the slot stores (docs/design.md §7.5)"
        if n_fenced
        else ""
    )
    st.part(
        "ncu",
        status,
        f"{n_match}/{n_meas} measured kernels match the prediction on every launch{unstable} "
        f"({len(rows)} shared kernels x {LAUNCHES} launches, {res['seconds']} s){tail}",
        metrics=res["metrics"],
        rc=res["rc"],
        timed_out=res["timed_out"],
    )


def part_endpoint_ncu(st: State) -> None:
    """The endpoint check kernels of runtime.endpoint_cases.ncu_cases under ncu: each kernel's shared-memory
    wavefronts against its plan's plus the byte loops that fill S and copy it in or out."""
    cases, left = endpoint_cases.ncu_cases()
    items = epc.kernel_items(cases)
    with tempfile.TemporaryDirectory(prefix="llgen-endpoint-ncu-") as tmp:  # not in the logs, which $OUT brings back
        source = epc.save_items(items, Path(tmp) / "items.pickle")
        timeout = max(20.0, st.left_in_slot())
        res = {**measure_endpoints(items, source, timeout, st.logs, log), "timeout": timeout}
    if res["rc"] is None:
        st.part("endpoint-ncu", SKIP, res["out"])
        return
    labels = {f"ep{i}{k}": (c, k) for i, c in enumerate(cases) for k in "sl"}
    rows = []
    for name, _ in items:
        c, k = labels[name]
        rows.append({**res["rows"][name], "kernel": f"{c.label} {'store' if k == 's' else 'load'}", "group": c.group})
    st.record["endpoint_ncu_rows"] = rows
    st.record["endpoint_ncu_left_out"] = left
    n_match = sum(r["verdict"] in ("match", "unstable") for r in rows)
    n_meas = sum(r["verdict"] != "not measured" for r in rows)
    if res["timed_out"] and n_match == n_meas < len(rows):  # stopped at its share of the budget, nothing measured disagrees
        st.part(
            "endpoint-ncu",
            INCOMPLETE,
            f"not finished: {n_meas}/{len(rows)} endpoint check kernels measured before ncu was stopped at its "
            f"{res['timeout']:.0f} s share of the budget (rc {res['rc']}), "
            + ("all as predicted" if n_meas else "none compared"),
            metrics=res["metrics"],
            rc=res["rc"],
            timed_out=True,
        )
        return
    st.part(
        "endpoint-ncu",
        PASS if rows and n_match == len(rows) else FAIL,
        f"{n_match}/{len(rows)} endpoint check kernels match plan + byte loops on every launch ({len(cases)} cases, "
        f"{LAUNCHES} launches each, {res['seconds']} s"
        + (f"; ncu rc {res['rc']}{' (timed out)' if res['timed_out'] else ''}: {res['out']!r}" if res["rc"] else "")
        + ")",
        metrics=res["metrics"],
        rc=res["rc"],
        timed_out=res["timed_out"],
    )


# --------------------------------------------------------------------------------------------- main
def main(settings: Settings) -> int:
    """Run every part not skipped; 0 if all passed. Without CuPy or a GPU: RuntimeUnavailable (one sentence), before
    anything is written."""
    unknown = sorted(settings.skip - set(PARTS))
    if unknown:
        raise LlgenError(f"cannot skip {', '.join(unknown)}: the parts are {', '.join(PARTS)}.")
    dev = device(TARGET).to_json()
    st = State(settings)
    st.device = dev
    log(f"device: {st.device}")
    st.record["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    st.record["tools"] = {t: tool_path(t) for t in ("nvcc", "ncu", "compute-sanitizer")}
    # LLGEN_COMMIT first: the device's copy of the tree may carry a stale .git
    st.record["commit"] = os.environ.get("LLGEN_COMMIT") or _git_head()
    skip = settings.skip | ({"endpoint-ncu"} if "endpoints" in settings.skip else set())
    # each part's share of the time left is its expected time's share of what the parts left expect
    expect = expected_seconds(settings)
    parts = [
        ("correctness", lambda: part_correctness(st)),
        ("endpoints", lambda: part_endpoints(st)),
        ("ncu", lambda: part_ncu(st)),
        ("endpoint-ncu", lambda: part_endpoint_ncu(st)),
    ]
    parts += [(t, lambda t=t: part_sanitizer(st, t)) for t in SANITIZER_TOOLS]
    parts = [p for p in parts if p[0] not in skip] + [p for p in parts if p[0] in skip]
    for i, (name, fn) in enumerate(parts):
        st.share(expect[name], sum(expect[p[0]] for p in parts[i:] if p[0] not in skip))
        if name in skip:
            st.part(name, SKIP, "--skip")
            continue
        if st.left() < 15:
            st.part(name, INCOMPLETE, f"not finished: not started, {max(0.0, st.left()):.0f} s of the budget left", started=False)
            continue
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - one part's failure must not lose the others
            (st.logs / f"{name}-traceback.txt").write_text(traceback.format_exc())
            st.part(name, FAIL, f"crashed: {error_line(e)}")
    st.record["seconds"] = round(time.monotonic() - st.t0, 1)
    st.record["verdict"] = verdict(st)[0]
    st.save()
    log("")
    for line in summary_lines(st):
        log(line)
    log(f"wrote {settings.prefix}.md and .json in {st.record['seconds']} s")
    return EXIT[st.record["verdict"]]
