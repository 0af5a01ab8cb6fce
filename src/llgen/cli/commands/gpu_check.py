"""``llgen gpu-check`` on a GPU machine: the suites and random pairs against NumPy, shared-memory endpoints, Nsight
Compute's bank counters against the planner, and compute-sanitizer, in one report (llgen.runtime.gpucheck does the work)."""

from __future__ import annotations

import sys

from llgen.core.errors import LlgenError


def gpu_check_command(
    n_random,
    sanitize_random,
    seed,
    tiles,
    runs,
    budget,
    ncu_random,
    n_endpoints,
    sanitize_endpoints,
    bench_kernels,
    skip,
    prefix,
) -> None:
    from llgen.runtime.gpucheck import main as gpu_check_main
    from llgen.runtime.gpucheck_settings import Settings

    if prefix is not None and not prefix.strip():
        raise LlgenError("-o is empty: give the report's path without .md/.json.")
    settings = Settings(
        random=n_random,
        sanitize_random=sanitize_random,
        seed=seed,
        tiles=tiles,
        runs=runs,
        budget=budget,
        ncu_random=ncu_random,
        endpoints=n_endpoints,
        sanitize_endpoints=sanitize_endpoints,
        bench_kernels=bench_kernels,
        skip=frozenset(x.strip() for x in skip.split(",") if x.strip()),
        **({"prefix": prefix} if prefix is not None else {}),
    )
    code = gpu_check_main(settings)
    if code:
        sys.exit(code)
