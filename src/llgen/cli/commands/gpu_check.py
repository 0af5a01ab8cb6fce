"""``llgen gpu-check`` on a GPU machine: the suites and random pairs against NumPy, shared-memory endpoints, Nsight
Compute's bank counters against the planner, and compute-sanitizer, in one report (llgen.runtime.gpucheck does the work)."""

from __future__ import annotations

import sys

from llgen.cli.commands.options import Flags
from llgen.core.errors import LlgenError


def gpu_check_command(flags: Flags) -> None:
    from llgen.runtime.gpucheck import main as gpu_check_main
    from llgen.runtime.gpucheck_settings import Settings

    if flags.prefix is not None and not flags.prefix.strip():
        raise LlgenError("-o is empty: give the report's path without .md/.json.")
    settings = Settings(
        random=flags.n_random,
        sanitize_random=flags.sanitize_random,
        seed=flags.seed,
        tiles=flags.tiles,
        runs=flags.runs,
        budget=flags.budget,
        ncu_random=flags.ncu_random,
        endpoints=flags.n_endpoints,
        sanitize_endpoints=flags.sanitize_endpoints,
        bench_kernels=flags.bench_kernels,
        skip=frozenset(x.strip() for x in flags.skip.split(",") if x.strip()),
        **({"prefix": flags.prefix} if flags.prefix is not None else {}),
    )
    code = gpu_check_main(settings)
    if code:
        sys.exit(code)
