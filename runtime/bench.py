"""`llgen bench`: LOOP and STREAM (docs/design.md §10) for llgen's pick, every alternative the planner could have
picked (registers, shuffle, shared with and without ldmatrix/stmatrix) and the baselines (naive: unswizzled,
scalar; classic swizzle), in one run on one GPU, next to Triton's own convert_layout (Gluon) between the same layouts.

Times are medians of `triton.testing.do_bench` (CUDA events; L2 flushed between reps) for every
kernel, ours (launched through CuPy on the same default stream) and Triton's. A run never stops at a case: what
cannot be planned, compiled or run is a row that says why. `python -m llgen.runtime.bench` runs a suite in pieces
(--shard I/N) and merges the pieces into one report (see main).
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from llgen.dtypes import dtype as to_dtype
from llgen.emit import emit_bench, loop_scratch, plan_scratch_bytes, stream_groups, stream_smem, stream_unroll
from llgen.errors import LlgenError
from llgen.files import write_atomic
from llgen.plan import plan_conversion

from .reference import loop_input, plus_one, raw_dtype

KS = (64, 128)
STREAM_BYTES = 1 << 30


def stream_tiles(tile_bytes: int) -> int:
    """Tiles of ``tile_bytes`` the STREAM and copy kernels walk: as many as fit in STREAM_BYTES, one at least."""
    return max(1, STREAM_BYTES // tile_bytes)


# What each case is measured by, besides llgen's own pick: every alternative the planner could have picked (each
# direction planned with that path forced), then the baselines. A forced path that cannot work, or that plans the
# same kernels as an earlier variant, is skipped with its reason in the report.
ALTERNATIVES: tuple[tuple[str, dict], ...] = (
    ("registers", {"path": "registers"}),
    ("shuffle", {"path": "shuffle"}),
    ("shared", {"path": "shared"}),  # ldmatrix / stmatrix where they fit
    ("shared_vec", {"path": "shared", "matrix": False}),  # vector ld/st.shared only
)
BASELINES: tuple[tuple[str, dict], ...] = (
    ("naive", {"path": "shared", "swizzle": "unswizzled", "scalar": True}),
    ("classic", {"path": "shared", "swizzle": "classic", "matrix": False}),
)


@dataclass
class Variant:
    name: str
    fwd: object
    bwd: object
    results: dict = field(default_factory=dict)
    kinds: tuple[str, str] = ("", "")  # the alternative each direction's plan is (A -> B, B -> A)
    same_as: list[str] = field(default_factory=list)  # alternatives whose kernels are these (not run again)


def case_options(case, options: dict | None = None) -> dict:
    """Plan options for a case: its own shared-memory budget (Case.smem_budget), then the run's (they win)."""
    out = {"smem_budget": case.smem_budget} if getattr(case, "smem_budget", None) else {}
    out.update(options or {})
    return out


def plan_key(plan) -> tuple:
    """What makes two plans the same kernels."""
    return (plan.path, plan.detail, plan.out_copies)


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

    named = [("llgen", plan({}))] + [(n, plan(kw)) for n, kw in ALTERNATIVES + (BASELINES if baselines else ())]
    if isinstance(named[0][1][0], str) or isinstance(named[0][1][1], str):
        raise LlgenError(f"llgen cannot plan {case.id}: {next(p for p in named[0][1] if isinstance(p, str))}")

    def kind(plan, side: int) -> str:
        """The first alternative whose plan of this direction is this plan (a baseline is its own kind)."""
        key = plan_key(plan)
        for n, ps in named[1 : 1 + len(ALTERNATIVES)]:
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
        kinds = (kind(f, 0), kind(b, 1)) if name not in dict(BASELINES) else (name, name)
        seen[key] = Variant(name, f, b, kinds=kinds)
        out.append(seen[key])
    return out, skipped


def variants(case, target: str, options: dict | None = None, baselines: bool = True) -> list[Variant]:
    """llgen's own choice and every alternative and baseline that is valid for the case (see variant_table)."""
    return variant_table(case, target, options, baselines)[0]


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


def median_ms(fn, rep: int) -> float:
    from triton.testing import do_bench

    return do_bench(fn, warmup=20, rep=rep, return_mode="median")


def one_line(e: BaseException) -> str:
    """An error as one line for a report row: its first line that says "error", else its first line."""
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    pick = next((x for x in lines if "error" in x.lower()), lines[0] if lines else "")
    return f"{type(e).__name__}: {pick}"[:300]


# Defined where ptxas's own register budget spilled the LOOP kernel: its bounds then say one CTA per SM suffices
# (templates/bench.j2); r18_178_i64's LOOP held 80 registers and 8 bytes of stack, and reread the lane id every step
LOOP_ONE_CTA = "-DLLGEN_LOOP_ONE_CTA"


def compile_all(sources: dict, one_cta: set | None = None, loop: str = "b_loop") -> dict:
    """key -> a compiled CuPy module, or the exception compiling it raised: NVRTC runs on threads, one a source. A
    module whose LOOP kernel (named ``loop`` in every source) has a stack frame is built again with LOOP_ONE_CTA, and
    its key goes into ``one_cta``."""
    from concurrent.futures import ThreadPoolExecutor

    import cupy as cp

    def build(name):
        src = sources[name]
        try:
            mod = cp.RawModule(code=src, options=("-std=c++17",))
            mod.compile()
            if f"{loop}(" in src and mod.get_function(loop).local_size_bytes:
                mod = cp.RawModule(code=src, options=("-std=c++17", LOOP_ONE_CTA))
                mod.compile()
                if one_cta is not None:
                    one_cta.add(name)
            return mod
        except Exception as e:  # noqa: BLE001 - a source that does not compile is a report row
            return e

    with ThreadPoolExecutor(max(1, min(8, len(sources)))) as pool:
        return dict(zip(sources, pool.map(build, sources), strict=True))


def run_case(
    case,
    target: str,
    measures: set[str],
    rep: int,
    with_triton: bool,
    log,
    options: dict | None = None,
    baselines: bool = True,
) -> dict:
    """One case by every variant; never raises: what cannot be planned, compiled or run is an "error" of the case or
    of its variant, and what cannot work is under "skipped" with the reason."""
    res = {
        "id": case.id,
        "dtype": case.dtype,
        "shape": list(case.shape),
        "warps": case.warps,
        "note": case.note,
        "smem_budget": getattr(case, "smem_budget", None),
        "variants": {},
        "skipped": {},
    }
    try:
        res["coalesced_a"] = coalesced(case.src, to_dtype(case.dtype).bytes)
        vs, res["skipped"] = variant_table(case, target, options, baselines)
    except Exception as e:  # noqa: BLE001 - the case is a row that says why
        res["error"] = one_line(e)
        log(f"  {case.id}: {res['error']}")
        return res
    try:
        _run_variants(case, vs, res, measures, rep, with_triton, log)
    except Exception as e:  # noqa: BLE001 - e.g. out of device memory for the case's buffers
        res["error"] = one_line(e)
        log(f"  {case.id}: {res['error']}")
    finally:
        free_device_memory()
    return res


def free_device_memory() -> None:
    import cupy as cp

    cp.get_default_memory_pool().free_all_blocks()
    if "torch" in sys.modules:
        sys.modules["torch"].cuda.empty_cache()


def _run_variants(case, vs: list[Variant], res: dict, measures: set[str], rep: int, with_triton: bool, log) -> None:
    import cupy as cp

    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    tile = 1 << case.src.total_out_bits
    raw = raw_dtype(case.dtype).type
    rng = np.random.default_rng()
    threads = case.warps * 32
    tiles_thr = sms * 32
    x_host = loop_input(case.dtype, raw, tile * tiles_thr, rng)
    x = cp.asarray(x_host)
    y = cp.empty_like(x)
    loop_ref = _LoopReference(case.dtype, x_host, tile)
    nstream = stream_tiles(tile * raw().itemsize)
    xs = ys = None
    if "stream" in measures:  # any bits: STREAM adds s = 0 in the raw bits; drawn on the GPU (1 GiB)
        nbytes = tile * nstream * raw().itemsize
        xs = cp.random.randint(0, 1 << 31, size=max(1, nbytes // 4), dtype=cp.int32).view(cp.uint8)[:nbytes].view(raw)
        ys = cp.empty_like(xs)
    log(f"  {case.id}: compile {len(vs)} variant(s)")
    sources = {}
    for v in vs:
        try:
            src = emit_bench(v.fwd, v.bwd, "b")
        except Exception as e:  # noqa: BLE001
            res["variants"][v.name] = {"path": f"{v.fwd.path}/{v.bwd.path}", "error": f"emit: {one_line(e)}"}
            continue
        if len(src) > MAX_SOURCE and v.name != "llgen":
            res["skipped"][v.name] = (
                f"not run: its kernels' source is {len(src) // 1000} KB, over the {MAX_SOURCE // 1000} KB NVRTC compiles "
                f"in the run's time (the model: {plan_cost(v.fwd) + plan_cost(v.bwd):.0f} cycles a round trip, the pick "
                f"{plan_cost(vs[0].fwd) + plan_cost(vs[0].bwd):.0f})"
            )
            continue
        sources[v.name] = src
        if v.name == "llgen" and "stream" in measures:  # its STREAM and copy at the other tiles a step
            for u in STREAM_UNROLLS:
                if u != stream_unroll(v.fwd):
                    sources[(v.name, u)] = emit_bench(v.fwd, v.bwd, "b", unroll=u)
    one_cta: set = set()
    modules = compile_all(sources, one_cta)
    launches = {}  # LOOP launchers (k, grid) of llgen's pick and Triton's, for the alternating rounds
    for v in vs:
        if v.name not in modules:
            continue
        r = {
            "path": f"{v.fwd.path}/{v.bwd.path}",
            "kinds": list(v.kinds),
            "same_as": v.same_as,
            "smem": max(plan_scratch_bytes(v.fwd), plan_scratch_bytes(v.bwd)),
            "wavefronts_pred": _wf(v.fwd, v.bwd),
            "ideal_clocks": (_ideal_clocks(v.fwd) + _ideal_clocks(v.bwd)) / 2,
            "cost_pred": plan_cost(v.fwd) + plan_cost(v.bwd),
            "loop_one_cta": v.name in one_cta,
        }
        try:
            mod = modules[v.name]
            if isinstance(mod, Exception):
                raise mod
            by_unroll = {u: modules[(v.name, u)] for u in STREAM_UNROLLS if (v.name, u) in modules}
            by_unroll[stream_unroll(v.fwd)] = mod
            _measure(v, mod, r, launches, case, x, y, loop_ref, xs, ys, nstream, measures, rep, sms, threads, by_unroll)
        except Exception as e:  # noqa: BLE001 - the variant is a row that says why; the run goes on
            r["error"] = one_line(e)
        res["variants"][v.name] = r
        log(f"  {case.id} / {v.name}: {_short(r)}")
    if with_triton:
        res["variants"]["triton"] = _triton(case, x, y, loop_ref, xs, nstream, sms, rep, log, launches)
    if "llgen" in launches and "triton" in launches:
        try:
            _alternate(res["variants"], launches, tiles_thr, sms, rep)
            log(
                f"  {case.id}: llgen vs triton, {LOOP_ROUNDS} alternating rounds: "
                + ", ".join(f"{n} {res['variants'][n]['loop_per_sm_ns']:.2f} ns" for n in ("llgen", "triton"))
            )
        except Exception as e:  # noqa: BLE001
            res["variants"]["triton"].setdefault("error", f"alternating rounds: {one_line(e)}")


class _LoopReference:
    """What the LOOP kernel must write after k round trips (+1 in the tile's arithmetic each), computed once per k."""

    def __init__(self, dtype: str, x_host: np.ndarray, tile: int):
        self.dtype, self.x, self.tile = dtype, x_host, tile
        self._by_k = {}

    def expect(self, k: int):
        import cupy as cp

        if k not in self._by_k:
            self._by_k[k] = cp.asarray(plus_one(self.dtype, self.x, k))
        return self._by_k[k]


LOOP_CHECK_K = 3  # round trips of the LOOP correctness launch
# An alternative whose bench source is longer is not compiled: w1_b2bT_f16's forced shuffle (1.07 MB of selects)
# took NVRTC 211 s on the CPU, the next longest (r3_b2bT_8x32x32_bf16's, 531 KB) 12 s
MAX_SOURCE = 600_000


def check_loop(launch, y, ref: _LoopReference, shape) -> dict:
    """Run the LOOP kernel (``launch(k)`` writes y) for LOOP_CHECK_K round trips and compare with NumPy, bit for bit.
    On a mismatch, find where it starts: k = 0 (load A, store A: the global I/O of A -> B's load and B -> A's
    store), then k = 1, 2: the first k that fails, how many elements are wrong, and the first of them (tile,
    element, its coordinates, expected and got bits)."""
    import cupy as cp

    def bad(k):
        y[:] = 0
        launch(k)
        return cp.flatnonzero(y != ref.expect(k))

    wrong = bad(LOOP_CHECK_K)
    if wrong.size == 0:
        return {"loop_correct": True}
    out = {"loop_correct": False, "loop_bad": int(wrong.size)}
    for k in range(LOOP_CHECK_K + 1):
        w = bad(k)
        if w.size:
            i = int(w[0])
            tile, elem = divmod(i, ref.tile)
            coords = np.unravel_index(elem, tuple(shape))
            out["loop_first_bad"] = {
                "k": k,
                "bad": int(w.size),
                "tile": tile,
                "element": elem,
                "coords": [int(c) for c in coords],
                "expected": int(ref.expect(k)[i]),
                "got": int(y[i]),
                "share_of_tiles": float(np.unique(cp.asnumpy(w) // ref.tile).size / (y.size // ref.tile)),
            }
            break
    return out


def _measure(v, mod, r, launches, case, x, y, loop_ref, xs, ys, nstream, measures, rep, sms, threads, by_unroll) -> None:
    """LOOP and STREAM of one variant into r; STREAM and copy of each module of ``by_unroll`` (tiles a step ->
    module), keeping the tiles a step whose STREAM is fastest (_stream_times)."""
    tiles_thr, tiles_lat = sms * 32, sms
    loop = mod.get_function("b_loop")
    smem = loop_scratch(v.fwd, v.bwd).bytes  # LOOP's scratch is dynamic shared memory
    loop.max_dynamic_shared_size_bytes = smem
    r.update(regs=loop.num_regs, local_bytes=loop.local_size_bytes)

    def run(k, g, f=loop, smem=smem):
        f((g,), (threads,), (x, y, np.int32(k)), shared_mem=smem)

    r.update(check_loop(lambda k: run(k, tiles_thr), y, loop_ref, case.shape))
    if "loop" in measures:  # the latency form for llgen's pick and the baselines (core's table), not the alternatives
        _loop_times(r, run, tiles_thr, tiles_lat, sms, rep, latency=v.name not in dict(ALTERNATIVES))
        launches[v.name] = run
    if "stream" in measures:
        _stream_times(v, r, case, xs, ys, nstream, rep, sms, threads, by_unroll)


# Tiles each STREAM/copy step loads before converting, tried for llgen's pick (the alternatives run at
# codegen.emit.stream_unroll's choice): on the H100 two tiles a step made w8_b2mma_f32's STREAM 1.2% faster and its
# ratio to its copy 1.014 -> 1.002, one tile made w1_b2mma_f32's (whose two tiles spill) 1.021 -> 1.003, and neither
# choice suited every case (bench/NOTES.md, session 10)
STREAM_UNROLLS = (1, 2)


def fastest_unroll(stream_ms: dict, stack: dict) -> int:
    """The tiles a step whose STREAM took least time, among those whose kernels keep no stack frame (among all,
    where every one does)."""
    fit = [u for u in stream_ms if not stack[u]] or list(stream_ms)
    return min(fit, key=stream_ms.__getitem__)


def _stream_times(v, r, case, xs, ys, nstream, rep, sms, threads, by_unroll) -> None:
    """STREAM and copy of each tiles-a-step module (checked against the input), timed in rotating rounds; r gets
    those of the fastest STREAM whose kernels keep no stack (any, where every one does), each one under
    "stream_by_unroll"."""
    import cupy as cp

    raw = raw_dtype(case.dtype).type
    block = threads * stream_groups(v.fwd, v.bwd)
    grid = min(nstream, stream_grid(sms, block))
    ss = stream_smem(v.fwd, v.bwd)
    args = (xs, ys, np.int32(nstream), raw(0))
    fns, stack, correct = {}, {}, {}
    for u, m in sorted(by_unroll.items()):
        if isinstance(m, Exception):
            continue
        stream, copy = m.get_function("b_stream"), m.get_function("b_copy")
        stream.max_dynamic_shared_size_bytes = ss
        ys[:] = 0
        stream((grid,), (block,), args, shared_mem=ss)
        correct[u] = bool((ys == xs).all())
        stack[u] = max(stream.local_size_bytes, copy.local_size_bytes)
        fns[f"stream{u}"] = lambda f=stream: f((grid,), (block,), args, shared_mem=ss)
        fns[f"copy{u}"] = lambda f=copy: f((grid,), (block,), args)
    if v.name == "llgen":  # the roofline of our copy: cudaMemcpy of the same bytes, timed between its rounds
        fns["d2d"] = lambda: cp.cuda.runtime.memcpyAsync(ys.data.ptr, xs.data.ptr, xs.nbytes, 3, 0)
    t = rotating_rounds(fns, STREAM_ROUNDS if v.name == "llgen" else 1, rep)
    u = fastest_unroll({k: t[f"stream{k}"] for k in stack}, stack)
    r.update(
        stream_ms=t[f"stream{u}"],
        copy_ms=t[f"copy{u}"],
        stream_ratio=t[f"stream{u}"] / t[f"copy{u}"],
        stream_correct=all(correct.values()),
        copy_GBps=2 * xs.nbytes / t[f"copy{u}"] / 1e6,
        stream_groups=stream_groups(v.fwd, v.bwd),
        stream_smem=ss,
        stream_unroll=u,
    )
    if len(stack) > 1:
        r["stream_by_unroll"] = {
            str(k): {"stream_ms": t[f"stream{k}"], "copy_ms": t[f"copy{k}"], "stack": stack[k]} for k in sorted(stack)
        }
    if "d2d" in t:
        r.update(d2d_ms=t["d2d"], copy_vs_d2d=t["d2d"] / t[f"copy{u}"])


def plan_cost(plan) -> float:
    """The cost model's cycles for one plan, as the planner recorded them for its path (codegen/plan/cost.py): 0 for
    a register permutation."""
    return dict(plan.costs).get(plan.path, 0.0)


LOOP_ROUNDS = 5
STREAM_ROUNDS = 3


def rotating_rounds(fns: dict, rounds: int, rep: int) -> dict:
    """Each launcher's median time over ``rounds`` rounds, the order rotating between rounds, so that drift over the
    run (the copy kernels of one H100 run read 1.5-2% below an earlier run's) falls on all of them alike."""
    names = list(fns)
    times = {n: [] for n in names}
    for i in range(rounds):
        for n in names[i % len(names) :] + names[: i % len(names)]:
            times[n].append(median_ms(fns[n], rep))
    return {n: float(np.median(ts)) for n, ts in times.items()}


def per_sm_ns(run, grid: int, sms: int, rep: int, per_k: int = 2) -> float:
    """LOOP's ns per operation per tile per SM, from K = 64 and K = 128 (docs/design.md §10): ``per_k`` operations
    per K (2 conversions a round trip; 1 gather)."""
    t = {k: median_ms(lambda k=k: run(k, grid), rep) for k in KS}
    return (t[KS[1]] - t[KS[0]]) * 1e6 / ((KS[1] - KS[0]) * per_k * grid) * sms


def _loop_times(r: dict, run, tiles_thr: int, tiles_lat: int, sms: int, rep: int, latency: bool = True) -> None:
    """Throughput (32 CTAs per SM) and, with ``latency``, latency (one CTA per SM) forms of LOOP, into r."""
    r["loop_per_sm_ns"] = per_sm_ns(run, tiles_thr, sms, rep)
    r["loop_thr_ns"] = r["loop_per_sm_ns"] / sms
    if latency:
        r["loop_lat_ns"] = per_sm_ns(run, tiles_lat, sms, rep) / sms * tiles_lat


def _alternate(results: dict, launches: dict, grid: int, sms: int, rep: int) -> None:
    """Time llgen's and Triton's LOOP again in LOOP_ROUNDS rounds, alternating which goes first, and keep each
    side's median: where both sit at the same limit, a single pair of readings drifted by up to 0.5% with the
    order of measurement (lanes_f32 and b2bT_f16 on the H100, bench/NOTES.md)."""
    rounds = {n: [] for n in ("llgen", "triton")}
    for i in range(LOOP_ROUNDS):
        for n in ("llgen", "triton") if i % 2 == 0 else ("triton", "llgen"):
            rounds[n].append(per_sm_ns(launches[n], grid, sms, rep))
    for n, ts in rounds.items():
        results[n].update(loop_rounds_ns=ts, loop_per_sm_ns=float(np.median(ts)))
        results[n]["loop_thr_ns"] = results[n]["loop_per_sm_ns"] / sms


def stream_grid(sms: int, block: int) -> int:
    """CTAs for STREAM and copy, which walk the tiles grid-stride: two waves of 4-warp CTAs (as since the first
    runs), one wave of the 8-warp CTAs that group one-warp conversions. On the H100 one and two waves of those
    measured within 0.2% of each other (t16x32's copy, bench/probes.txt)."""
    return sms * 32 if block <= 128 else sms * 2048 // block


def _triton(case, x, y, loop_ref, xs, nstream, sms, rep, log, launches: dict) -> dict:
    """Triton's LOOP (checked against NumPy as ours is) and STREAM for the case; a failure is the row's "error"."""
    r = {"path": "triton"}
    try:
        import torch

        from .gluon import TORCH_DTYPES, TritonCase

        tdt = getattr(torch, TORCH_DTYPES[case.dtype])
        tx = torch.as_tensor(x, device="cuda").view(tdt)
        ty = torch.as_tensor(y, device="cuda").view(tdt)  # y's memory: the check reads it with CuPy
        tc = TritonCase(case.src, case.dst, case.warps, case.dtype)

        def run(k, g):
            tc.loop(tx, ty, k, g)

        r.update(check_loop(lambda k: run(k, sms * 32), y, loop_ref, case.shape))
        _loop_times(r, run, sms * 32, sms, sms, rep)
        launches["triton"] = run
        r.update(tc.resources())
        if xs is not None:
            txs = torch.as_tensor(xs, device="cuda").view(tdt)
            tys = torch.empty_like(txs)
            r["stream_ms"] = median_ms(lambda: tc.stream(txs, tys, 0.0, nstream), rep)
            r["copy_ms"] = median_ms(lambda: tc.stream(txs, tys, 0.0, nstream, convert=False), rep)
            r["stream_ratio"] = r["stream_ms"] / r["copy_ms"]
    except Exception as e:  # noqa: BLE001 - Triton's failure is reported, the rest of the run goes on
        r["error"] = one_line(e)
    log(f"  {case.id} / triton: {_short(r)}")
    return r


def _ideal_clocks(plan) -> float:
    """Clocks of one SM for one conversion at the hardware's limit: the data-volume floor of
    shared-memory wavefronts, or one warp-wide shuffle per clock; 0 when no data moves."""
    if plan.path == "shared":
        return plan.detail.floor_wavefronts
    if plan.path == "shuffle":
        return plan.detail.shuffles * plan.warps
    return 0.0


def _wf(fwd, bwd) -> dict:
    out = {}
    for tag, p in (("fwd", fwd), ("bwd", bwd)):
        if p.path == "shared":
            d = p.detail
            out[tag] = {"st": d.predicted_store_wavefronts, "ld": d.predicted_load_wavefronts, "floor": d.floor_wavefronts}
    return out


def _short(r: dict) -> str:
    keys = ("path", "loop_per_sm_ns", "loop_lat_ns", "stream_ratio", "regs", "loop_correct", "error")
    return ", ".join(f"{k}={r[k]:.3g}" if isinstance(r.get(k), float) else f"{k}={r[k]}" for k in keys if k in r)


def d2d_copy_gbps(rep: int, nbytes: int = 4 << 30) -> float:
    """cudaMemcpy device to device of ``nbytes``: GB/s read + written."""
    import cupy as cp

    a = cp.empty(nbytes, dtype=cp.uint8)
    b = cp.empty_like(a)
    dst, src, n = b.data.ptr, a.data.ptr, a.nbytes
    ms = median_ms(lambda: cp.cuda.runtime.memcpyAsync(dst, src, n, 3, 0), rep)
    a = b = None
    cp.get_default_memory_pool().free_all_blocks()
    return 2 * n / ms / 1e6


def device_info() -> dict:
    import subprocess

    import cupy as cp

    from llgen.runtime.compile import nvrtc_version

    props = cp.cuda.runtime.getDeviceProperties(0)
    info = {
        "device": props["name"].decode(),
        "sms": props["multiProcessorCount"],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "nvrtc": nvrtc_version(cp),
        "commit": os.environ.get("LLGEN_COMMIT", "?"),
    }  # the GPU machine gets a copy of the tree without .git
    try:
        q = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.max.sm,clocks.mem", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=False,
            timeout=20,
        )
        info["nvidia_smi"] = q.stdout.strip()
    except Exception as e:  # noqa: BLE001 - informational only
        info["nvidia_smi"] = repr(e)
    return info


def _save_cases(cases, path: Path, options: dict | None = None, baselines: bool = True) -> str:
    """The cases and the plan options as JSON, for a worker process under ncu to rebuild with _load_cases."""
    path.write_text(
        json.dumps(
            {
                "options": options or {},
                "baselines": baselines,
                "cases": [
                    {
                        "id": c.id,
                        "dtype": c.dtype,
                        "shape": list(c.shape),
                        "warps": c.warps,
                        "src": c.src.to_dict(),
                        "dst": c.dst.to_dict(),
                        "note": c.note,
                        "smem_budget": c.smem_budget,
                    }
                    for c in cases
                ],
            }
        )
    )
    return str(path)


def _load_cases(cases_json: str) -> tuple[list, dict]:
    """(cases, plan options) saved by _save_cases."""
    from llgen.layout import LinearLayout
    from llgen.suite import Case

    saved = json.loads(Path(cases_json).read_text())
    return [
        Case(
            c["id"],
            c["dtype"],
            tuple(c["shape"]),
            c["warps"],
            LinearLayout.from_dict(c["src"]),
            LinearLayout.from_dict(c["dst"]),
            c.get("note", ""),
            c.get("smem_budget"),
        )
        for c in saved["cases"]
    ], saved["options"]


def wavefront_plans(cases_json: str, target: str) -> list[tuple[str, object]]:
    """Every variant's two plans for the cases saved by `run` (runtime.ncu's worker rebuilds them from the file),
    named <case>_<variant>_<fwd|bwd>."""
    out = []
    cases, options = _load_cases(cases_json)
    baselines = json.loads(Path(cases_json).read_text()).get("baselines", True)
    for case in cases:
        try:
            vs = variants(case, target, options, baselines)
        except LlgenError:  # the case is an error row of the report already
            continue
        for v in vs:
            out += [(f"{case.id}_{v.name}_fwd", v.fwd), (f"{case.id}_{v.name}_bwd", v.bwd)]
    return out


def loop_ratio(case_result: dict) -> float | None:
    """Triton's LOOP time over llgen's for one case of a report; None where either is missing, or where Triton's
    loop was folded (triton_folded)."""
    v = case_result["variants"]
    me, tr = v.get("llgen", {}).get("loop_per_sm_ns"), v.get("triton", {}).get("loop_per_sm_ns")
    if triton_folded(case_result):
        return None
    return tr / me if me and tr and me > 0 else None


def triton_folded(case_result: dict) -> bool:
    """Whether Triton's LOOP measured less than its own `+ 1` can take: one add per 32-bit word of the tile every
    round trip, at four warp instructions a clock and 2 GHz. Only a loop the compiler collapsed gets there: LLVM
    folds k integer `+ 1`s of a register permutation into one add of k (regperm_i8); Triton's loop has no barrier
    against it, as ours has LLGEN_KEEP."""
    tr = case_result["variants"].get("triton", {}).get("loop_per_sm_ns")
    shape, dtype = case_result.get("shape"), case_result.get("dtype")
    if not tr or not shape or not dtype:
        return False
    words = max(1, math.prod(shape) * to_dtype(dtype).bytes // 4)
    floor_ns = words / 32 / 4 / 2 / 2.0  # warp instructions, 4 a clock, per conversion (2 a round trip), at 2 GHz
    return tr < floor_ns


PIPE_TIE = 1.01  # LOOP cases with Triton / llgen under this get the pipe counters of both LOOP kernels
PIPE_K = 1024


def loop_launches(cases_json: str, target: str) -> None:
    """runtime.ncu's worker for `measure_pipes`: per case, llgen's LOOP kernel (<case>_loop) and then Triton's
    (loop_kernel), each launched once with 32 CTAs per SM, as LOOP times them, and PIPE_K round trips, so that the
    tile's load and store around the loop weigh little (LOOP's timing cancels them: it is a slope in K)."""
    import cupy as cp
    import torch

    from .gluon import TORCH_DTYPES, TritonCase

    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    cases, options = _load_cases(cases_json)
    for case in cases:
        v = variants(case, target, options)[0]
        tile, raw = 1 << case.src.total_out_bits, raw_dtype(case.dtype).type
        x = cp.asarray(loop_input(case.dtype, raw, tile * sms * 32, np.random.default_rng(1)))
        y = cp.empty_like(x)
        # built as the bench built it (compile_all: for one CTA an SM where ptxas's own budget spills)
        name = f"{case.id}_loop"
        loop = compile_all({case.id: emit_bench(v.fwd, v.bwd, case.id)}, loop=name)[case.id].get_function(name)
        smem = loop_scratch(v.fwd, v.bwd).bytes
        loop.max_dynamic_shared_size_bytes = smem
        loop((sms * 32,), (case.warps * 32,), (x, y, np.int32(PIPE_K)), shared_mem=smem)
        tx = torch.as_tensor(x, device="cuda").view(getattr(torch, TORCH_DTYPES[case.dtype]))
        TritonCase(case.src, case.dst, case.warps, case.dtype).loop(tx, torch.empty_like(tx), PIPE_K, sms * 32)
        cp.cuda.Device(0).synchronize()


def measure_pipes(cases, target: str, report: dict, log, options: dict | None = None) -> None:
    """Where llgen's LOOP is not clearly ahead of Triton's (ratio under PIPE_TIE), Nsight Compute's word on how busy
    each LOOP kernel keeps the LSU data pipe, which shared-memory wavefronts and shuffles both go through: a kernel
    that keeps it busy with no more wavefronts or shuffles than the conversion needs is at the hardware's limit.
    variant["pipe"] = {busy_pct (of the cycles its SMs had work), busy_pct_elapsed, wavefronts, cycles} for llgen
    and triton."""
    from .ncu import ALU_BUSY, PIPE_BUSY, pipe_busy

    close = [c for c, rc in zip(cases, report["cases"], strict=True) if (loop_ratio(rc) or PIPE_TIE) < PIPE_TIE]
    if not close:
        return
    with tempfile.TemporaryDirectory(prefix="llgen-pipes-") as tmp:
        call = f"llgen.runtime.bench:loop_launches {_save_cases(close, Path(tmp) / 'cases.json', options)} {target}"
        res = pipe_busy(call, "regex:_loop$|^loop_kernel$", 300, Path(tmp))
    triton = iter(res["kernels"].get("loop_kernel", []))
    by_id = {rc["id"]: rc for rc in report["cases"]}
    for c in close:
        for name, m in (("llgen", (res["kernels"].get(f"{c.id}_loop") or [None])[0]), ("triton", next(triton, None))):
            if m and PIPE_BUSY in m:
                by_id[c.id]["variants"][name]["pipe"] = {
                    "busy_pct": m[PIPE_BUSY],
                    "alu_busy_pct": m.get(ALU_BUSY),
                    "wavefronts": m.get("l1tex__data_pipe_lsu_wavefronts.sum"),
                    "busy_pct_elapsed": m.get("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"),
                    "cycles": m.get("sm__cycles_elapsed.avg"),
                }
    log(
        f"ncu: the LSU data pipe of {len(close)} close case(s) in {res['seconds']} s (rc {res['rc']}): "
        + ", ".join(
            f"{c.id} "
            + "/".join(
                f"{by_id[c.id]['variants'][n].get('pipe', {}).get('busy_pct', float('nan')):.1f}%" for n in ("llgen", "triton")
            )
            for c in close
        )
    )


def measure_wavefronts(cases, target: str, report: dict, log, options: dict | None = None, baselines: bool = True) -> None:
    """Nsight Compute's shared-memory wavefronts of every shared-memory variant (one tile's debug kernel each),
    next to the prediction: variant["wavefronts_meas"][fwd|bwd] = {st, ld, pred_st, pred_ld, floor, verdict}."""
    from .ncu import measure

    with tempfile.TemporaryDirectory(prefix="llgen-bench-") as tmp:
        path = _save_cases(cases, Path(tmp) / "cases.json", options, baselines)
        res = measure(
            wavefront_plans(path, target), f"llgen.runtime.bench:wavefront_plans {path} {target}", 600, Path(tmp), target, log
        )
    report["info"]["ncu"] = {k: res[k] for k in ("metrics", "rc", "timed_out", "seconds")}
    for c in report["cases"]:
        for name, v in c["variants"].items():
            for tag in ("fwd", "bwd"):
                row = res["rows"].get(f"{c['id']}_{name}_{tag}")
                if row:
                    v.setdefault("wavefronts_meas", {})[tag] = {
                        "st": row["st_wf"],
                        "ld": row["ld_wf"],
                        "pred_st": row["pred_st_wf"],
                        "pred_ld": row["pred_ld_wf"],
                        "floor": row["floor_wf"],
                        "verdict": row["verdict"],
                        "launches": row["launches"],
                    }
    log(f"ncu: {len(res['rows'])} shared-memory kernels measured in {res['seconds']} s (rc {res['rc']})")


def select_shard(cases: list, shard: tuple[int, int] | None) -> list:
    """Piece i of n (1-based) of ``cases``: every n-th case from the i-th, so that the pieces take about as long."""
    if not shard:
        return list(cases)
    i, n = shard
    if not 1 <= i <= n:
        raise LlgenError(f"shard {i}/{n} does not exist: use 1/{n} to {n}/{n}.")
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


def run(
    cases,
    target: str = "sm_90",
    measures=("loop", "stream"),
    rep: int = 100,
    with_triton: bool = True,
    log=print,
    plan_options: dict | None = None,
    *,
    suite: str | None = None,
    shard: tuple[int, int] | None = None,
    baselines: bool = True,
    time_budget_s: float | None = None,
    on_case=None,
) -> dict:
    """Benchmark ``cases`` (piece ``shard`` = (i, n) of them); returns the report dict (see write_report). Each case
    result names its ``suite``. ``baselines``: also the naive and classic shared-memory kernels. "gather" in
    ``measures`` adds the gather benchmark (runtime.gatherbench). Past ``time_budget_s`` the remaining cases become
    rows that say so; ``on_case(report)`` is called after each case (to save partial results). Without a CUDA GPU
    this raises RuntimeUnavailable (one sentence); without Triton the run goes on and the report says the baseline
    is missing. Nothing else raises: a case or variant that fails is a row that says why."""
    from .compile import device

    t0 = time.monotonic()
    device(target)  # CuPy and a GPU, or one clear sentence
    cases = select_shard(cases, shard)
    report = {"info": device_info(), "measures": list(measures), "cases": []}
    report["info"].update(suite=suite, shard=list(shard) if shard else None, baselines=baselines)
    if with_triton:
        try:
            import torch  # noqa: F401
            import triton  # noqa: F401
        except ImportError as e:
            with_triton = False
            report["info"]["triton"] = f"not run: {e.name} is not installed"
            log(f"Triton's baseline is not run: {e.name} is not installed")
    for case in cases:
        log(f"[{len(report['cases']) + 1}/{len(cases)}] {case.id}")
        if time_budget_s is not None and time.monotonic() - t0 > time_budget_s:
            res = {"id": case.id, "dtype": case.dtype, "shape": list(case.shape), "warps": case.warps, "variants": {}}
            res["error"] = f"not run: the run's time budget of {time_budget_s:.0f} s was spent"
        else:
            res = run_case(case, target, set(measures), rep, with_triton, log, plan_options, baselines)
        if suite:
            res["suite"] = suite
        report["cases"].append(res)
        if on_case:
            on_case(report)
    if "wavefronts" in measures:
        _guarded(report, "wavefronts", log, measure_wavefronts, cases, target, report, log, plan_options, baselines)
        if "loop" in measures and with_triton:
            _guarded(report, "pipes", log, measure_pipes, cases, target, report, log, plan_options)
    if "gather" in measures:
        from .gatherbench import run_gather

        report["gather"] = run_gather(target=target, rep=rep, with_triton=with_triton, log=log)
    report["info"]["date_end"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    report["info"]["seconds"] = round(time.monotonic() - t0, 1)
    return report


def _guarded(report: dict, what: str, log, fn, *args) -> None:
    """fn(*args); a failure is written into report["info"]["errors"][what] instead of ending the run."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        report["info"].setdefault("errors", {})[what] = one_line(e)
        log(f"{what}: {one_line(e)}")


def write_json(report: dict, path: str) -> None:
    write_atomic(path, json.dumps(report, indent=1, default=str), make_dirs=True)


def merge_reports(paths, outdir: str | None = None) -> dict:
    """One report from the JSON of several runs (suites, shards, gather): cases in their suite's order, suites in the
    order they first appear, the first run's device information with every run listed under info["runs"]. With
    ``outdir``, also writes report.md, report.json and report.png there (benchreport.write_report)."""
    parts = [json.loads(Path(p).read_text()) for p in paths]
    if not parts:
        raise LlgenError("no reports to merge.")
    info = dict(parts[0]["info"])
    keep = ("suite", "shard", "date", "date_end", "seconds", "device", "commit", "nvidia_smi")
    info["runs"] = [{k: p["info"].get(k) for k in keep} | {"cases": len(p.get("cases", []))} for p in parts]
    info["date"] = min(p["info"].get("date", "") for p in parts)
    info["date_end"] = max(p["info"].get("date_end", "") for p in parts)
    devices = {p["info"].get("device") for p in parts}
    if len(devices) > 1:
        info["warning"] = f"the runs were on different devices: {sorted(map(str, devices))}"
    for k in ("suite", "shard", "seconds"):
        info.pop(k, None)
    merged = {"info": info, "measures": [], "cases": []}
    for p in parts:
        merged["measures"] += [m for m in p.get("measures", []) if m not in merged["measures"]]
    by_key = {}
    for p in parts:
        for c in p.get("cases", []):
            by_key.pop((c.get("suite"), c["id"]), None)
            by_key[(c.get("suite"), c["id"])] = c  # a case run twice: the later run's
    merged["cases"] = _in_suite_order(list(by_key.values()))
    gathers = [g for p in parts for g in p.get("gather", [])]
    if gathers:
        merged["gather"] = gathers
    if outdir is not None:
        from .benchreport import write_report

        write_report(merged, outdir)
    return merged


def _in_suite_order(cases: list[dict]) -> list[dict]:
    """Cases grouped by suite (in the order suites first appear), each suite in llgen.suite's order of its cases
    (cases it does not list, and suites it does not know, keep the order they came in)."""
    from llgen.suite import SUITES

    groups: dict = {}
    for c in cases:
        groups.setdefault(c.get("suite"), []).append(c)
    out = []
    for name, cs in groups.items():
        order = {}
        if name in SUITES:
            try:
                order = {c.id: i for i, c in enumerate(SUITES[name]())}
            except Exception:  # noqa: BLE001 - ordering only
                order = {}
        out += sorted(cs, key=lambda c, order=order: order.get(c["id"], len(order)))  # stable: unknown ones keep their order
    return out


def _parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise LlgenError(f"shard '{text}' is not of the form I/N (e.g. 2/3).") from None
    return i, n


def main(argv=None) -> int:
    """python -m llgen.runtime.bench run | merge | calibrate (see --help): the benchmark in pieces on a GPU machine,
    without the CLI."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m llgen.runtime.bench", description=main.__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="benchmark a suite (or a piece of it); write its JSON after every case")
    r.add_argument("--suite", default="core", help="core, wide, regressions, or none (only the gather benchmark)")
    r.add_argument("--shard", default=None, help="I/N: the I-th of N pieces of the suite")
    r.add_argument("--cases", default=None, help="comma list of case ids: only these (a rerun that merge puts in place)")
    r.add_argument("--measures", default="loop,stream", help="comma list of loop, stream, wavefronts, gather")
    r.add_argument("--rep", type=int, default=100, help="do_bench repetition time (ms) per measurement")
    r.add_argument("--target", default="sm_90")
    r.add_argument("--smem-budget", type=int, default=None)
    r.add_argument("--no-triton", action="store_true")
    r.add_argument("--baselines", choices=("yes", "no", "auto"), default="auto", help="naive and classic (auto: core only)")
    r.add_argument("--time-budget", type=float, default=None, help="seconds; later cases become 'not run' rows")
    r.add_argument("-o", "--out", required=True, help="the JSON to write")
    m = sub.add_parser("merge", help="merge run JSONs into one report (report.md, report.json, report.png)")
    m.add_argument("-o", "--outdir", required=True)
    m.add_argument("parts", nargs="+")
    c = sub.add_parser("calibrate", help="write the calibration table (measured LOOP ns and the model's cost)")
    c.add_argument("report")
    c.add_argument("-o", "--out", default="tests/data/calibration.json")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "merge":
            merge_reports(args.parts, args.outdir)
            print("\n".join(str(Path(args.outdir) / f) for f in ("report.md", "report.json", "report.png")))
        elif args.cmd == "calibrate":
            from .calibration import write_table

            print(write_table(json.loads(Path(args.report).read_text()), args.out))
        else:
            _main_run(args)
    except LlgenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def _main_run(args) -> None:
    from llgen.suite import suite as suite_cases

    measures = [x.strip() for x in args.measures.split(",") if x.strip()]
    unknown = set(measures) - {"loop", "stream", "wavefronts", "gather"}
    if unknown:
        raise LlgenError(f"unknown measure(s) {sorted(unknown)}; use loop, stream, wavefronts, gather.")
    name = None if args.suite == "none" else args.suite
    cases = select_cases(suite_cases(name) if name else [], args.cases)
    baselines = name == "core" if args.baselines == "auto" else args.baselines == "yes"

    def save(report):
        write_json(report, args.out)

    report = run(
        cases,
        args.target,
        measures,
        args.rep,
        not args.no_triton,
        log=lambda msg: print(msg, file=sys.stderr, flush=True),
        plan_options={"smem_budget": args.smem_budget} if args.smem_budget else {},
        suite=name,
        shard=_parse_shard(args.shard) if args.shard else None,
        baselines=baselines,
        time_budget_s=args.time_budget,
        on_case=save,
    )
    save(report)
    print(args.out)


if __name__ == "__main__":  # through the package's module, so that every import of it is the same one
    from llgen.runtime.bench import main as package_main

    sys.exit(package_main())
