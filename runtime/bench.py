"""`llgen bench`: LOOP and STREAM (docs/design.md §10) for llgen's plans and their baselines, in one
run on one GPU: naive (unswizzled, scalar), classic swizzle, forced shuffle / shared, and
Triton's own convert_layout (Gluon) between the same layouts.

Times are medians of `triton.testing.do_bench` (CUDA events; L2 flushed between reps) for every
kernel, ours (launched through CuPy on the same default stream) and Triton's.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from llgen.dtypes import dtype as to_dtype
from llgen.emit import emit_bench, loop_scratch, plan_scratch_bytes, stream_groups, stream_smem
from llgen.errors import LlgenError
from llgen.files import write_atomic
from llgen.plan import plan_conversion

from .reference import loop_input, plus_one, raw_dtype

KS = (64, 128)
STREAM_BYTES = 1 << 30


@dataclass
class Variant:
    name: str
    fwd: object
    bwd: object
    results: dict = field(default_factory=dict)


def variants(case, target: str, options: dict | None = None) -> list[Variant]:
    """llgen's own choice and every baseline that is valid for the case; ``options`` go to every plan."""

    def pair(**kw):
        kw.update(options or {})
        return (
            plan_conversion(case.src, case.dst, case.dtype, target, **kw),
            plan_conversion(case.dst, case.src, case.dtype, target, **kw),
        )

    out = [Variant("llgen", *pair())]
    for name, kw in (
        ("naive", {"path": "shared", "swizzle": "unswizzled", "scalar": True}),
        ("classic", {"path": "shared", "swizzle": "classic", "matrix": False}),
        ("shared", {"path": "shared"}),
        ("shuffle", {"path": "shuffle"}),
    ):
        try:
            f, b = pair(**kw)
        except LlgenError:  # a forced path that cannot work for this case
            continue
        if name in ("shared", "shuffle") and f.path == out[0].fwd.path and b.path == out[0].bwd.path:
            continue  # the same kernels as llgen's own choice
        out.append(Variant(name, f, b))
    return out


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


def run_case(case, target: str, measures: set[str], rep: int, with_triton: bool, log, options: dict | None = None) -> dict:
    import cupy as cp

    dev = cp.cuda.Device(0)
    sms = dev.attributes["MultiProcessorCount"]
    tile = 1 << case.src.total_out_bits
    raw = raw_dtype(case.dtype).type
    rng = np.random.default_rng()
    res = {
        "id": case.id,
        "dtype": case.dtype,
        "shape": list(case.shape),
        "warps": case.warps,
        "variants": {},
        "coalesced_a": coalesced(case.src, to_dtype(case.dtype).bytes),
    }
    threads = case.warps * 32
    tiles_thr, tiles_lat = sms * 32, sms
    x_host = loop_input(case.dtype, raw, tile * tiles_thr, rng)
    x = cp.asarray(x_host)
    expect3 = cp.asarray(plus_one(case.dtype, x_host, 3))
    y = cp.empty_like(x)
    nstream = max(1, STREAM_BYTES // (tile * raw().itemsize))
    xs = ys = None
    if "stream" in measures:
        xs = cp.asarray(rng.integers(1, np.iinfo(raw).max, size=tile * nstream, dtype=raw, endpoint=True))
        ys = cp.empty_like(xs)
    launches = {}  # LOOP launchers (k, grid) of llgen's pick and Triton's, for the alternating rounds
    for v in variants(case, target, options):
        log(f"  {case.id} / {v.name}: compile")
        mod = cp.RawModule(code=emit_bench(v.fwd, v.bwd, "b"), options=("-std=c++17",))
        loop, stream, copy = (mod.get_function(f"b_{k}") for k in ("loop", "stream", "copy"))
        smem = loop_scratch(v.fwd, v.bwd).bytes  # LOOP's scratch is dynamic shared memory
        loop.max_dynamic_shared_size_bytes = smem
        r = {
            "path": f"{v.fwd.path}/{v.bwd.path}",
            "regs": loop.num_regs,
            "local_bytes": loop.local_size_bytes,
            "smem": max(plan_scratch_bytes(v.fwd), plan_scratch_bytes(v.bwd)),
            "wavefronts_pred": _wf(v.fwd, v.bwd),
            "ideal_clocks": (_ideal_clocks(v.fwd) + _ideal_clocks(v.bwd)) / 2,
        }
        # correctness of the loop kernel: k = 3 round trips add 3 in the tile's dtype
        y[:] = 0
        loop((tiles_thr,), (threads,), (x, y, np.int32(3)), shared_mem=smem)
        r["loop_correct"] = bool((y == expect3).all())
        if "loop" in measures:

            def run(k, g, f=loop, smem=smem):
                f((g,), (threads,), (x, y, np.int32(k)), shared_mem=smem)

            _loop_times(r, run, tiles_thr, tiles_lat, sms, rep)
            launches[v.name] = run
        if "stream" in measures:
            block = threads * stream_groups(v.fwd, v.bwd)
            grid = min(nstream, stream_grid(sms, block))
            ss = stream_smem(v.fwd, v.bwd)
            stream.max_dynamic_shared_size_bytes = ss
            ys[:] = 0
            stream((grid,), (block,), (xs, ys, np.int32(nstream), raw(0)), shared_mem=ss)
            r["stream_correct"] = bool((ys == xs).all())
            args = (xs, ys, np.int32(nstream), raw(0))
            fns = {
                "stream": lambda f=stream, g=grid, b=block, a=args, ss=ss: f((g,), (b,), a, shared_mem=ss),
                "copy": lambda f=copy, g=grid, b=block, a=args: f((g,), (b,), a),
            }
            if v.name == "llgen":  # the roofline of our copy: cudaMemcpy of the same bytes, timed between its rounds
                fns["d2d"] = lambda: cp.cuda.runtime.memcpyAsync(ys.data.ptr, xs.data.ptr, xs.nbytes, 3, 0)
            t = _rounds(fns, STREAM_ROUNDS if v.name == "llgen" else 1, rep)
            r.update(
                stream_ms=t["stream"],
                copy_ms=t["copy"],
                stream_ratio=t["stream"] / t["copy"],
                copy_GBps=2 * xs.nbytes / t["copy"] / 1e6,
            )
            if "d2d" in t:
                r.update(d2d_ms=t["d2d"], copy_vs_d2d=t["d2d"] / t["copy"])
        res["variants"][v.name] = r
        log(f"  {case.id} / {v.name}: {_short(r)}")
    if with_triton:
        res["variants"]["triton"] = _triton(case, x, xs, nstream, sms, rep, log, launches)
    if "llgen" in launches and "triton" in launches:
        _alternate(res["variants"], launches, tiles_thr, sms, rep)
        log(
            f"  {case.id}: llgen vs triton, {LOOP_ROUNDS} alternating rounds: "
            + ", ".join(f"{n} {res['variants'][n]['loop_per_sm_ns']:.2f} ns" for n in ("llgen", "triton"))
        )
    return res


LOOP_ROUNDS = 5
STREAM_ROUNDS = 3


def _rounds(fns: dict, rounds: int, rep: int) -> dict:
    """Each launcher's median time over ``rounds`` rounds, the order rotating between rounds, so that drift over the
    run (the copy kernels of one H100 run read 1.5-2% below an earlier run's) falls on all of them alike."""
    names = list(fns)
    times = {n: [] for n in names}
    for i in range(rounds):
        for n in names[i % len(names) :] + names[: i % len(names)]:
            times[n].append(median_ms(fns[n], rep))
    return {n: float(np.median(ts)) for n, ts in times.items()}


def per_sm_ns(run, grid: int, sms: int, rep: int) -> float:
    """LOOP's ns per conversion per tile per SM, from K = 64 and K = 128 (docs/design.md §10)."""
    t = {k: median_ms(lambda k=k: run(k, grid), rep) for k in KS}
    return (t[KS[1]] - t[KS[0]]) * 1e6 / ((KS[1] - KS[0]) * 2 * grid) * sms


def _loop_times(r: dict, run, tiles_thr: int, tiles_lat: int, sms: int, rep: int) -> None:
    """Throughput (32 CTAs per SM) and latency (one CTA per SM) forms of LOOP, into r."""
    r["loop_per_sm_ns"] = per_sm_ns(run, tiles_thr, sms, rep)
    r["loop_thr_ns"] = r["loop_per_sm_ns"] / sms
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


def _triton(case, x, xs, nstream, sms, rep, log, launches: dict) -> dict:
    import torch

    from .gluon import TORCH_DTYPES, TritonCase

    r = {}
    try:
        tdt = getattr(torch, TORCH_DTYPES[case.dtype])
        tx = torch.as_tensor(x, device="cuda").view(tdt)
        ty = torch.empty_like(tx)
        tc = TritonCase(case.src, case.dst, case.warps)
        tc.loop(tx, ty, 1, sms * 32)

        def run(k, g):
            tc.loop(tx, ty, k, g)

        _loop_times(r, run, sms * 32, sms, sms, rep)
        launches["triton"] = run
        r.update(tc.resources())
        if xs is not None:
            txs = torch.as_tensor(xs, device="cuda").view(tdt)
            tys = torch.empty_like(txs)
            r["stream_ms"] = median_ms(lambda: tc.stream(txs, tys, 0.0, nstream), rep)
            r["copy_ms"] = median_ms(lambda: tc.stream(txs, tys, 0.0, nstream, convert=False), rep)
            r["stream_ratio"] = r["stream_ms"] / r["copy_ms"]
        r["path"] = "triton"
    except Exception as e:  # noqa: BLE001 - Triton's failure is reported, the rest of the run goes on
        r["error"] = repr(e)[:500]
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


def _save_cases(cases, path: Path, options: dict | None = None) -> str:
    """The cases and the plan options as JSON, for a worker process under ncu to rebuild with _load_cases."""
    path.write_text(
        json.dumps(
            {
                "options": options or {},
                "cases": [
                    {
                        "id": c.id,
                        "dtype": c.dtype,
                        "shape": list(c.shape),
                        "warps": c.warps,
                        "src": c.src.to_dict(),
                        "dst": c.dst.to_dict(),
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
            c["id"], c["dtype"], tuple(c["shape"]), c["warps"], LinearLayout.from_dict(c["src"]), LinearLayout.from_dict(c["dst"])
        )
        for c in saved["cases"]
    ], saved["options"]


def wavefront_plans(cases_json: str, target: str) -> list[tuple[str, object]]:
    """Every variant's two plans for the cases saved by `run` (runtime.ncu's worker rebuilds them from the file),
    named <case>_<variant>_<fwd|bwd>."""
    out = []
    cases, options = _load_cases(cases_json)
    for case in cases:
        for v in variants(case, target, options):
            out += [(f"{case.id}_{v.name}_fwd", v.fwd), (f"{case.id}_{v.name}_bwd", v.bwd)]
    return out


def loop_ratio(case_result: dict) -> float | None:
    """Triton's LOOP time over llgen's for one case of a report; None where either is missing."""
    v = case_result["variants"]
    me, tr = v.get("llgen", {}).get("loop_per_sm_ns"), v.get("triton", {}).get("loop_per_sm_ns")
    return tr / me if me and tr and me > 0 else None


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
        loop = cp.RawModule(code=emit_bench(v.fwd, v.bwd, case.id), options=("-std=c++17",)).get_function(f"{case.id}_loop")
        smem = loop_scratch(v.fwd, v.bwd).bytes
        loop.max_dynamic_shared_size_bytes = smem
        loop((sms * 32,), (case.warps * 32,), (x, y, np.int32(PIPE_K)), shared_mem=smem)
        tx = torch.as_tensor(x, device="cuda").view(getattr(torch, TORCH_DTYPES[case.dtype]))
        TritonCase(case.src, case.dst, case.warps).loop(tx, torch.empty_like(tx), PIPE_K, sms * 32)
        cp.cuda.Device(0).synchronize()


def measure_pipes(cases, target: str, report: dict, log, options: dict | None = None) -> None:
    """Where llgen's LOOP is not clearly ahead of Triton's (ratio under PIPE_TIE), Nsight Compute's word on how busy
    each LOOP kernel keeps the LSU data pipe, which shared-memory wavefronts and shuffles both go through: a kernel
    that keeps it busy with no more wavefronts or shuffles than the conversion needs is at the hardware's limit.
    variant["pipe"] = {busy_pct (of the cycles its SMs had work), busy_pct_elapsed, wavefronts, cycles} for llgen
    and triton."""
    from .ncu import PIPE_BUSY, pipe_busy

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


def measure_wavefronts(cases, target: str, report: dict, log, options: dict | None = None) -> None:
    """Nsight Compute's shared-memory wavefronts of every shared-memory variant (one tile's debug kernel each),
    next to the prediction: variant["wavefronts_meas"][fwd|bwd] = {st, ld, pred_st, pred_ld, floor, verdict}."""
    from .ncu import measure

    with tempfile.TemporaryDirectory(prefix="llgen-bench-") as tmp:
        path = _save_cases(cases, Path(tmp) / "cases.json", options)
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


def run(
    cases,
    target: str = "sm_90",
    measures=("loop", "stream"),
    rep: int = 100,
    with_triton: bool = True,
    log=print,
    plan_options: dict | None = None,
) -> dict:
    """Benchmark ``cases``; returns the report dict (see write_report). Without a CUDA GPU this raises
    RuntimeUnavailable (one sentence); without Triton the run goes on and the report says the baseline is missing."""
    from .compile import device

    device(target)  # CuPy and a GPU, or one clear sentence
    report = {"info": device_info(), "measures": list(measures), "cases": []}
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
        report["cases"].append(run_case(case, target, set(measures), rep, with_triton, log, plan_options))
    if "wavefronts" in measures:
        measure_wavefronts(cases, target, report, log, plan_options)
        if "loop" in measures and with_triton:
            measure_pipes(cases, target, report, log, plan_options)
    report["info"]["date_end"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    return report


def write_json(report: dict, path: str) -> None:
    write_atomic(path, json.dumps(report, indent=1, default=str), make_dirs=True)
