#!/usr/bin/env python3
"""Probe (run on the GPU machine): are the extra load wavefronts of the large tiles (docs/design.md §7.5) the
conversion's own, or traffic the debug kernel runs beside it?

In the debug kernel (one CTA, one tile) ptxas starts the slot stores (STG) of B's registers that earlier rounds
finished while the last round's shared loads (LDS) still run, on other warps and on the same one: wgmma2b_128x256_f32
at 32 KB (4 rounds) issues 32 STG before its last 16 LDS, and that kernel read 1446 load wavefronts for 1024 predicted.
Each plan here runs twice: the debug kernel as llgen emits it, and the same text with a __syncthreads() between the
conversion and the slot stores, which keeps every warp's loads before any store. If only the first reads more than
predicted, the conversion takes what the model says and the excess is the stores' (the Nsight Compute counter
counting shared-memory wavefronts that wait on them); if both do, it is the conversion's.

Each kernel is launched three times (the excess varied between runs before). Prints one row per kernel.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from llgen import plan_conversion
from llgen.cases.suite import wide

LAUNCHES = 3


def plans() -> list[tuple[str, object]]:
    """The wide suite's two 128 KB tiles, and wgmma2b_128x256_f32 again at budgets of 64, 32 and 16 KB."""
    cases = {c.id: c for c in wide()}
    big = cases["wgmma2b_128x256_f32"]
    out = [
        (f"wg_{budget // 1024 if budget else 128}k", plan_conversion(big.src, big.dst, big.dtype, "sm_90", smem_budget=budget))
        for budget in (None, 64 * 1024, 32 * 1024, 16 * 1024)
    ]
    c = cases["b2bT_256x256_f32"]
    out.append(("b2bT256_f32", plan_conversion(c.src, c.dst, c.dtype, "sm_90")))
    return out


def worker() -> int:
    """Under ncu: each plan's debug kernel as emitted (<name>_debug) and fenced (<name>_fenced_debug)."""
    from llgen.emit import emit
    from llgen.runtime.compile import compile as compile_source
    from llgen.runtime.launch import run_debug
    from llgen.runtime.ncu import fence_slot_stores
    from llgen.runtime.reference import random_input, raw_dtype

    rng = np.random.default_rng(1)
    for name, p in plans():
        src = emit(p, "kernel", name) + "\n" + fence_slot_stores(emit(p, "kernel", f"{name}_fenced"), f"{name}_fenced")
        mod = compile_source(src, "sm_90")
        x = random_input(raw_dtype(p.dtype), 1 << p.src.total_out_bits, rng)
        for kernel in (name, f"{name}_fenced"):
            for _ in range(LAUNCHES):
                got = run_debug(mod, p, kernel, x)
                print(f"worker: {kernel}_debug {int(np.count_nonzero(got == got))} slots", flush=True)
    return 0


def main() -> int:
    from llgen.runtime.ncu import CORE_METRICS, _run_ncu, tool_path

    ncu = tool_path("ncu")
    if not ncu:
        print("ncu not found")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        r, measured = _run_ncu(
            ncu, list(CORE_METRICS), "regex:_debug$", [sys.executable, __file__, "worker"], 300, Path(tmp) / "ncu"
        )
    print(f"ncu rc {r['rc']}")
    ld, st = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
    print(f"{'kernel':24} {'scratch':>8} {'rounds':>6} {'ld op':>12} {'st pred':>7} {'ld pred':>7}  st, ld measured per launch")
    for name, p in plans():
        d = p.detail
        for kernel in (name, f"{name}_fenced"):
            launches = measured.get(f"{kernel}_debug") or []
            meas = ", ".join(f"({m.get(st, float('nan')):g}, {m.get(ld, float('nan')):g})" for m in launches)
            print(
                f"{kernel:24} {d.scratch_bytes:>8} {d.rounds:>6} {d.load.op + str(d.load.width * p.dtype.bits):>12} "
                f"{d.predicted_store_wavefronts:>7} {d.predicted_load_wavefronts:>7}  {meas}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(worker() if sys.argv[1:] == ["worker"] else main())
