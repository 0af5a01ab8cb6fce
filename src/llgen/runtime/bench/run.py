"""A bench run: the cases (a piece of them, --shard), each by every variant and Triton (measure.py), then the ncu
counters and the gather benchmark; the report dict that report.py writes. A run never stops at a case: what cannot
be planned, compiled or run is a row that says why."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from llgen.cases.suite_endpoint import EndpointSuiteCase
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError, error_line
from llgen.plan.variants import variant_table
from llgen.runtime.bench.buffers import Measurement
from llgen.runtime.bench.counters import measure_pipes, measure_wavefronts
from llgen.runtime.bench.device import device_info, free_device_memory
from llgen.runtime.bench.endpoint_suite import run_endpoint_case
from llgen.runtime.bench.gather import run_gather
from llgen.runtime.bench.measure import run_variants
from llgen.runtime.bench.rules import case_failed, case_row
from llgen.runtime.compile import device


@dataclass(frozen=True)
class CaseRun:
    """How a bench run measures each case: on ``target``, the kernels of ``measures`` ("loop", "stream", ...; a run's
    report lists them in this order), each timed ``rep`` times, Triton's too when ``with_triton``; progress to
    ``log``; ``options`` for the planner; ``baselines``: also the naive and classic shared-memory kernels."""

    target: str = "sm_90"
    measures: Collection[str] = ("loop", "stream")
    rep: int = 100
    with_triton: bool = True
    log: Callable = print
    options: dict | None = None
    baselines: bool = True


def run(
    cases,
    how: CaseRun = CaseRun(),
    *,
    suite: str | None = None,
    shard: tuple[int, int] | None = None,
    time_budget_s: float | None = None,
    on_case=None,
) -> dict:
    """Benchmark ``cases`` (piece ``shard`` = (i, n) of them) as ``how`` says; returns the report dict (see
    report.write_report). Each case result names its ``suite``. "gather" in ``how.measures`` adds the gather
    benchmark (gather.py). Past ``time_budget_s`` the remaining cases become rows that say so; ``on_case(report)``
    is called after each case (to save partial results). Without a CUDA GPU this raises RuntimeUnavailable (one
    sentence); without Triton the run goes on and the report says the baseline is missing. Nothing else raises: a
    case or variant that fails is a row that says why."""
    t0 = time.monotonic()
    target, measures, log = how.target, how.measures, how.log
    device(target)  # CuPy and a GPU, or one clear sentence
    cases = select_shard(cases, shard)
    report = {"info": device_info(), "measures": list(measures), "cases": []}
    report["info"].update(suite=suite, shard=list(shard) if shard else None, baselines=how.baselines)
    if how.with_triton:
        try:
            import torch  # noqa: F401
            import triton  # noqa: F401
        except ImportError as e:
            how = replace(how, with_triton=False)
            report["info"]["triton"] = f"not run: {e.name} is not installed"
            log(f"Triton's baseline is not run: {e.name} is not installed")
    for case in cases:
        log(f"[{len(report['cases']) + 1}/{len(cases)}] {case.id}")
        if time_budget_s is not None and time.monotonic() - t0 > time_budget_s:
            res = {"id": case.id, "dtype": case.dtype, "shape": list(case.shape), "warps": case.warps, "variants": {}}
            res["error"] = f"not run: the run's time budget of {time_budget_s:.0f} s was spent"
        elif isinstance(case, EndpointSuiteCase):  # the endpoint suite: its own LOOP and Triton row (endpoint_suite.py)
            res = run_endpoint_case(case, target, how.rep, how.with_triton, log)
        else:
            res = run_case(case, how)
        if suite:
            res["suite"] = suite
        report["cases"].append(res)
        if on_case:
            on_case(report)
    if "wavefronts" in measures:
        _guarded(report, "wavefronts", log, measure_wavefronts, cases, target, report, log, how.options, how.baselines)
        if "loop" in measures and how.with_triton:
            _guarded(report, "pipes", log, measure_pipes, cases, target, report, log, how.options)
    if "gather" in measures:
        report["gather"] = run_gather(target=target, rep=how.rep, with_triton=how.with_triton, log=log)
    report["info"]["date_end"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    report["info"]["seconds"] = round(time.monotonic() - t0, 1)
    return report


def run_case(case, how: CaseRun) -> dict:
    """One case by every variant, measured as ``how`` says; never raises: what cannot be planned, compiled or run is
    an "error" of the case or of its variant, and what cannot work is under "skipped" with the reason."""
    res = case_row(case, smem_budget=getattr(case, "smem_budget", None))
    log = how.log
    try:
        res["coalesced_a"] = coalesced(case.src, to_dtype(case.dtype).bytes)
        vs, res["skipped"] = variant_table(case, how.target, how.options, how.baselines)
    except Exception as e:  # noqa: BLE001 - the case is a row that says why
        case_failed(res, e, log)
        return res
    try:
        run_variants(Measurement.allocate(case, set(how.measures), how.rep), vs, res, how.with_triton, log)
    except Exception as e:  # noqa: BLE001 - e.g. out of device memory for the case's buffers
        case_failed(res, e, log)
    finally:
        free_device_memory()
    return res


def coalesced(layout, elem_bytes: int) -> bool:
    """A warp's first vector load of ``layout`` (its contiguous registers, up to 16 bytes, over all lanes of
    warp 0) reads one unbroken range of the row-major tile: what the benchmark calls a coalesced A."""
    vec = max(1, min(layout.num_consecutive(), 16 // elem_bytes))
    got = {
        layout.flatten_out(layout.apply({"register": r, "lane": lane}))
        for lane in range(layout.in_size("lane"))
        for r in range(vec)
    }
    return max(got) - min(got) + 1 == len(got)


def select_shard(cases: list, shard: tuple[int, int] | None) -> list:
    """Piece i of n (1-based) of ``cases``: every n-th case from the i-th, so that the pieces take about as long."""
    if not shard:
        return list(cases)
    i, n = _existing(*shard)
    return list(cases)[i - 1 :: n]


def select_cases(cases: list, ids: str | None) -> list:
    """The cases named in the comma list ``ids`` (all of them without one); an unknown id is an error."""
    if not ids:
        return list(cases)
    want = [x.strip() for x in ids.split(",") if x.strip()]
    known = {c.id for c in cases}
    missing = [x for x in want if x not in known]
    if missing:
        raise LlgenError(f"no case {', '.join(missing)} in this suite.")
    return [c for c in cases if c.id in want]


def parse_shard(text: str) -> tuple[int, int]:
    """'I/N' as (i, n)."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise LlgenError(f"shard '{text}' is not of the form I/N (e.g. 2/3).") from None
    return _existing(i, n)


def _existing(i: int, n: int) -> tuple[int, int]:
    if not 1 <= i <= n:
        raise LlgenError(f"shard {i}/{n} does not exist: use 1/{n} to {n}/{n}.")
    return i, n


def _guarded(report: dict, what: str, log, fn, *args) -> None:
    """fn(*args); a failure is written into report["info"]["errors"][what] instead of ending the run."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        report["info"].setdefault("errors", {})[what] = error_line(e)
        log(f"{what}: {error_line(e)}")
