"""The conversion kernels gpu-check runs, both in its correctness part and under the sanitizers: the suites' plans by
every valid variant, random pairs, the gather kernels and `llgen bench`'s STREAM, copy and LOOP kernels."""

from __future__ import annotations

from llgen.emit import emit
from llgen.runtime.cases import gather_plans, random_jobs, suite_jobs
from llgen.runtime.check import check_gather
from llgen.runtime.compile import compile as compile_source
from llgen.runtime.gpucheck_settings import TARGET


def suite_unique():
    """Every distinct plan of the core and regressions suites by every valid variant (warp-local plans in
    interleaved rounds among them: lanes_f32's, mma2dotA_f16's and rank3_mma_4x64x64_f16's shared plans)."""
    jobs, skipped = [], []
    for name in ("core", "regressions"):
        j, s = suite_jobs(name, TARGET)
        jobs += j
        skipped += s
    return [j for j in jobs if j.same_as is None], jobs, skipped


def random_list(n: int, seed: int):
    return random_jobs(n, seed, TARGET)


def run_gathers(tiles: int, on_result) -> list:
    """The gather kernels (runtime.cases.gather_plans), one NVRTC compile, each checked on fresh input."""
    plans = gather_plans(TARGET)
    mod = compile_source("\n".join(emit(p, "kernel", n) for n, p in plans.items()), TARGET)
    out = []
    for n, p in plans.items():
        r = check_gather(mod, p, n, tiles=tiles)
        r.label = f"gather/{n}"
        out.append(r)
        on_result(r)
    return out


def run_bench_kernels(on_result, tiles: int = 19, which: str = "all") -> list:
    """`llgen bench`'s own kernels as the bench builds them (runtime.bench_kernels), on ``tiles`` tiles: ``which`` is
    "all" (STREAM, copy and LOOP of every variant of core, wide and warplocal, chains of warp-local plans on one
    buffer, and the endpoint suite's LOOPs) or "picks" (llgen's pick of each core case)."""
    from llgen.runtime.bench_kernels import run_conversion_benches, run_endpoint_benches

    if which == "picks":
        return run_conversion_benches(on_result, tiles=tiles, picks_only=True)
    return run_conversion_benches(on_result, tiles=tiles) + run_endpoint_benches(on_result)
