#!/usr/bin/env python3
"""Probe (run on the GPU machine): where llgen's LOOP kernel and Triton's issue the same instructions and Triton's
still runs faster, what each warp waits on. Per case (ids of the core, wide and warplocal suites, comma-separated;
default: CASES, LOOP cases a bench report measured under Triton), both LOOP kernels as `llgen bench` times them for
throughput (32 CTAs an SM), under Nsight Compute: how busy the integer ALU and LSU pipes are, how many warps an SM
holds, how often a scheduler issues, and the warps' stall reasons per issued instruction.

Prints one block per case: the metric, llgen's value, Triton's.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from llgen.cases.suite import suite
from llgen.runtime.bench.counters import WORKER, save_cases
from llgen.runtime.ncu import ALU_BUSY, PIPE_BUSY, pipe_busy

CASES = "wl1_spt1_to_spt16_f16,wl1_mma2dotA_f32"
STALLS = (
    "math_pipe_throttle",
    "short_scoreboard",
    "wait",
    "dispatch_stall",
    "not_selected",
    "selected",
    "no_instruction",
    "mio_throttle",
    "long_scoreboard",
    "branch_resolving",
)
METRICS = [
    ALU_BUSY,
    PIPE_BUSY,
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__warps_active.avg.per_cycle_active",
    "smsp__inst_executed.sum",
    "sm__cycles_elapsed.avg",
    *(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS),
]


def main() -> int:
    ids = (sys.argv[1] if len(sys.argv) > 1 else CASES).split(",")
    by_id = {c.id: c for name in ("core", "wide", "warplocal") for c in suite(name)}
    cases = [by_id[i] for i in ids]
    with tempfile.TemporaryDirectory() as tmp:
        call = f"{WORKER}:loop_launches {save_cases(cases, Path(tmp) / 'cases.json')} sm_90"
        res = pipe_busy(call, "regex:_loop$|^loop_kernel$", 300, Path(tmp), METRICS)
    print(f"ncu rc {res['rc']}, {res['seconds']} s")
    triton = iter(res["kernels"].get("loop_kernel", []))
    for c in cases:
        ours, theirs = (res["kernels"].get(f"{c.id}_loop") or [{}])[0], next(triton, {})
        print(f"\n{c.id}{'':<62} {'llgen':>10} {'Triton':>10}")
        for m in METRICS:
            short = m.replace("smsp__average_warps_issue_stalled_", "stall ").replace("_per_issue_active.ratio", "")
            print(f"  {short:<70} {ours.get(m, float('nan')):>10.3f} {theirs.get(m, float('nan')):>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
