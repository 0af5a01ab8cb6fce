// The CPU shim for llgen's emitted CUDA and HIP (llgen.runtime.host): each GPU thread a std::thread, a block's
// threads meet at one std::barrier for __syncthreads, a warp's at its own for __syncwarp and every shuffle.
// Compiled with -DLLGEN_HOST_LANES=<wave size> -DLLGEN_DYNAMIC_SCRATCH_BYTES=<bytes> by host.py.
#pragma once
#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
#define LLGEN_KEEP(x) ((void)(x))
#define LLGEN_DYNAMIC_SCRATCH(name) alignas(16) static unsigned char name[LLGEN_DYNAMIC_SCRATCH_BYTES]  // blocks run one by one
using std::memcpy;
struct uint2 { unsigned x, y; };
struct uint4 { unsigned x, y, z, w; };
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
struct llgen_dim3 { unsigned x = 0, y = 0, z = 0; };
inline thread_local llgen_dim3 threadIdx, blockIdx;
inline llgen_dim3 blockDim, gridDim;

namespace llgen_host {
inline std::barrier<>* block_barrier = nullptr;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
inline unsigned long long exchange[1024];
inline void sync() { block_barrier->arrive_and_wait(); }
inline void warp_sync() { warp_barriers[threadIdx.x / LLGEN_HOST_LANES]->arrive_and_wait(); }
// Every thread publishes its value, all meet, each reads its source lane's value, all meet again.
template <class T>
inline T shuffle(T v, unsigned src_lane) {
  static_assert(sizeof(T) <= 8, "shuffle of a value wider than 64 bits");
  const unsigned self = threadIdx.x, base = self & ~(LLGEN_HOST_LANES - 1u);
  memcpy(&exchange[self], &v, sizeof(T));
  warp_sync();
  T r;
  memcpy(&r, &exchange[base + (src_lane & (LLGEN_HOST_LANES - 1u))], sizeof(T));
  warp_sync();
  return r;
}
template <class F>
inline void launch(unsigned grid, unsigned block, F&& body) {
  std::barrier<> bar(block);
  block_barrier = &bar;
  for (unsigned w = 0; w < block; w += LLGEN_HOST_LANES)
    warp_barriers.push_back(std::make_unique<std::barrier<>>(std::min(block - w, static_cast<unsigned>(LLGEN_HOST_LANES))));
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  for (unsigned b = 0; b < grid; ++b) {
    std::vector<std::thread> threads;
    threads.reserve(block);
    for (unsigned t = 0; t < block; ++t)
      threads.emplace_back([&, t, b] { threadIdx = {t, 0, 0}; blockIdx = {b, 0, 0}; body(); });
    for (auto& th : threads) th.join();
  }
  block_barrier = nullptr;
  warp_barriers.clear();
}
}  // namespace llgen_host

inline void __syncthreads() { llgen_host::sync(); }
inline void __syncwarp(unsigned = 0xffffffffu) { llgen_host::warp_sync(); }
template <class T> inline T __shfl_sync(unsigned, T v, int src) { return llgen_host::shuffle(v, src); }
template <class T> inline T __shfl_xor_sync(unsigned, T v, int m) { return llgen_host::shuffle(v, (threadIdx.x & (LLGEN_HOST_LANES - 1u)) ^ m); }
template <class T> inline T __shfl(T v, int src) { return llgen_host::shuffle(v, src); }
template <class T> inline T __shfl_xor(T v, int m) { return llgen_host::shuffle(v, (threadIdx.x & (LLGEN_HOST_LANES - 1u)) ^ m); }
template <class To, class From> inline To llgen_host_bits(From x) { To t; memcpy(&t, &x, sizeof t); return t; }
inline float __uint_as_float(unsigned x) { return llgen_host_bits<float>(x); }
inline unsigned __float_as_uint(float x) { return llgen_host_bits<unsigned>(x); }
inline double __longlong_as_double(long long x) { return llgen_host_bits<double>(x); }
inline long long __double_as_longlong(double x) { return llgen_host_bits<long long>(x); }
// A byte permute: result byte i is byte (s >> (stride * i)) & 7 of the 8 bytes {hi:lo}
inline unsigned llgen_host_perm(unsigned hi, unsigned lo, unsigned s, int stride) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((v >> (8 * ((s >> (stride * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
// PRMT: a nibble per result byte over {y:x}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) { return llgen_host_perm(y, x, s, 4); }
// v_perm_b32 (HIP's byte permute), selectors 0-7 only: a byte per result byte over {x:y}
inline unsigned __builtin_amdgcn_perm(unsigned x, unsigned y, unsigned s) { return llgen_host_perm(x, y, s, 8); }
