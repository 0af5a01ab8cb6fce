"""GPU smoke check (a first step toward `make gpu-check`): every core-suite case, compiled by CuPy's
NVRTC, run on the device; every (warp, lane, register) slot of B compared with NumPy, and the
stacked-tile kernel's output compared with its input. Prints a table; exits 1 on any mismatch."""

import sys
import time

import cupy as cp
import numpy as np

from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.simulate import element_ids
from llgen.suite import core

RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
rng = np.random.default_rng(int(time.time()))
bad = 0
print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}  date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
print(f"{'case':14} {'path':8} {'slots':>7} {'slot bad':>8} {'tiles':>6} {'tile bad':>8}")
for case in core():
    for path in (None, "shared", "shuffle"):
        try:
            plan = plan_conversion(case.src, case.dst, case.dtype, "sm_90", path=path)
        except Exception:
            continue
        if path and plan.path != path:
            continue
        name = f"{case.id}_{plan.path}"
        mod = cp.RawModule(code=emit(plan, "kernel", name), options=("-std=c++17",))
        raw = RAW[plan.dtype.bytes]
        tile = 1 << plan.src.total_out_bits
        x = rng.integers(1, np.iinfo(raw).max, size=tile, dtype=raw, endpoint=True)
        threads = plan.warps * plan.lanes
        slots = cp.full(threads * plan.n_out, np.iinfo(raw).max, dtype=raw)  # poisoned
        mod.get_function(f"{name}_debug")((1,), (threads,), (cp.asarray(x), slots))
        exp = x[element_ids(plan.dst, plan.warps, plan.lanes)].reshape(-1)
        slot_bad = int((slots.get() != exp).sum())
        ntiles = 4096
        xs = cp.asarray(rng.integers(1, np.iinfo(raw).max, size=tile * ntiles, dtype=raw, endpoint=True))
        ys = cp.full_like(xs, np.iinfo(raw).max)
        mod.get_function(f"{name}_kernel")((264,), (threads,), (xs, ys, np.int32(ntiles)))
        tile_bad = int((ys != xs).sum())
        bad += slot_bad + tile_bad
        print(f"{case.id:14} {plan.path:8} {exp.size:>7} {slot_bad:>8} {ntiles:>6} {tile_bad:>8}", flush=True)
print("mismatches:", bad)
sys.exit(1 if bad else 0)
