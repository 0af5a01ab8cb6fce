"""Why the mixed suite's STREAM reads at ~0.7 of a copy's GB/s where the pre-shuffle script's reads at 0.95-0.99.
Run on the GPU machine: `python3 bench/probes/mixed_stream.py > OUT`. For a few cases, path 3's STREAM kernel
(llgen.cases.mixed.preshuffled_stream_source) timed as the suite times it (triton.testing.do_bench, L2 flushed)
while one thing changes at a time: the weight's size, a CTA's share, the loop's unroll, and whether a CTA's share is
one contiguous run or interleaved with the other CTAs' (tile b + i * grid: at each step the grid reads one run);
beside a plain coalesced 16-byte read of the same bytes in the same grid (no upcast) and a device-to-device copy."""

from __future__ import annotations

import sys

import cupy as cp
import numpy as np
from triton.testing import do_bench

from llgen.cases import mixed as M


def gbps(nbytes: int, run) -> float:
    return nbytes / do_bench(run, warmup=10, rep=25, return_mode="median") / 1e6


def row(case, mib: int, cta_kib: int, unroll: int, interleave: bool = False) -> str:
    """One shape: path 3's STREAM, the plain read and the copy of ``mib`` MiB, ``cta_kib`` KiB a CTA."""
    total, cta = mib << 20, cta_kib << 10
    per = max(1, cta // case.tile_bytes)
    grid = total // (per * case.tile_bytes)
    buf = cp.asarray(np.random.default_rng(0).integers(0, 256, total, dtype=np.uint8))
    loop = "#pragma unroll 2\n  for (int i"
    src = M.preshuffled_stream_source(case).replace(loop, loop.replace("2", str(unroll)))
    read_src = M.READ_SOURCE.replace("unroll 2", f"unroll {unroll}")
    if interleave:
        src = src.replace("(blockIdx.x * per + i)", "(blockIdx.x + i * gridDim.x)")
        read_src = read_src.replace("blockIdx.x * per * 128 + threadIdx.x", "blockIdx.x * 128 + threadIdx.x")
        read_src = read_src.replace("p[i * 128]", "p[(unsigned long long)i * gridDim.x * 128]")
    fn = cp.RawModule(code=src, options=("-std=c++17",)).get_function("mixed_g_stream")
    y = cp.zeros(grid * 128, dtype=cp.uint32)
    p3 = gbps(total, lambda: fn((grid,), (128,), (buf, y, np.int32(per), np.int32(1))))
    rd = cp.RawModule(code=read_src).get_function("plain_read")
    ry = cp.zeros((total // cta) * 128, dtype=cp.uint32)
    read = gbps(total, lambda: rd((total // cta,), (128,), (buf, ry, np.int32(cta // 2048))))
    dst = cp.empty_like(buf)
    copy = gbps(2 * total, lambda: cp.copyto(dst, buf))
    regs = getattr(fn, "num_regs", -1)
    return (
        f"{case.id:28} {mib:4} {cta_kib:7}{'i' if interleave else ' '} {unroll:6} {regs:4} {p3:10.1f} {read:9.1f} {copy:9.1f} "
        f"{p3 / copy:7.3f} {read / copy:9.3f}"
    )


def main() -> int:
    ids = ("mma2B_i8_k64_kmajor", "mma2B_e2m1_k128_kmajor", "mma2B_i8_k256_kmajor")
    print(
        f"{'case':28} {'MiB':>4} {'cta KiB':>7} {'unroll':>6} {'regs':>4} {'path3 GB/s':>10} {'read GB/s':>9} "
        f"{'copy GB/s':>9} {'p3/copy':>7} {'read/copy':>9}"
    )
    shapes = ((256, 32, 2), (256, 32, 2, True), (256, 32, 4, True), (256, 128, 4, True), (512, 32, 2), (512, 32, 2, True))
    for case in (c for c in M.CASES if c.id in ids):
        for shape in shapes:
            print(row(case, *shape), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
