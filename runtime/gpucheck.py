"""`llgen gpu-check` (`make gpu-check`): the GPU is the judge. One command on the GPU machine, under a time budget:

1. correctness: every core-suite case by every valid path (default, shuffle, shared optimal, unswizzled,
   classic, vector-only), then random layout pairs; every slot and replica of B (debug kernel) and every
   output element (stacked-tile kernel) against NumPy, bit for bit, on fresh random input; the gather kernels and
   `llgen bench`'s STREAM and copy kernels too;
2. shared-memory endpoints (local_store / local_load, runtime/endpoint_gpucheck.py): every shared family against
   real and random distributed layouts and the smem suite's plans, store, load and round trip, byte and slot exact;
3. Nsight Compute: shared-memory wavefronts and instructions of every shared-memory debug kernel (one CTA =
   one tile) next to the planner's prediction, then (part endpoint-ncu) those of the endpoint check kernels;
4. compute-sanitizer memcheck, synccheck and racecheck over every suite, gather, STREAM and copy kernel and a
   sample of endpoint kernels.

`--skip endpoints` leaves endpoint kernels out of every part (endpoint-ncu and the sanitizers' sample too).

Each part runs in its own try (and the tools in their own processes, re-running this module as a worker),
so one failure loses nothing else; the report (Settings.prefix + .md and .json: llgen-gpu-check/gpu-check by
default, never a tracked report unless asked for) is rewritten after every part, and copied to $OUT when that
is set. A short table is printed last; the exit status is 1 if anything failed. The command line is `llgen
gpu-check` (codegen/cli.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from llgen.emit import emit_bench
from llgen.emit.gather import emit_gather
from llgen.errors import LlgenError, error_line
from llgen.plan.benchshape import bench_shape
from llgen.plan.variants import variants
from llgen.runtime import endpoint_gpucheck as epc
from llgen.runtime.cases import gather_plans, ncu_jobs, random_jobs, suite_jobs
from llgen.runtime.check import check_bench, check_gather, check_many
from llgen.runtime.compile import compile as compile_source
from llgen.runtime.compile import device
from llgen.runtime.ncu import INST_LD, INST_ST, LAUNCHES, WF_LD, WF_ST, measure, measure_endpoints, run_proc, tool_path
from llgen.runtime.report import counts, write_report
from llgen.suite import core

TARGET = "sm_90"  # 32-lane NVIDIA: the H100/H200 this runs on

SANITIZER_TOOLS = ("memcheck", "synccheck", "racecheck")
PARTS = ("correctness", "endpoints", "ncu", "endpoint-ncu", *SANITIZER_TOOLS)


@dataclass(frozen=True)
class Settings:
    """What one gpu-check run does (`llgen gpu-check --help` says each)."""

    random: int = 2000  # random pairs of real layouts (runtime.cases.random_jobs)
    sanitize_random: int = 200  # of those, the first N also run under the sanitizers
    seed: int = 5
    tiles: int = 1000  # tiles per tile-kernel run (capped at 4M elements)
    runs: int = 2  # runs per kernel, each on fresh random input
    budget: float = 420  # seconds for the whole run
    ncu_random: int = 24  # random shared-memory pairs also measured by ncu
    endpoints: int = 120  # random shared-memory endpoint pairs (runtime.endpoint_gpucheck.random_cases)
    sanitize_endpoints: int = 24  # of those, the first N also run under the sanitizers
    skip: frozenset[str] = frozenset()  # parts not run (PARTS)
    prefix: str = str(Path("llgen-gpu-check") / "gpu-check")  # the report's path without .md/.json


# ------------------------------------------------------------------------------------------ helpers
def log(msg: str) -> None:
    print(msg, flush=True)


def parse_sanitizer(text: str) -> dict:
    """compute-sanitizer's summary lines: `ERROR SUMMARY: N errors` and racecheck's
    `RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)`."""
    res = {"errors": None, "hazard_errors": None, "hazard_warnings": None, "summary": []}
    for line in text.splitlines():
        m = re.search(r"ERROR SUMMARY:\s*([\d,]+) errors?", line)
        if m:
            res["errors"] = (res["errors"] or 0) + int(m.group(1).replace(",", ""))
            res["summary"].append(line.strip("= ").strip())
        m = re.search(r"RACECHECK SUMMARY:.*?\(([\d,]+) errors?, ([\d,]+) warnings?\)", line)
        if m:
            res["hazard_errors"] = (res["hazard_errors"] or 0) + int(m.group(1).replace(",", ""))
            res["hazard_warnings"] = (res["hazard_warnings"] or 0) + int(m.group(2).replace(",", ""))
            res["summary"].append(line.strip("= ").strip())
    return res


# --------------------------------------------------------------------------------------------- jobs
def suite_unique():
    """Every distinct plan of the core and regressions suites by every valid variant."""
    jobs, skipped = [], []
    for name in ("core", "regressions"):
        j, s = suite_jobs(name, TARGET)
        jobs += j
        skipped += s
    return [j for j in jobs if j.same_as is None], jobs, skipped


def random_list(n: int, seed: int):
    return random_jobs(n, seed, TARGET)


# ------------------------------------------------------------------------------------------ workers
def worker_sanitize(n_random: int, seed: int, sanitize_random: int, sanitize_endpoints: int) -> int:
    """Under compute-sanitizer: every suite kernel's debug and tile kernel (4 tiles on 2 CTAs) and those of the first
    ``sanitize_random`` of the ``n_random`` random pairs, then the GPU cases among the first ``sanitize_endpoints``
    random endpoint pairs (store, load, round trip), no memory pool, so every buffer is its own allocation and an
    access one element past it is caught."""
    import cupy as cp

    cp.cuda.set_allocator(None)
    jobs = suite_unique()[0] + random_list(n_random, seed)[:sanitize_random]
    bad = 0

    def done(r):
        nonlocal bad
        bad += not r.ok
        log(f"worker: {r.label} {'ok' if r.ok else 'FAIL ' + (r.error or str(r.first_bad))}")

    check_many([(j.label, j.plan) for j in jobs], tiles=4, runs=1, batch=16, sms=8, on_result=done)
    gathers = run_gathers(tiles=4, on_result=done)
    benches = run_bench_kernels(on_result=done)

    def done_endpoint(r):
        nonlocal bad
        bad += not r.ok
        log(f"worker: {r.label} " + ("ok" if r.ok and not r.not_run else r.not_run or "FAIL " + (r.error or r.mismatches[0])))

    cases = [c for c in epc.random_cases(sanitize_endpoints, seed) if not c.cpu]
    ends = epc.run_cases(cases, runs=1, seed=seed, on_result=done_endpoint)
    log(f"worker: done {len(jobs) + len(gathers) + len(benches) + len(ends)} kernels, {bad} failed")
    return 1 if bad else 0


def run_gathers(tiles: int, on_result) -> list:
    """The gather kernels (runtime.cases.gather_plans), one NVRTC compile, each checked on fresh input."""
    plans = gather_plans(TARGET)
    mod = compile_source("\n".join(emit_gather(p, "kernel", n) for n, p in plans.items()), TARGET)
    out = []
    for n, p in plans.items():
        r = check_gather(mod, p, n, tiles=tiles)
        r.label = f"gather/{n}"
        out.append(r)
        on_result(r)
    return out


def run_bench_kernels(on_result) -> list:
    """`llgen bench`'s STREAM, copy and LOOP kernels of llgen's pick for every core case, one NVRTC compile: the
    one-warp cases run eight warps per CTA, each on its own scratch, and LOOP gives A -> B and B -> A their own
    scratch with one barrier each, which racecheck must find race-free."""
    picks = {c.id: variants(c, TARGET)[0] for c in core()}
    mod = compile_source("\n".join(emit_bench(v.fwd, v.bwd, k, bench_shape(v.fwd, v.bwd)) for k, v in picks.items()), TARGET)
    out = []
    for k, v in picks.items():
        r = check_bench(mod, v.fwd, v.bwd, k)
        r.label = f"bench/{k}"
        out.append(r)
        on_result(r)
    return out


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
class State:
    def __init__(self, args: Settings):
        self.args = args
        self.t0 = time.monotonic()
        self.deadline = self.t0 + args.budget
        self.slot = args.budget  # seconds the current part may take
        self.slot_start = self.t0
        self.record: dict = {"title": "llgen gpu-check", "parts": {}, "budget_s": args.budget}
        self.suite_results: list = []
        self.random_results: list = []
        self.endpoint_results: list = []
        self.device = None
        self.logs = Path(os.environ["OUT"]) / "gpu-check-logs" if os.environ.get("OUT") else Path("/tmp/llgen-gpu-check-logs")
        self.logs.mkdir(parents=True, exist_ok=True)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def begin(self, remaining_parts: int, weight: float) -> None:
        """Give the next part ``weight`` of a fair share of the time left (never more than is left)."""
        self.slot_start = time.monotonic()
        self.slot = max(15.0, min(self.left(), weight * self.left() / max(1, remaining_parts)))

    def left_in_slot(self) -> float:
        return self.slot - (time.monotonic() - self.slot_start)

    def part(self, name: str, status: str, detail: str, **data) -> None:
        self.record["parts"][name] = {"status": status, "detail": detail, **data}
        log(f"[{time.monotonic() - self.t0:6.1f}s] {name}: {status} - {detail}")
        self.save()

    def save(self) -> None:
        try:
            save_report(self)
        except Exception:  # noqa: BLE001 - a report bug must not stop the run
            traceback.print_exc()


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

    check_many(
        [(j.label, j.plan) for j in uniq], tiles=args.tiles, runs=args.runs, batch=16, sms=sms, on_result=on(st.suite_results)
    )
    run_gathers(tiles=args.tiles, on_result=on(st.suite_results))
    run_bench_kernels(on_result=on(st.suite_results))
    st.save()
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

    try:
        check_many(
            [(j.label, j.plan) for j in rjobs],
            tiles=args.tiles,
            runs=args.runs,
            batch=24,
            sms=sms,
            on_result=on_random,
            compile_workers=8,
        )
    except OutOfTime:
        log(f"  random: stopped at {len(done)} of {len(rjobs)} pairs (time budget)")
    cs, cr = counts(st.suite_results), counts(st.random_results)
    paths = {}
    for r in st.random_results:
        paths[r.path] = paths.get(r.path, 0) + 1
    st.record["random_paths"] = paths
    ok = cs["failed"] == 0 and cr["failed"] == 0 and len(st.random_results) >= min(args.random, 2000)
    st.part(
        "correctness",
        "PASS" if ok else "FAIL",
        f"suite {cs['kernels']} kernels / random {cr['kernels']} pairs: "
        f"{cs['slot_mismatches'] + cr['slot_mismatches']} slot and "
        f"{cs['element_mismatches'] + cr['element_mismatches']} element mismatches, {cs['errors'] + cr['errors']} errors",
        suite=cs,
        random=cr,
    )


def part_endpoints(st: State) -> None:
    a = st.args
    notes: list[str] = []
    stop_at = st.slot_start + st.slot
    stopped = []
    log(f"endpoints: the real layouts, the smem suite and {a.endpoints} random pairs, {a.runs} run(s) each")

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
    c = epc.counts(results)
    st.record["endpoints"] = {"counts": c, "by_family": epc.by_family(results), "notes": notes, "stopped": why}
    st.part(
        "endpoints",
        "PASS" if c["failed"] == 0 and not stopped else "FAIL",
        f"{c['cases']} cases x store, load, round trip: {c['mismatches']} mismatches, {c['errors']} errors, "
        f"{c['not_run']} not run" + (f"; {why}" if why else ""),
        counts=c,
    )


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
        st.part("ncu", "SKIP", res["out"])
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
    status = "PASS" if n_meas == len(rows) and n_match + n_unstable == n_meas and rows else "FAIL"
    tail = "" if n_meas else f"; ncu rc {res['rc']}{' (timed out)' if res['timed_out'] else ''}: {res['out']!r}"
    unstable = (
        f", {n_unstable} unstable (identical launches counted differently, at least one exactly as predicted)"
        if n_unstable
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
    """The endpoint check kernels of runtime.endpoint_gpucheck.ncu_cases under ncu: each kernel's shared-memory
    wavefronts against its plan's plus the byte loops that fill S and copy it in or out."""
    cases, left = epc.ncu_cases()
    items = epc.kernel_items(cases)
    with tempfile.TemporaryDirectory(prefix="llgen-endpoint-ncu-") as tmp:  # not in the logs, which $OUT brings back
        source = epc.save_items(items, Path(tmp) / "items.pickle")
        res = measure_endpoints(items, source, max(20.0, st.left_in_slot()), st.logs, log)
    if res["rc"] is None:
        st.part("endpoint-ncu", "SKIP", res["out"])
        return
    labels = {f"ep{i}{k}": (c, k) for i, c in enumerate(cases) for k in "sl"}
    rows = []
    for name, _ in items:
        c, k = labels[name]
        rows.append({**res["rows"][name], "kernel": f"{c.label} {'store' if k == 's' else 'load'}", "group": c.group})
    st.record["endpoint_ncu_rows"] = rows
    st.record["endpoint_ncu_left_out"] = left
    n_match = sum(r["verdict"] in ("match", "unstable") for r in rows)
    st.part(
        "endpoint-ncu",
        "PASS" if rows and n_match == len(rows) else "FAIL",
        f"{n_match}/{len(rows)} endpoint check kernels match plan + byte loops on every launch ({len(cases)} cases, "
        f"{LAUNCHES} launches each, {res['seconds']} s"
        + (f"; ncu rc {res['rc']}{' (timed out)' if res['timed_out'] else ''}: {res['out']!r}" if res["rc"] else "")
        + ")",
        metrics=res["metrics"],
        rc=res["rc"],
        timed_out=res["timed_out"],
    )


def part_sanitizer(st: State, tool: str) -> None:
    cs = tool_path("compute-sanitizer")
    if not cs:
        st.part(tool, "SKIP", "compute-sanitizer not found")
        return
    if st.left() < 20:
        st.part(tool, "SKIP", "out of time budget")
        return
    a = st.args
    cmd = [
        cs,
        "--tool",
        tool,
        "--print-limit",
        "20",
        sys.executable,
        "-m",
        "llgen.runtime.gpucheck",
        "sanitize",
        str(a.random),
        str(a.seed),
        str(a.sanitize_random),
        str(0 if "endpoints" in a.skip else a.sanitize_endpoints),
    ]
    r = run_proc(cmd, st.slot)
    (st.logs / f"sanitizer-{tool}.txt").write_text(r["out"])
    s = parse_sanitizer(r["out"])
    kernels = len(re.findall(r"^worker: \S+ (?:ok|FAIL)", r["out"], re.MULTILINE))
    fails = len(re.findall(r"^worker: \S+ FAIL", r["out"], re.MULTILINE))
    errors = (s["errors"] or 0) + (s["hazard_errors"] or 0)
    clean = s["errors"] is not None or s["hazard_errors"] is not None
    ok = clean and errors == 0 and not r["timed_out"] and r["rc"] == 0 and fails == 0
    detail = (
        f"{errors} errors"
        + (f", {s['hazard_warnings']} racecheck warnings" if s["hazard_warnings"] else "")
        + f" over {kernels} suite, random and endpoint kernels, {r['seconds']} s"
        + (" - TIMED OUT" if r["timed_out"] else "")
        + (f", worker rc {r['rc']}" if r["rc"] else "")
        + ("" if clean else " - no summary line found")
    )
    if not ok and not r["timed_out"]:
        detail += f"; tail: {r['out'][-400:]!r}"
    st.part(
        tool, "PASS" if ok else "FAIL", detail, kernels=kernels, worker_failures=fails, **s, rc=r["rc"], timed_out=r["timed_out"]
    )


# ------------------------------------------------------------------------------------------- report
def ncu_section(rows: list[dict]) -> str:
    if not rows:
        return "Not run."
    head = (
        f"{'kernel':34} {'swizzle':24} {'st op':15} {'ld op':15} {'st pred':>7} {'st meas':>7} {'ld pred':>7} "
        f"{'ld meas':>7} {'st ins p/m':>11} {'ld ins p/m':>11} {'ldsm wf':>7} {'stsm wf':>7}  verdict"
    )
    out = [
        (
            f"Per kernel = per CTA = one tile (the debug kernel runs one CTA), launched {LAUNCHES} times; the row shows the "
            "first launch, and a verdict of `unstable` lists every launch. `st/ld meas` are "
            f"`{WF_ST}` and `{WF_LD}`; instructions are `{INST_ST}` / `{INST_LD}` (predicted/measured)."
        ),
        "",
        "```",
        head,
    ]

    def f(v):
        return "-" if v is None else f"{v:g}"

    for r in rows:
        out.append(
            f"{r['kernel'][:34]:34} {r['swizzle'][:24]:24} {r['st_op']:15} {r['ld_op']:15} {r['pred_st_wf']:>7} "
            f"{f(r['st_wf']):>7} {r['pred_ld_wf']:>7} {f(r['ld_wf']):>7} "
            f"{str(r['pred_st_instr']) + '/' + f(r['st_instr']):>11} {str(r['pred_ld_instr']) + '/' + f(r['ld_instr']):>11} "
            f"{f(r['ldsm_wf']):>7} {f(r['stsm_wf']):>7}  {r['verdict']}{' (' + r['note'] + ')' if r.get('note') else ''}"
        )
    out.append("```")
    return "\n".join(out)


def summary_lines(st: State) -> list[str]:
    lines = [f"{'part':12} {'status':6} detail"]
    for name, p in st.record["parts"].items():
        lines.append(f"{name:12} {p['status']:6} {p['detail'][:220]}")
    return lines


def save_report(st: State) -> None:
    rec = st.record
    results = st.suite_results + st.random_results
    sv = rec.get("suite_variants", {})
    sections = [
        ("Summary", "```\n" + "\n".join(summary_lines(st)) + "\n```"),
        (
            "Run",
            (
                f"`llgen gpu-check --random {st.args.random} --seed {st.args.seed} --tiles {st.args.tiles} "
                f"--runs {st.args.runs} --endpoints {st.args.endpoints} --budget {st.args.budget}`; {time.monotonic() - st.t0:.0f} s so far; "
                f"commit {rec.get('commit', '?')}. Tools: {rec.get('tools', {})}."
            ),
        ),
        ("Shared-memory wavefronts (Nsight Compute)", ncu_section(rec.get("ncu_rows", []))),
        (
            "Shared-memory endpoints",
            epc.section(
                st.endpoint_results, rec.get("endpoints", {}).get("notes", []), rec.get("endpoints", {}).get("stopped", "")
            ),
        ),
        (
            "Endpoint wavefronts (Nsight Compute)",
            epc.ncu_section(rec.get("endpoint_ncu_rows", []))
            + "".join(f"\n\nNot measured: {x}." for x in rec.get("endpoint_ncu_left_out", [])),
        ),
        (
            "Suite variants",
            f"Run: {len(sv.get('run', []))}. Same plan as an earlier variant (not run again): "
            + (", ".join(f"{k} = {v}" for k, v in sv.get("same_plan", {}).items()) or "none")
            + ".\n\nCannot work: "
            + ("; ".join(sv.get("not_valid", [])) or "none")
            + ".",
        ),
        ("Random pairs", f"{len(st.random_results)} pairs (seed {st.args.seed}), by path: {rec.get('random_paths', {})}."),
    ]
    prefix = Path(st.args.prefix)
    md, js = write_report(
        prefix,
        title="llgen gpu-check: every element, sanitizers and bank counters on the GPU",
        device=st.device,
        results=results,
        date=rec.get("date"),
        sections=sections,
        extra={
            **{k: v for k, v in rec.items() if k not in ("title", "date")},
            "endpoint_results": [r.to_json() for r in st.endpoint_results],
        },
        limit=len(st.suite_results),
    )
    if os.environ.get("OUT"):
        for p in (md, js):
            dest = Path(os.environ["OUT"]) / p.name
            if dest.resolve() != Path(p).resolve():  # a report (-o) inside $OUT is already there
                shutil.copy(p, dest)


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
    # weights: correctness may take 1.6 fair shares of what is left (it is the point), ncu 1.5, the endpoints 1.0,
    # their ncu 1.2, the sanitizers the rest
    parts = [
        ("correctness", 1.6, lambda: part_correctness(st)),
        ("endpoints", 1.0, lambda: part_endpoints(st)),
        ("ncu", 1.5, lambda: part_ncu(st)),
        ("endpoint-ncu", 1.2, lambda: part_endpoint_ncu(st)),
    ]
    parts += [(t, 1.0, lambda t=t: part_sanitizer(st, t)) for t in SANITIZER_TOOLS]
    parts = [p for p in parts if p[0] not in skip] + [p for p in parts if p[0] in skip]
    for i, (name, weight, fn) in enumerate(parts):
        st.begin(sum(p[0] not in skip for p in parts[i:]), weight)
        if name in skip:
            st.part(name, "SKIP", "--skip")
            continue
        if st.left() < 15:
            st.part(name, "SKIP", "out of time budget")
            continue
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - one part's failure must not lose the others
            (st.logs / f"{name}-traceback.txt").write_text(traceback.format_exc())
            st.part(name, "FAIL", f"crashed: {error_line(e)}")
    st.record["seconds"] = round(time.monotonic() - st.t0, 1)
    st.save()
    log("")
    for line in summary_lines(st):
        log(line)
    log(f"wrote {settings.prefix}.md and .json in {st.record['seconds']} s")
    return 0 if all(p["status"] in ("PASS", "SKIP") for p in st.record["parts"].values()) else 1


if __name__ == "__main__":  # the sanitizers' worker: python -m llgen.runtime.gpucheck sanitize RANDOM SEED N ENDPOINTS
    if sys.argv[1:2] == ["sanitize"] and len(sys.argv) == 6:
        sys.exit(worker_sanitize(*(int(x) for x in sys.argv[2:])))
    sys.exit(
        "usage: python -m llgen.runtime.gpucheck sanitize RANDOM SEED SANITIZE_RANDOM SANITIZE_ENDPOINTS "
        "(gpu-check's worker; run llgen gpu-check)"
    )
