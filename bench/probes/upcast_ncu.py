#!/usr/bin/env python3
"""Probe (run on the GPU machine): is the SASS loop of the mixed suite's upcast-alone kernel what executes? Issue 38's
upcast model (runtime/bench/mixed.py, upcast_model) counts the loop's SASS instructions and bounds them at 4 a clock
an SM and 2 a clock on the integer pipe; i4 kernels measured faster than that bound allows (session 22). Here each
case's upcast kernel runs under Nsight Compute at two step counts, as the suite launches it (4 CTAs an SM); the
difference gives what one warp executes a step, by pipe, and the cycles a step, beside the SASS loop's counts.

Usage, from the repository root: python3 bench/probes/upcast_ncu.py [case,case,...]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)  # the worker below is imported by name under ncu, in a new process
sys.path.insert(0, HERE)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, os.environ.get("PYTHONPATH")) if p)

CASES = (
    "mma2B_i4_k64_kmajor,mma2B_i4_k128_kmajor,mma2B_i4_k256_kmajor,wgmmaA_i4_k256_kmajor,mma2B_i4_k128_kmajor_f16,"
    "wgmmaA_i4_k128_kmajor_f16,mma2B_e2m1_k256_kmajor,mma2B_i8_k128_kmajor,wgmmaA_i8_k128_kmajor,mma2B_f8e4m3_k128_kmajor"
)
STEPS = (64, 576)  # long enough that the launch and its ramp weigh little in the difference of cycles
INST = "smsp__inst_executed.sum"
PIPES = ("alu", "fma", "fmaheavy", "fmalite", "fp16", "xu")
CYCLES = "sm__cycles_active.avg"  # an SM busy with the kernel
DURATION = "gpu__time_duration.sum"  # ns, under ncu (its clocks locked to base)
CLOCK = "sm__cycles_elapsed.avg.per_second"  # the SM clock under ncu, Hz
METRICS = [INST, CYCLES, DURATION, CLOCK, *(f"sm__inst_executed_pipe_{p}.sum" for p in PIPES)]


def _cases(ids: str) -> list:
    from llgen.cases.mixed import CASES as ALL

    by_id = {c.id: c for c in ALL}
    return [by_id[i] for i in ids.split(",")]


def launches(ids: str) -> None:
    """ncu's worker: each case's upcast-alone kernel as the mixed suite times it (4 CTAs an SM), once for each of
    STEPS."""
    import cupy as cp

    from llgen.cases.mixed import CTAS_PER_SM
    from llgen.runtime.bench.mixed import upcast_alone

    grid = cp.cuda.Device(0).attributes["MultiProcessorCount"] * CTAS_PER_SM
    for case in _cases(ids):
        run = upcast_alone(case, cp, grid)
        for steps in STEPS:
            run(steps, grid)
        cp.cuda.Device(0).synchronize()


def main() -> int:
    import cupy as cp

    from llgen.cases.mixed import CTAS_PER_SM, WARPS
    from llgen.runtime.bench.mixed import upcast_model
    from llgen.runtime.ncu import pipe_busy

    ids = sys.argv[1] if len(sys.argv) > 1 else CASES
    with tempfile.TemporaryDirectory() as tmp:
        res = pipe_busy(f"upcast_ncu:launches {ids}", "regex:^mixed_upcast$", 400, Path(tmp), METRICS)
    print(f"ncu rc {res['rc']}, {res['seconds']} s {res['out'] if res['rc'] else ''}")
    runs = iter(res["kernels"].get("mixed_upcast", []))
    timing = {}
    print("per warp and step: SASS loop (ALU), executed, by pipe; SM cycles a step, warp instructions a clock an SM")
    print(f"{'case':30} {'sass':>6} {'alu':>5} {'exec':>7} " + " ".join(f"{p:>8}" for p in PIPES) + f" {'cyc':>7} {'ipc':>5}")
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    warps = WARPS * CTAS_PER_SM * sms  # the launch's warps
    for case in _cases(ids):
        lo, hi = next(runs, {}), next(runs, {})
        model = upcast_model(case, 1.0)  # the SASS loop's counts, as the suite's model reads them
        sass, alu = model["upcast_instructions"], model["upcast_alu"]

        def per_step(metric, per=1, lo=lo, hi=hi):
            if metric not in lo or metric not in hi:
                return float("nan")
            return (hi[metric] - lo[metric]) / (STEPS[1] - STEPS[0]) / per

        execd = per_step(INST, warps)
        pipes = [per_step(f"sm__inst_executed_pipe_{p}.sum", warps) for p in PIPES]
        cyc = per_step(CYCLES)  # an SM's cycles a step (the average over SMs)
        ipc = execd * warps / sms / cyc if cyc else float("nan")
        print(f"{case.id:30} {sass:6d} {alu:5d} {execd:7.1f} " + " ".join(f"{v:8.1f}" for v in pipes) + f" {cyc:7.1f} {ipc:5.2f}")
        timing[case.id] = (cyc, per_step(DURATION), hi.get(CLOCK, float("nan")) / 1e9)
    # the same launches outside ncu, timed by events as the suite times them (its median of do_bench), at the
    # suite's clocks: an SM's ns a step from both, and the clock the cycles imply
    from llgen.runtime.bench.mixed import upcast_alone
    from llgen.runtime.bench.rules import KS_MIXED
    from llgen.runtime.bench.timing import median_ms

    print(
        "\nan SM's step: ncu cycles, ncu ns and clock (GHz), events ns outside ncu (64 and 576 steps), implied GHz;"
        f" events ns between 64 and 128 steps (the suite's slope before session 26) and between {KS_MIXED} (since)"
    )
    grid = sms * CTAS_PER_SM
    for case in _cases(ids):
        run = upcast_alone(case, cp, grid)
        t = {k: median_ms(lambda k=k, run=run: run(k, grid), 25) for k in {*STEPS, 128, *KS_MIXED}}

        def slope(k0, k1, t=t):
            return (t[k1] - t[k0]) * 1e6 / (k1 - k0)

        ev = slope(*STEPS)
        cyc, ncu_ns, ghz = timing[case.id]
        print(
            f"{case.id:30} {cyc:8.1f} {ncu_ns:9.1f} {ghz:5.2f} {ev:9.1f} {cyc / ev if ev else float('nan'):6.2f}"
            f" {slope(64, 128):9.1f} {slope(*KS_MIXED):9.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
