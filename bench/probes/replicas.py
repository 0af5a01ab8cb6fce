"""Probe 3: b2dotA_i8's LOOP kernel measured faster than its ideal (117%), which counts the load of every
replica its dot-operand destination holds (warps 0 and 1 hold the same data). Under ncu, count the LOOP kernel's
shared-memory wavefronts per conversion and the shared pipe's busy share: do the replica loads take wavefronts?
Usage: ncu --metrics ... python3 bench/probes/replicas.py (see device_run.sh), or plain to print the launches."""

import cupy as cp
import numpy as np

from llgen.cases.suite import core
from llgen.emit import emit_bench
from llgen.plan.benchshape import bench_shape, loop_scratch
from llgen.plan.variants import variants
from llgen.runtime.reference import loop_input, raw_dtype

case = next(c for c in core() if c.id == "b2dotA_i8")
v = next(v for v in variants(case, "sm_90") if v.name == "llgen")
mod = cp.RawModule(code=emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd)), options=("-std=c++17",))
loop = mod.get_function("b_loop")
smem = loop_scratch(v.fwd, v.bwd).bytes
grid = cp.cuda.Device(0).attributes["MultiProcessorCount"] * 4
tile = 1 << case.src.total_out_bits
x = cp.asarray(loop_input(case.dtype, raw_dtype(case.dtype).type, tile * grid, np.random.default_rng(0)))
y = cp.empty_like(x)
for k in (16, 32):
    loop((grid,), (case.warps * 32,), (x, y, np.int32(k)), shared_mem=smem)
cp.cuda.Device().synchronize()
print(f"b2dotA_i8 LOOP launched with k = 16 and 32 on {grid} CTAs; conversions per CTA differ by 32")
