#!/usr/bin/env python3
"""Probe (run on the GPU machine): the two ways gpu-check's Nsight Compute counters disagreed with the wavefront model
in the run of 2026-11-25 (bench/NOTES.md, session 6), each next to variants that separate the suspected causes.

1. Large scratch: r5_11 (256x128 f32, 128 KB in one piece) measured 1052 load wavefronts for 1024 predicted, the
   256x256 f32 rounds (128 KB a round) a few more than predicted too, while every plan of 64 KB or less matched.
   The same conversions with budgets of 64, 32 and 16 KB (more rounds, the same instructions per round) say whether
   the scratch size is the cause.
2. Broadcast loads: r5_9 (256 i32 on 2 warps, B with lane bits 0-3 broadcast) measured 2 wavefronts per 128-bit load
   where the model says 4 (one per quarter warp). The same kind of 1-D tile whose destination broadcasts 1 to 4 low
   lane bits, read as 128-, 64- and 32-bit loads (i32, f16, i8), says how the hardware groups lanes that read one
   address.

Prints one row per kernel: predicted and measured store/load wavefronts.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from llgen import LinearLayout, plan_conversion
from llgen.runtime.cases import random_jobs
from llgen.runtime.ncu import measure


def _broadcast_1d(zero_lanes: int, vec: int) -> tuple[LinearLayout, LinearLayout]:
    """256 elements on 2 warps: A lanes over the low bits (coalesced); B registers over ``vec`` consecutive elements
    and the rest, its lowest ``zero_lanes`` lane bits broadcast."""
    bits = 8
    a = LinearLayout.from_bases({"register": [[64], [128]], "lane": [[1], [2], [4], [8], [16]], "warp": [[32]]}, {"dim0": 256})
    regs = [[1 << i] for i in range(vec)]
    lanes = [[0]] * zero_lanes
    nxt = vec
    while len(lanes) < 5:
        lanes.append([1 << nxt])
        nxt += 1
    regs += [[1 << i] for i in range(nxt, bits)]
    b = LinearLayout.from_bases({"register": regs, "lane": lanes, "warp": [[0]]}, {"dim0": 256})
    return a, b


def plans() -> list[tuple[str, object]]:
    jobs = {j.label: j.plan for j in random_jobs(40, 5, "sm_90")}
    out = []
    big = jobs["r5_11_f32_auto"]
    for budget in (None, 64 * 1024, 32 * 1024, 16 * 1024):
        out.append((f"large_{budget or 'all'}", plan_conversion(big.src, big.dst, big.dtype, big.target, smem_budget=budget)))
    out.append(("r5_9", jobs["r5_9_i32_shared"]))
    for zero in (1, 2, 3, 4):
        a, b = _broadcast_1d(zero, 2)
        for dt in ("i32", "f16", "i8"):  # four elements a load: 128-, 64- and 32-bit loads
            out.append((f"bcast_z{zero}_{dt}", plan_conversion(a, b, dt, "sm_90", path="shared", matrix=False)))
    return out


def main() -> int:
    items = plans()
    with tempfile.TemporaryDirectory() as tmp:
        res = measure(items, "bench.probes.wavefront_model:plans", 300, Path(tmp), "sm_90")
    print(f"ncu rc {res['rc']}, {res['seconds']} s")
    print(f"{'kernel':18} {'scratch':>8} {'rounds':>6} {'ld op':>12} {'st pred':>7} {'st meas':>7} {'ld pred':>7} {'ld meas':>7}")
    for name, p in items:
        r = res["rows"].get(name, {})
        d = p.detail
        print(
            f"{name:18} {d.scratch_bytes:>8} {d.rounds:>6} {d.load.op + str(d.load.width * p.dtype.bits):>12} "
            f"{r.get('pred_st_wf')!s:>7} {r.get('st_wf')!s:>7} {r.get('pred_ld_wf')!s:>7} {r.get('ld_wf')!s:>7}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
