"""Where STREAM drifts from its copy, and what bounds the LOOP ties left with Triton (bench/NOTES.md).
Run on the GPU machine: `python3 bench/probes/stream_shape.py [PART ...] > OUT`.

1. ``stream``: llgen's pick of each case in STREAM and copy with U tiles loaded per step (U = 1, 2, 4, 8) and two
   grids: the bench's grid-stride grid (runtime.bench.timing.stream_grid) and exactly the CTAs that fit the SMs at once
   (each walks its share of the tiles, no second wave). Registers, stack, resident CTAs, the copy against a
   device-to-device copy of the same bytes, STREAM over copy.
2. ``pipes``: Nsight Compute's pipe, issue and stall counters of LOOP kernels (llgen's variants and Triton's, K =
   1024 round trips, 32 CTAs per SM as LOOP times them): which limit each sits at.
3. ``streamncu``: the same counters, with DRAM throughput and warps resident, of STREAM and copy kernels of 256 MB.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import cupy as cp
import numpy as np

from llgen.cases.suite import suite
from llgen.emit import emit_bench
from llgen.plan.benchshape import bench_shape, loop_scratch, stream_groups, stream_smem, stream_unroll
from llgen.plan.variants import variant_table
from llgen.runtime.bench.rules import stream_tiles
from llgen.runtime.bench.timing import median_ms, rotating_rounds, stream_grid
from llgen.runtime.reference import loop_input, raw_dtype

REP = 60
TARGET = "sm_90"
STREAM_CASES = (
    # the misses of earlier bench reports (bench/report.md) ...
    "w1_b2mma_f32",
    "r1_64_i8",
    "tiny_16x16_f32",
    "w8_b2mma_f32",
    "b2mma_256x128_f16",
    "b2dotB_f8e4m3",
    "r18_124_f8e5m2",
    # ... and cases within 1% of their copy, as controls
    "t16x32",
    "b2mma_f32",
    "w1_b2dotA_f16",
    "b2bT_i8",
    "r1_512_f32",
    "tiny_8x8_f16",
)
PIPE_CASES = (  # (case, llgen variants): Triton's LOOP runs after them
    ("mma2b_f8e5m2", ("llgen",)),
    ("r18_178_i64", ("llgen",)),
    ("r1_slice_256_f16", ("llgen", "shared")),
)
STREAMNCU_CASES = ("b2dotB_f8e4m3", "r1_64_i8", "r18_124_f8e5m2", "r1_slice_256_f16", "w8_b2mma_f32", "b2mma_f32")
NCU_METRICS = [
    "sm__cycles_elapsed.avg",
    "smsp__inst_executed.sum",
    "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active",
    "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
]


def by_id(cid: str):
    return next(c for c in suite("core") + suite("wide") if c.id == cid)


def pick(case, name: str = "llgen"):
    vs, _ = variant_table(case, TARGET, baselines=False)
    return next(v for v in vs if v.name == name or name in v.same_as)


def resident(f, block: int, smem: int) -> int:
    """CTAs of kernel ``f`` one SM holds at once (the driver's occupancy calculator; our own arithmetic if CuPy
    does not expose it)."""
    try:
        return int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(f.kernel.ptr, block, smem))
    except Exception:  # noqa: BLE001
        per_warp = -(-f.num_regs * 32 // 256) * 256
        by_regs = 65536 // (per_warp * (block // 32)) if f.num_regs else 32
        by_smem = 233472 // (smem + f.shared_size_bytes + 1024) if smem + f.shared_size_bytes else 32
        return max(1, min(by_regs, by_smem, 2048 // block, 32))


def stream_part() -> None:
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    print("## STREAM and copy by tiles a step (U) and grid\n")
    print("| case | U | regs s/c | stack s/c | CTAs/SM s/c | grid | copy/d2d | STREAM/copy | exact |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cid in STREAM_CASES:
        case = by_id(cid)
        v = pick(case)
        raw = raw_dtype(case.dtype).type
        tile = 1 << case.src.total_out_bits
        nstream = stream_tiles(tile * raw().itemsize)
        nbytes = tile * nstream * raw().itemsize
        xs = cp.random.randint(0, 1 << 31, size=nbytes // 4, dtype=cp.int32).view(raw)
        ys = cp.empty_like(xs)
        d2d = median_ms(lambda ys=ys, xs=xs: cp.cuda.runtime.memcpyAsync(ys.data.ptr, xs.data.ptr, xs.nbytes, 3, 0), REP)
        groups = stream_groups(v.fwd, v.bwd)
        block = case.warps * 32 * groups
        ss = stream_smem(v.fwd, v.bwd)
        for u in (1, 2, 4, 8):
            mod = cp.RawModule(code=emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd, u)), options=("-std=c++17",))
            stream, copy = mod.get_function("b_stream"), mod.get_function("b_copy")
            stream.max_dynamic_shared_size_bytes = ss
            occ = (resident(stream, block, ss), resident(copy, block, 0))
            ys[:] = 0
            args = (xs, ys, np.int32(nstream), raw(0))
            stream((min(nstream, stream_grid(sms, block)),), (block,), args, shared_mem=ss)
            exact = bool((ys == xs).all())
            steps = -(-nstream // (groups * u))
            for gname, gs, gc in (
                ("stride", stream_grid(sms, block), stream_grid(sms, block)),
                ("resident", occ[0] * sms, occ[1] * sms),
            ):
                gs, gc = min(steps, gs), min(steps, gc)
                t = rotating_rounds(
                    {
                        "stream": lambda gs=gs, f=stream, b=block, a=args, ss=ss: f((gs,), (b,), a, shared_mem=ss),
                        "copy": lambda gc=gc, f=copy, b=block, a=args: f((gc,), (b,), a),
                    },
                    3,
                    REP,
                )
                print(
                    f"| {cid} | {u}{'*' if u == stream_unroll(v.fwd) else ''} | {stream.num_regs}/{copy.num_regs} | "
                    f"{stream.local_size_bytes}/{copy.local_size_bytes} | {occ[0]}/{occ[1]} | {gname} {gs}/{gc} | "
                    f"{d2d / t['copy']:.3f} | {t['stream'] / t['copy']:.3f} | {exact} |",
                    flush=True,
                )
        del xs, ys
        cp.get_default_memory_pool().free_all_blocks()
    print("\n(U marked * is the bench's choice at this commit)\n")


def loop_worker(spec: str) -> None:
    """Under ncu: the LOOP kernels named in ``spec`` (JSON [[case, [variant, ...]], ...]), each with K = 1024, then
    Triton's for the case."""
    import torch

    from llgen.runtime.gluon import TORCH_DTYPES, TritonCase

    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    for cid, names in json.loads(Path(spec).read_text()):
        case = by_id(cid)
        raw = raw_dtype(case.dtype).type
        x = cp.asarray(loop_input(case.dtype, raw, (1 << case.src.total_out_bits) * sms * 32, np.random.default_rng(1)))
        y = cp.empty_like(x)
        for n in names:
            v = pick(case, n)
            f = cp.RawModule(
                code=emit_bench(v.fwd, v.bwd, f"{cid}_{n}", bench_shape(v.fwd, v.bwd)), options=("-std=c++17",)
            ).get_function(f"{cid}_{n}_loop")
            smem = loop_scratch(v.fwd, v.bwd).bytes
            f.max_dynamic_shared_size_bytes = smem
            f((sms * 32,), (case.warps * 32,), (x, y, np.int32(1024)), shared_mem=smem)
        tx = torch.as_tensor(x, device="cuda").view(getattr(torch, TORCH_DTYPES[case.dtype]))
        TritonCase(case.src, case.dst, case.warps, case.dtype).loop(tx, torch.empty_like(tx), 1024, sms * 32)
        cp.cuda.Device(0).synchronize()


def stream_worker(spec: str) -> None:
    """Under ncu: STREAM and copy (bench grid, the bench's U) of each case in ``spec`` (JSON list), over 256 MB."""
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    for cid in json.loads(Path(spec).read_text()):
        case = by_id(cid)
        v = pick(case)
        raw = raw_dtype(case.dtype).type
        tile = 1 << case.src.total_out_bits
        n = max(1, (256 << 20) // (tile * raw().itemsize))
        xs = cp.random.randint(0, 1 << 31, size=n * tile * raw().itemsize // 4, dtype=cp.int32).view(raw)
        ys = cp.empty_like(xs)
        mod = cp.RawModule(code=emit_bench(v.fwd, v.bwd, cid, bench_shape(v.fwd, v.bwd)), options=("-std=c++17",))
        block = case.warps * 32 * stream_groups(v.fwd, v.bwd)
        ss = stream_smem(v.fwd, v.bwd)
        s = mod.get_function(f"{cid}_stream")
        s.max_dynamic_shared_size_bytes = ss
        args = (xs, ys, np.int32(n), raw(0))
        s((min(n, stream_grid(sms, block)),), (block,), args, shared_mem=ss)
        mod.get_function(f"{cid}_copy")((min(n, stream_grid(sms, block)),), (block,), args)
        cp.cuda.Device(0).synchronize()


def ncu_part(kind: str) -> None:
    from llgen.runtime.ncu import pipe_busy

    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        if kind == "pipes":
            spec.write_text(json.dumps(PIPE_CASES))
            call, kernels = f"stream_shape:loop_worker {spec}", "regex:_loop$|^loop_kernel$"
        else:
            spec.write_text(json.dumps(STREAMNCU_CASES))
            call, kernels = f"stream_shape:stream_worker {spec}", "regex:_stream$|_copy$"
        res = pipe_busy(call, kernels, 280, Path(tmp) / "logs", metrics=NCU_METRICS)
    print(f"## ncu, {kind} (rc {res['rc']}, {res['seconds']} s, timed out: {res['timed_out']})\n")
    if not res["kernels"]:
        print(res["out"])
    triton_runs = iter(res["kernels"].get("loop_kernel", []))
    for cid, names in PIPE_CASES if kind == "pipes" else [(c, ()) for c in STREAMNCU_CASES]:
        rows = (
            [(f"{cid}_{n}_loop", (res["kernels"].get(f"{cid}_{n}_loop") or [{}])[0]) for n in names]
            + [(f"{cid} triton loop_kernel", next(triton_runs, {}))]
            if kind == "pipes"
            else [(f"{cid}_{k}", (res["kernels"].get(f"{cid}_{k}") or [{}])[0]) for k in ("stream", "copy")]
        )
        for name, m in rows:
            keep = [*NCU_METRICS, "launch__registers_per_thread", "launch__grid_size"]
            short = {
                k.replace("_per_issue_active.ratio", "").replace(".avg.pct_of_peak_sustained_active", " %"): m[k]
                for k in keep
                if k in m
            }
            print(f"- {name}: " + ", ".join(f"{k} {v:.4g}" for k, v in short.items()))


if __name__ == "__main__":
    parts = sys.argv[1:] or ["stream", "pipes", "streamncu"]
    for part in parts:
        if part == "stream":
            stream_part()
        else:
            ncu_part(part)
