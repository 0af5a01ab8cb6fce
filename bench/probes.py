"""Two measurements behind bench/NOTES.md, run on the GPU machine with `python3 bench/probes.py > bench/probes.txt`.

1. t16x32's STREAM and copy kernels with W one-warp groups per CTA (each warp its own tiles and scratch) and U tiles
   loaded per step, against cudaMemcpy and a plain 16-byte copy: what `llgen.emit.stream_groups` chose from.
2. Whether warp shuffles and shared-memory wavefronts share one pipe: a lanes_f32-like round trip that moves K of its
   32 registers by SHFL and the rest through shared memory (one store and one load wavefront each). Two pipes would
   take max(K, 2(32 - K)) clocks per warp and conversion; one pipe takes K + 2(32 - K).
"""
import subprocess
import time

import cupy as cp
import numpy as np
from llgen.emit import emit_bench, stream_groups
from llgen.runtime.bench import _bench, d2d_copy_gbps, stream_grid, variants
from llgen.suite import core

REP = 200
T16X32 = variants(next(c for c in core() if c.id == "t16x32"), "sm_90")[0]
# t16x32's suite kernels, then the probes' own
SOURCE = emit_bench(T16X32.fwd, T16X32.bwd, "b") + r'''
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
'''

def copies(mod, sms: int) -> None:
    """Probe 1. Finite floats, so that +0.0f gives every bit pattern back and each kernel's output can be checked."""
    ntiles = (1 << 30) // 2048
    xs = cp.asarray(np.random.default_rng(1).uniform(-64, 64, size=ntiles * 512).astype(np.float32).view(np.uint32))
    ys = cp.empty_like(xs)
    d2d = d2d_copy_gbps(REP)
    a, b = cp.empty(1 << 30, dtype=cp.uint8), cp.empty(1 << 30, dtype=cp.uint8)
    ms = _bench(lambda: cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, 3, 0), REP)
    rows = [("cudaMemcpy d2d 4 GiB", 2 * (4 << 30) / d2d / 1e6), ("cudaMemcpy d2d 1 GiB", ms)]
    n, s = np.int32(ntiles), np.uint32(0)

    def run(name, grid, block, args=(xs, ys, n, s)):
        f = mod.get_function(name)
        ys.fill(0)
        f((grid,), (block,), args)
        ms = _bench(lambda: f((grid,), (block,), args), REP)
        rows.append((f"{name} grid {grid} x {block} threads, exact {bool((ys == xs).all())}", ms))

    block = 32 * stream_groups(T16X32.fwd)
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
        t = {it: _bench(lambda f=f, it=it: f((sms * 32,), (128,), (out, np.int32(it))), REP) for it in (64, 128)}
        ns = (t[128] - t[64]) * 1e6 / 64 / 32  # 32 CTAs per SM, 64 more round trips each
        shfl, waves = 2 * 4 * k, 2 * 4 * 2 * (32 - k)
        print(f"{k:3d} {ns:8.2f} {ns * clock_mhz / 1e3:8.1f} {shfl + waves:9d} {max(shfl, waves):10d}")


def main() -> None:
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm", "--format=csv,noheader"],
                         capture_output=True, text=True, check=False).stdout.strip()
    print(smi, time.strftime("%Y-%m-%d %H:%M:%S %Z"))
    clock = float(smi.split(",")[-1].split()[0]) if smi else 1980.0
    mod = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    copies(mod, sms)
    pipes(mod, sms, clock)


if __name__ == "__main__":
    main()
