#!/usr/bin/env python3
"""Probe (run on the GPU machine): the two ways Nsight Compute's counters disagreed with the wavefront model, each
next to variants that separate the suspected causes (bench/NOTES.md; docs/design.md §7.2, §7.5).

1. Large scratch: a 128 KB tile in one piece (once r5_11, 256x128 f32; now the wide suite's
   wgmma2b_128x256_f32) measured more load wavefronts than predicted, while every plan of 64 KB or less matched. The
   same conversion with budgets of 64, 32 and 16 KB (more rounds, the same instructions per round) says whether the
   scratch size is the cause.
2. Broadcast loads: 128-bit loads whose quarter-warps read few addresses take fewer wavefronts than a phase per
   quarter-warp. r18_7_i8 (two addresses a quarter) and r1_slice_256_f16 (one, and four in its other direction), and
   1-D tiles whose destination broadcasts 1 to 4 low lane bits, read as 128-, 64- and 32-bit loads (i32, f16, i8),
   say how the hardware groups the lanes.

Prints one row per kernel: predicted and measured store/load wavefronts.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from llgen import LinearLayout, plan_conversion
from llgen.cases.suite import wide
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
    """The large tile at four budgets, the suite's broadcast loads (wide: r18_7_i8's two addresses a quarter-warp,
    r1_slice_256_f16's one and four) and the 1-D broadcast probes. Suite cases by id: the random generator's labels
    these pairs once had (r5_11, r5_9) no longer name them."""
    cases = {c.id: c for c in wide()}
    out = []
    big = cases["wgmma2b_128x256_f32"]  # 128 KB in one piece, as r5_11 was
    for budget in (None, 64 * 1024, 32 * 1024, 16 * 1024):
        out.append((f"large_{budget or 'all'}", plan_conversion(big.src, big.dst, big.dtype, "sm_90", smem_budget=budget)))
    for cid in ("r18_7_i8", "r1_slice_256_f16"):
        c = cases[cid]
        out.append((f"{cid}_fwd", plan_conversion(c.src, c.dst, c.dtype, "sm_90", path="shared")))
        out.append((f"{cid}_bwd", plan_conversion(c.dst, c.src, c.dtype, "sm_90", path="shared")))
    for zero in (1, 2, 3, 4):
        a, b = _broadcast_1d(zero, 2)
        for dt in ("i32", "f16", "i8"):  # four elements a thread: 128-, 64- and 32-bit loads where nothing widens them
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
