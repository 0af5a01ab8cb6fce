"""`llgen bench`'s own kernels, checked as gpu-check's correctness and sanitizer parts run them: the LOOP, STREAM and
copy kernels of every variant of the core, wide and warplocal suites, the endpoint suite's LOOP of every variant, and
chains of two warp-local plans whose warps own other bytes of one scratch buffer (llgen.randlayout.chains), each
built the documented way (the scratch rule: each conversion names the buffer's last user)."""

from __future__ import annotations

import numpy as np

from llgen.cases.suite import suite
from llgen.emit import emit_bench
from llgen.plan.benchshape import BenchShape, LoopScratch, bench_shape, scratch
from llgen.plan.variants import variants
from llgen.randlayout.chains import raced_chains, warp_local_chains
from llgen.runtime.check import BenchLaunch, CheckResult, check_bench
from llgen.runtime.compile import CUDA_OPTIONS
from llgen.runtime.compile import compile as compile_source
from llgen.runtime.gpucheck_settings import TARGET

SUITES = ("core", "wide", "warplocal")
CHAINS = 12  # random warp-local chains on one buffer, besides the two found on the GPU


def conversion_jobs(chains_only: bool = False, picks_only: bool = False) -> list[tuple[str, object, object, BenchShape]]:
    """(label, fwd, bwd, shape) of every distinct variant of the conversion suites, then the one-buffer chains; or
    only the chains, or only llgen's pick of each core case."""
    if picks_only:
        return [(c.id, v.fwd, v.bwd, bench_shape(v.fwd, v.bwd)) for c in suite("core") for v in variants(c, TARGET)[:1]]
    jobs = [
        (f"{case.id}/{v.name}", v.fwd, v.bwd, bench_shape(v.fwd, v.bwd))
        for name in (() if chains_only else SUITES)
        for case in suite(name)
        for v in variants(case, TARGET)  # distinct kernels: an alternative that repeats one is in its same_as
    ]
    for label, fwd, bwd in raced_chains(TARGET) + warp_local_chains(CHAINS, 7, TARGET):
        jobs.append((f"chain/{label}", fwd, bwd, one_buffer(fwd, bwd)))
    return jobs


def one_buffer(fwd, bwd) -> BenchShape:
    """The bench shape with LOOP's two conversions on one buffer, whatever bench_shape would give them."""
    shape = bench_shape(fwd, bwd)
    return BenchShape(LoopScratch(max(scratch(fwd), scratch(bwd)), 0), shape.groups, shape.unroll, shape.stream_smem)


def _name(i: int) -> str:
    return f"bk{i}"


def compile_all(sources: list[str]) -> list:
    """Each source's module, or the exception compiling it raised. NVRTC runs on threads only to fill CuPy's kernel
    cache; the modules load on this thread (built on worker threads under compute-sanitizer, they found no GPU)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    def warm(src):
        import cupy as cp

        try:
            cp.RawModule(code=src, options=CUDA_OPTIONS).compile()
        except Exception:  # noqa: BLE001 - compile_source below raises it again, as the source's result
            pass

    with ThreadPoolExecutor(max(1, min(16, os.cpu_count() or 1))) as pool:
        list(pool.map(warm, sources))
    modules = []
    for src in sources:
        try:
            modules.append(compile_source(src, TARGET))
        except Exception as e:  # noqa: BLE001 - a source that does not compile fails its jobs, the run goes on
            modules.append(e)
    return modules


def run_conversion_benches(
    on_result, tiles: int = 19, batch: int = 8, chains_only: bool = False, picks_only: bool = False
) -> list[CheckResult]:
    """Every conversion bench job's STREAM, copy and LOOP kernels on ``tiles`` tiles of fresh input (check_bench),
    ``batch`` jobs a source."""
    jobs = conversion_jobs(chains_only, picks_only)
    # a batch shares one LLGEN_KEEP, whose register constraint follows the word: 64-bit words batch apart
    kinds = [[j for j in enumerate(jobs) if (j[1][1].dtype.bits == 64) == wide] for wide in (False, True)]
    parts = [kind[i : i + batch] for kind in kinds for i in range(0, len(kind), batch)]
    modules = compile_all(["\n".join(emit_bench(f, b, _name(i), shape) for i, (_, f, b, shape) in part) for part in parts])
    out = []
    for part, mod in zip(parts, modules, strict=True):
        for i, (label, f, b, shape) in part:
            if isinstance(mod, Exception):
                r = CheckResult(f"bench/{label}", _name(i), f.path, f.dtype.name, TARGET, f.warps, tuple(f.src.shape))
                r.error = f"compile: {str(mod).splitlines()[0][:300]}"
            else:
                r = check_bench(mod, f, b, _name(i), launch=BenchLaunch(tiles=tiles), shape=shape)
                r.label = f"bench/{label}"
            out.append(r)
            on_result(r)
    return out


def run_endpoint_benches(on_result, grid: int = 4) -> list[CheckResult]:
    """The endpoint suite's LOOP kernel of every variant on ``grid`` CTAs, checked as the bench checks it (check_loop)."""
    import cupy as cp

    from llgen.cases.suite_endpoint import endpoint_suite
    from llgen.emit.endpoint_bench import emit_endpoint_loop
    from llgen.runtime.bench.endpoint_suite import endpoint_variants
    from llgen.runtime.bench.loopcheck import LoopReference, check_loop
    from llgen.runtime.reference import loop_input, raw_dtype

    jobs, loops = [], []
    for case in endpoint_suite():
        for v in endpoint_variants(case, TARGET)[0]:
            try:
                loops.append(emit_endpoint_loop(v.plans, "s"))
            except Exception as e:  # noqa: BLE001 - the variant's result says why
                loops.append(e)
            jobs.append((case, v))
    modules = compile_all([loop.source for loop in loops if not isinstance(loop, Exception)])
    built = iter(modules)
    out, refs = [], {}
    for (case, v), loop in zip(jobs, loops, strict=True):
        r = CheckResult(f"bench/endpoint/{case.id}/{v.name}", "s", v.path, case.dtype, TARGET, case.warps, tuple(case.shape))
        try:
            mod = loop if isinstance(loop, Exception) else next(built)
            if isinstance(mod, Exception):
                raise mod
            fn = mod.function(loop.kernel)
            tile = int(np.prod(case.shape))
            if case.id not in refs:
                x_host = loop_input(case.dtype, raw_dtype(case.dtype).type, tile * grid, np.random.default_rng())
                refs[case.id] = (cp.asarray(x_host), LoopReference(case.dtype, x_host, tile))
            x, ref = refs[case.id]
            y = cp.empty_like(x)
            if loop.launch_smem:
                fn.max_dynamic_shared_size_bytes = loop.launch_smem

            def launch(k, f=fn, lp=loop, xy=(x, y)):
                f((grid,), (lp.threads,), (*xy, np.int32(k)), shared_mem=lp.launch_smem)

            got = check_loop(launch, y, ref, case.shape)
            r.tile_bad, r.tiles, r.grid, r.elems, r.runs = got.get("loop_bad", 0), grid, grid, x.size, 1
            r.first_bad_tile = got.get("loop_first_bad")
        except Exception as e:  # noqa: BLE001 - a launch error is a result
            r.error = str(e).splitlines()[0][:300]
        out.append(r)
        on_result(r)
    return out


# the chains alone, on 3 tiles, as a sanitizer's quick first look: python -m llgen.runtime.bench_kernels
if __name__ == "__main__":
    import sys

    results = run_conversion_benches(
        lambda r: print(r.label, "ok" if r.ok else f"FAIL {r.error or r.first_bad_tile}"), 3, chains_only=True
    )
    sys.exit(0 if results and all(r.ok for r in results) else 1)
