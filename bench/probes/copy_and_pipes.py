"""Two measurements behind bench/NOTES.md, run on the GPU machine with `python3 bench/probes/copy_and_pipes.py > bench/probes/copy_and_pipes.txt`.

1. t16x32's STREAM and copy kernels with W one-warp groups per CTA (each warp its own tiles and scratch) and U tiles
   loaded per step, against cudaMemcpy and a plain 16-byte copy: what `llgen.plan.benchshape.stream_groups` chose from.
2. Whether warp shuffles and shared-memory wavefronts share one pipe: a lanes_f32-like round trip that moves K of its
   32 registers by SHFL and the rest through shared memory (one store and one load wavefront each). Two pipes would
   take max(K, 2(32 - K)) clocks per warp and conversion; one pipe takes K + 2(32 - K).
3. Is lanes_f32's LOOP at the SHFL pipe's limit? The suite's conversion in a LOOP that reads each SM's own clock
   (clock64) at every CTA's start and end, so clocks per conversion come without assuming a frequency, with random
   floats, small integers and zeros as data; and the suite's LOOP and Triton's timed with the same three inputs,
   while nvidia-smi samples the SM clock and power of a sustained run.
4. The copy roofline: cudaMemcpy of the STREAM's 1 GiB and of 4 GiB, plain 16-byte copies with and without cache
   hints, and the suite's copy kernels, each round alternating with a 1 GiB cudaMemcpy.

`python3 bench/probes/copy_and_pipes.py [PART ...]` runs the named parts (copies, pipes, lanes, roofline); all by default.
"""

import functools
import subprocess
import sys
import time

import cupy as cp
import numpy as np

from llgen.cases.suite import core
from llgen.emit import emit_bench
from llgen.plan.benchshape import bench_shape, stream_groups, stream_smem
from llgen.plan.variants import variants
from llgen.runtime.bench.device import d2d_copy_gbps
from llgen.runtime.bench.rules import STREAM_BYTES
from llgen.runtime.bench.timing import median_ms, per_sm_ns, stream_grid

REP = 200
T16X32 = variants(next(c for c in core() if c.id == "t16x32"), "sm_90")[0]
# t16x32's suite kernels, then the probes' own
SOURCE = (
    emit_bench(T16X32.fwd, T16X32.bwd, "b", bench_shape(T16X32.fwd, T16X32.bwd))
    + r"""
template <int W, int U, bool CONV>
__device__ __forceinline__ void wsteps(const unsigned* __restrict__ in, unsigned* __restrict__ out, int num_tiles, unsigned s, unsigned char* smem) {
  const int warp = threadIdx.x >> 5;
  for (int t = (blockIdx.x * W + warp) * U; t < num_tiles; t += gridDim.x * W * U) {
    unsigned tiles[U][16];
#pragma unroll
    for (int u = 0; u < U; ++u) if (t + u < num_tiles) llgen::b_fwd::load_a_bits(in + static_cast<long long>(t + u) * 512, tiles[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) if (t + u < num_tiles) {
      unsigned (&a)[16] = tiles[u];
      if (CONV) {
        unsigned b[16];
        llgen::b_fwd::convert_bits(a, b, smem + warp * 2048);
#pragma unroll
        for (int k = 0; k < 16; ++k) b[k] = __float_as_uint(__uint_as_float(b[k]) + __uint_as_float(s));
        llgen::b_bwd::convert_bits(b, a, smem + warp * 2048);
      } else {
#pragma unroll
        for (int k = 0; k < 16; ++k) a[k] = __float_as_uint(__uint_as_float(a[k]) + __uint_as_float(s));
      }
      llgen::b_bwd::store_b_bits(out + static_cast<long long>(t + u) * 512, a);
    }
  }
}
#define WK(W, U) \
extern "C" __global__ void __launch_bounds__(W * 32) copy_##W##_##U(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n, unsigned s) { wsteps<W, U, false>(in, out, n, s, nullptr); } \
extern "C" __global__ void __launch_bounds__(W * 32) stream_##W##_##U(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n, unsigned s) { \
  alignas(16) __shared__ unsigned char smem[W * 2048]; wsteps<W, U, true>(in, out, n, s, smem); }
WK(1, 2) WK(2, 2) WK(4, 1) WK(4, 2) WK(8, 1) WK(8, 2)

extern "C" __global__ void __launch_bounds__(128) copy_v4(const uint4* __restrict__ in, uint4* __restrict__ out, long long n) {
  for (long long i = blockIdx.x * 128ll + threadIdx.x; i < n; i += gridDim.x * 128ll) out[i] = in[i];
}

// 2. lanes_f32-like: 32 registers, K through shfl.idx, 32-K through per-warp shared memory
// (one conflict-free 4-byte store row and one permuted load row per register), both ways, +1 between.
template <int K>
__device__ __forceinline__ void hop(float (&a)[32], unsigned src, float* row) {
#pragma unroll
  for (int r = K; r < 32; ++r) row[(r - K) * 32 + (threadIdx.x & 31)] = a[r];
#pragma unroll
  for (int r = 0; r < K; ++r) a[r] = __shfl_sync(0xffffffffu, a[r], src);
  __syncwarp();
#pragma unroll
  for (int r = K; r < 32; ++r) a[r] = row[(r - K) * 32 + src];
  __syncwarp();
}
template <int K>
__device__ __forceinline__ void hyb(float* out, int iters) {
  __shared__ float sm[4][(32 - K) * 32 + 1];
  const unsigned lane = threadIdx.x & 31;
  const unsigned fwd = ((lane << 1) & 31) | (lane >> 4), bwd = (lane >> 1) | ((lane & 1) << 4);
  float a[32];
#pragma unroll
  for (int r = 0; r < 32; ++r) a[r] = threadIdx.x * 32 + r;
  float* row = sm[threadIdx.x >> 5];
  for (int i = 0; i < iters; ++i) {
    hop<K>(a, fwd, row);
#pragma unroll
    for (int r = 0; r < 32; ++r) a[r] += 1.0f;
    hop<K>(a, bwd, row);
  }
#pragma unroll
  for (int r = 0; r < 32; ++r) out[(blockIdx.x * 128 + threadIdx.x) * 32 + r] = a[r];
}
#define HK(K) extern "C" __global__ void __launch_bounds__(128) hyb_##K(float* out, int iters) { hyb<K>(out, iters); }
HK(32) HK(28) HK(24) HK(22) HK(20) HK(16) HK(0)

// 4. plain 16-byte copies: U loads in flight per thread, then U stores; HINT 1 = L1::no_allocate and a 256-byte
// L2 prefetch on loads, 2 = streaming (.cs) loads and stores
template <int U, int HINT>
__device__ __forceinline__ void copy16(const uint4* in, uint4* out, long long n) {
  const long long stride = gridDim.x * 128ll;
  for (long long i = blockIdx.x * 128ll + threadIdx.x; i < n; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) if (i + u * stride < n) {
      const uint4* p = in + i + u * stride;
      if (HINT == 1) asm volatile("ld.global.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                                  : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w) : "l"(p));
      else if (HINT == 2) v[u] = __ldcs(p);
      else v[u] = *p;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) if (i + u * stride < n) {
      if (HINT == 2) __stcs(out + i + u * stride, v[u]); else out[i + u * stride] = v[u];
    }
  }
}
#define CK(U, H) extern "C" __global__ void __launch_bounds__(128) copy16_##U##_##H(const uint4* in, uint4* out, long long n) { copy16<U, H>(in, out, n); }
CK(1, 0) CK(4, 0) CK(1, 1) CK(4, 1) CK(1, 2) CK(4, 2)
"""
)
LANES = variants(next(c for c in core() if c.id == "lanes_f32"), "sm_90")[0]
# 3. lanes_f32's conversions (llgen's pick) in the suite's LOOP, with each CTA's SM and SM clock at start and end
LANES_SOURCE = (
    emit_bench(LANES.fwd, LANES.bwd, "l", bench_shape(LANES.fwd, LANES.bwd))
    + r"""
// each CTA's SM and that SM's clock at the CTA's start (t0) and end
__device__ __forceinline__ void stamp(unsigned long long* stamps, unsigned long long t0) {
  __syncthreads();
  if (stamps && threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    stamps[3 * blockIdx.x] = sm;
    stamps[3 * blockIdx.x + 1] = t0;
    stamps[3 * blockIdx.x + 2] = clock64();
  }
}
extern "C" __global__ void __launch_bounds__(128) l_clk(const unsigned* in, unsigned* out, int k, unsigned long long* stamps) {
  const unsigned long long t0 = clock64();
  unsigned a[32], b[32];
  const long long tile = static_cast<long long>(blockIdx.x) * 4096;
  llgen::l_fwd::load_a_bits(in + tile, a);
  for (int i = 0; i < k; ++i) {
    llgen::l_fwd::convert_bits(a, b);
#pragma unroll
    for (int r = 0; r < 32; ++r) b[r] = __float_as_uint(__uint_as_float(b[r]) + 1.0f);
    llgen::l_bwd::convert_bits(b, a);
  }
  llgen::l_bwd::store_b_bits(out + tile, a);
  stamp(stamps, t0);
}
"""
)


def copies(mod, sms: int) -> None:
    """Probe 1. Finite floats, so that +0.0f gives every bit pattern back and each kernel's output can be checked."""
    ntiles = (1 << 30) // 2048
    xs = cp.asarray(np.random.default_rng(1).uniform(-64, 64, size=ntiles * 512).astype(np.float32).view(np.uint32))
    ys = cp.empty_like(xs)
    d2d = d2d_copy_gbps(REP)
    a, b = cp.empty(1 << 30, dtype=cp.uint8), cp.empty(1 << 30, dtype=cp.uint8)
    ms = median_ms(lambda: cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, 3, 0), REP)
    rows = [("cudaMemcpy d2d 4 GiB", 2 * (4 << 30) / d2d / 1e6), ("cudaMemcpy d2d 1 GiB", ms)]
    n, s = np.int32(ntiles), np.uint32(0)

    def run(name, grid, block, args=(xs, ys, n, s)):
        f = mod.get_function(name)
        smem = stream_smem(T16X32.fwd, T16X32.bwd) if name == "b_stream" else 0  # as `llgen bench` launches it
        ys.fill(0)
        f((grid,), (block,), args, shared_mem=smem)
        ms = median_ms(lambda: f((grid,), (block,), args, shared_mem=smem), REP)
        rows.append((f"{name} grid {grid} x {block} threads, exact {bool((ys == xs).all())}", ms))

    block = 32 * stream_groups(T16X32.fwd, T16X32.bwd)
    for name in ("b_copy", "b_stream"):  # the suite's kernels, launched as `llgen bench` launches them
        run(name, stream_grid(sms, block), block)
        run(name, 2 * stream_grid(sms, block), block)
    for w, u in ((1, 2), (2, 2), (4, 1), (4, 2), (8, 1), (8, 2)):
        for kind in ("copy", "stream"):
            for per_sm in sorted({32 // w, 64 // w}) if w > 1 else (32,):
                run(f"{kind}_{w}_{u}", sms * per_sm, 32 * w)
    for per_sm in (16, 32):
        run("copy_v4", sms * per_sm, 128, (xs, ys, np.int64(xs.nbytes // 16)))
    print(f"\n1. t16x32 copies of 1 GiB (2 GiB moved; d2d = cudaMemcpy of 4 GiB, {d2d:.0f} GB/s)")
    for what, ms in rows:
        gbps = 2 * xs.nbytes / ms / 1e6 if "4 GiB" not in what else d2d
        print(f"{what:58s} {ms:8.4f} ms {gbps:6.0f} GB/s {100 * gbps / d2d:6.1f}% of d2d")


def pipes(mod, sms: int, clock_mhz: float) -> None:
    """Probe 2: clocks per round trip of one CTA (4 warps, two conversions) against both models."""
    out = cp.empty(sms * 32 * 128 * 32, dtype=cp.float32)
    print(f"\n2. K of 32 registers by SHFL, 32 - K through shared memory; clocks per CTA round trip at {clock_mhz:.0f} MHz")
    print(f"{'K':>3} {'ns':>8} {'clocks':>8} {'one pipe':>9} {'two pipes':>10}")
    for k in (32, 28, 24, 22, 20, 16, 0):
        f = mod.get_function(f"hyb_{k}")
        t = {it: median_ms(lambda f=f, it=it: f((sms * 32,), (128,), (out, np.int32(it))), REP) for it in (64, 128)}
        ns = (t[128] - t[64]) * 1e6 / 64 / 32  # 32 CTAs per SM, 64 more round trips each
        shfl, waves = 2 * 4 * k, 2 * 4 * 2 * (32 - k)
        print(f"{k:3d} {ns:8.2f} {ns * clock_mhz / 1e3:8.1f} {shfl + waves:9d} {max(shfl, waves):10d}")


def lanes_inputs(n: int) -> dict:
    """Three inputs for lanes_f32's LOOP: the suite's random floats, small integers (as probe 2's), zeros."""
    rng = np.random.default_rng(3)
    return {
        "random floats": rng.uniform(-64, 64, size=n).astype(np.float32),
        "small integers": (np.arange(n) % 4096).astype(np.float32),
        "zeros": np.zeros(n, np.float32),
    }


def smi_samples(run, seconds: float = 1.5) -> str:
    """Median SM clock and power that nvidia-smi samples while `run` is launched back to back."""
    smi = subprocess.Popen(
        ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits", "-lms", "50"],
        stdout=subprocess.PIPE,
        text=True,
    )
    end = time.time() + seconds
    while time.time() < end:
        for _ in range(20):
            run()
        cp.cuda.Device(0).synchronize()
    smi.terminate()
    rows = [r.split(",") for r in smi.communicate()[0].split("\n") if r.count(",") == 1]
    rows = rows[len(rows) // 4 :] or rows  # past the ramp
    mhz = np.median([float(r[0]) for r in rows]) if rows else float("nan")
    watts = np.median([float(r[1]) for r in rows]) if rows else float("nan")
    return f"{mhz:.0f} MHz, {watts:.0f} W"


def lanes(sms: int) -> None:
    """Probe 3."""
    mod = cp.RawModule(code=LANES_SOURCE, options=("-std=c++17",))
    loop, clk = mod.get_function("l_loop"), mod.get_function("l_clk")
    grid = sms * 32
    stamps = cp.zeros(3 * grid, dtype=cp.uint64)
    print("\n3. lanes_f32 LOOP (llgen's shuffles; Triton's kernel has the same SASS loop), 32 CTAs per SM")
    print(f"{'input':16s} {'clk/conv':>9s} {'llgen ns':>9s} {'Triton ns':>10s}  sustained llgen / Triton (SM clock, power)")
    try:
        import torch

        from llgen.runtime.gluon import TritonCase

        tc = TritonCase(LANES.fwd.src, LANES.fwd.dst, 4)
    except Exception as e:  # noqa: BLE001
        print(f"  (no Triton: {e!r:.200})")
        tc = None
    for name, data in lanes_inputs(grid * 4096).items():
        x = cp.asarray(data.view(np.uint32))
        y = cp.empty_like(x)
        clocks = sm_clocks(lambda k, x=x, y=y: clk((grid,), (128,), (x, y, np.int32(k), stamps)), stamps)

        def ours(k, g, x=x, y=y):
            loop((g,), (128,), (x, y, np.int32(k)))

        ns = per_sm_ns(ours, grid, sms, REP)
        hot = smi_samples(functools.partial(ours, 4096, grid))
        tns, thot = float("nan"), "-"
        if tc is not None:
            tx = torch.as_tensor(x, device="cuda").view(torch.float32)
            theirs = functools.partial(tc.loop, tx, torch.empty_like(tx))
            tns = per_sm_ns(theirs, grid, sms, REP)
            thot = smi_samples(functools.partial(theirs, 4096, grid))
        print(f"{name:16s} {clocks:9.1f} {ns:9.2f} {tns:10.2f}  {hot} / {thot}")
    print("one SHFL per clock: 128.0 clocks per conversion (4 warps x 32 registers)")


def sm_clocks(launch, stamps) -> float:
    """SM clocks per conversion: each SM's span from its first CTA's start to its last CTA's end (clock64),
    per CTA, at K = 128 less K = 64 round trips, over the 2 x 64 more conversions."""
    spans = {}
    for k in (64, 128):
        launch(k)
        st = stamps.get().reshape(-1, 3)
        per_sm = [
            (st[st[:, 0] == sm, 2].max() - st[st[:, 0] == sm, 1].min()) / (st[:, 0] == sm).sum() for sm in np.unique(st[:, 0])
        ]
        spans[k] = float(np.mean(per_sm))
    return (spans[128] - spans[64]) / (64 * 2)


ROOF_CASES = ("t16x32", "b2dotA_f16", "b2dotB_f16", "b2dotA_i8", "lanes_f32")


def roofline(sms: int) -> None:
    """Probe 4."""
    n = STREAM_BYTES
    a, b = cp.empty(n, dtype=cp.uint8), cp.empty(n, dtype=cp.uint8)
    a.fill(7)

    def d2d():
        cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, n, 3, 0)

    print(f"\n4. copy roofline: GB/s read + written, 5 rounds each alternating with cudaMemcpy d2d of {n >> 30} GiB")
    print(f"cudaMemcpy d2d 4 GiB: {d2d_copy_gbps(REP):.0f} GB/s")
    mod = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    rows = []
    for u, h in ((1, 0), (4, 0), (1, 1), (4, 1), (1, 2), (4, 2)):
        f = mod.get_function(f"copy16_{u}_{h}")
        rows.append((f"copy16 U={u} hint={h}", functools.partial(f, (sms * 16,), (128,), (a, b, np.int64(n // 16)))))
    for cid in ROOF_CASES:
        v = variants(next(c for c in core() if c.id == cid), "sm_90")[0]
        m = cp.RawModule(code=emit_bench(v.fwd, v.bwd, "c", bench_shape(v.fwd, v.bwd)), options=("-std=c++17",))
        tile_bytes = (1 << v.fwd.src.total_out_bits) * v.fwd.dtype.bytes
        block = 32 * v.fwd.warps * stream_groups(v.fwd, v.bwd)
        f = m.get_function("c_copy")
        raw = {1: np.uint8, 2: np.uint16, 4: np.uint32}[v.fwd.dtype.bytes]
        grid = min(n // tile_bytes, stream_grid(sms, block))
        rows.append((f"suite copy {cid}", functools.partial(f, (grid,), (block,), (a, b, np.int32(n // tile_bytes), raw(0)))))
    for name, run in rows:
        ours, ref = [], []
        for i in range(5):
            for which in ((run, ours), (d2d, ref)) if i % 2 == 0 else ((d2d, ref), (run, ours)):
                which[1].append(median_ms(which[0], REP))
        o, r = float(np.median(ours)), float(np.median(ref))
        print(
            f"{name:28s} {2 * n / o / 1e6:6.0f} GB/s  d2d {2 * n / r / 1e6:6.0f} GB/s  {100 * r / o:6.1f}% of d2d  "
            f"(rounds {min(r_ / o_ for r_, o_ in zip(ref, ours, strict=True)) * 100:.1f}-{max(r_ / o_ for r_, o_ in zip(ref, ours, strict=True)) * 100:.1f}%)"
        )


def main() -> None:
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    print(smi, time.strftime("%Y-%m-%d %H:%M:%S %Z"))
    clock = float(smi.split(",")[-1].split()[0]) if smi else 1980.0
    mod = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    parts = sys.argv[1:] or ["copies", "pipes", "lanes", "roofline"]
    if "copies" in parts:
        copies(mod, sms)
    if "pipes" in parts:
        pipes(mod, sms, clock)
    if "lanes" in parts:
        lanes(sms)
    if "roofline" in parts:
        roofline(sms)


if __name__ == "__main__":
    main()
