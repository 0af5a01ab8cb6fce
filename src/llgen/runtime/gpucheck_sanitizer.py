"""gpu-check's sanitizer parts: compute-sanitizer memcheck, synccheck and racecheck over a worker process (this module,
run as `python -m llgen.runtime.gpucheck_sanitizer sanitize ...`) that launches every suite, gather, STREAM and copy
kernel, the first random pairs and a sample of endpoint kernels; the tool's summary lines decide the part."""

from __future__ import annotations

import re
import sys

from llgen.runtime.check import Batching, CheckRuns, check_many
from llgen.runtime.endpoint_gpucheck import run_cases
from llgen.runtime.endpoint_random import random_cases
from llgen.runtime.gpucheck_kernels import random_list, run_bench_kernels, run_gathers, suite_unique
from llgen.runtime.gpucheck_settings import FAIL, INCOMPLETE, PASS, SKIP
from llgen.runtime.gpucheck_state import State, log
from llgen.runtime.ncu import run_proc, tool_path


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


def reported(text: str) -> list[str]:
    """The reports compute-sanitizer printed as it went (`========= Invalid __global__ read ...`, `========= Error: Race
    reported ...`, a barrier error), without its banner, summaries, warnings and the indented lines under a report:
    what a run stopped before its summary line still shows."""
    skip = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "Warning", "LEAK SUMMARY")
    return [ln.strip("= ").strip() for ln in text.splitlines() if re.match(r"========= \S", ln) and not ln[10:].startswith(skip)]


def worker_sanitize(n_random: int, seed: int, sanitize_random: int, sanitize_endpoints: int, bench_all: int = 1) -> int:
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

    check_many([(j.label, j.plan) for j in jobs], how=CheckRuns(tiles=4, runs=1), batching=Batching(16), sms=8, on_result=done)
    gathers = run_gathers(tiles=4, on_result=done)
    benches = run_bench_kernels(
        on_result=done, tiles=3, which="all" if bench_all else "picks"
    )  # a few tiles: the tools slow every shared access

    def done_endpoint(r):
        nonlocal bad
        bad += not r.ok
        log(f"worker: {r.label} " + ("ok" if r.ok and not r.not_run else r.not_run or "FAIL " + (r.error or r.mismatches[0])))

    cases = [c for c in random_cases(sanitize_endpoints, seed) if not c.cpu]
    ends = run_cases(cases, runs=1, seed=seed, on_result=done_endpoint)
    log(f"worker: done {len(jobs) + len(gathers) + len(benches) + len(ends)} kernels, {bad} failed")
    return 1 if bad else 0


def part_sanitizer(st: State, tool: str) -> None:
    cs = tool_path("compute-sanitizer")
    if not cs:
        st.part(tool, SKIP, "compute-sanitizer not found")
        return
    if st.left() < 20:
        st.part(tool, INCOMPLETE, f"not finished: not started, {max(0.0, st.left()):.0f} s of the budget left", started=False)
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
        "llgen.runtime.gpucheck_sanitizer",
        "sanitize",
        str(a.random),
        str(a.seed),
        str(a.sanitize_random),
        str(0 if "endpoints" in a.skip else a.sanitize_endpoints),
        str(int(a.bench_kernels == "all")),
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
    seen = reported(r["out"])
    if r["timed_out"] and errors == 0 and fails == 0 and not seen:  # stopped at its share of the budget, nothing found
        detail = (
            f"not finished: {kernels} suite, random and endpoint kernels checked, no error reported, before {tool} was "
            f"stopped at its {st.slot:.0f} s share of the budget (rc {r['rc']})"
        )
        st.part(tool, INCOMPLETE, detail, kernels=kernels, worker_failures=0, **s, rc=r["rc"], timed_out=True)
        return
    if r["timed_out"] and seen:
        detail += f"; reported before it was stopped: {seen[0][:200]!r}"
    if not ok and not r["timed_out"]:
        detail += f"; tail: {r['out'][-400:]!r}"
    st.part(tool, PASS if ok else FAIL, detail, kernels=kernels, worker_failures=fails, **s, rc=r["rc"], timed_out=r["timed_out"])


if (
    __name__ == "__main__"
):  # the sanitizers' worker: python -m llgen.runtime.gpucheck_sanitizer sanitize RANDOM SEED N ENDPOINTS BENCH_ALL
    if sys.argv[1:2] == ["sanitize"] and len(sys.argv) == 7:
        sys.exit(worker_sanitize(*(int(x) for x in sys.argv[2:])))
    sys.exit(
        "usage: python -m llgen.runtime.gpucheck_sanitizer sanitize RANDOM SEED SANITIZE_RANDOM SANITIZE_ENDPOINTS BENCH_ALL "
        "(gpu-check's worker; run llgen gpu-check)"
    )
