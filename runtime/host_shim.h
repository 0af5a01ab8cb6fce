// The CPU shim for llgen's emitted CUDA and HIP (llgen.runtime.host): each GPU thread a std::thread, a block's
// threads meet at one std::barrier for __syncthreads, a warp's at its own for __syncwarp, every shuffle and every
// ldmatrix/stmatrix (host.py puts llgen_host::ldmatrix/stmatrix in place of their inline PTX).
// Compiled with -DLLGEN_HOST_LANES=<wave size> -DLLGEN_DYNAMIC_SCRATCH_BYTES=<bytes> by host.py.
#pragma once
#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
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
#define LLGEN_DYNAMIC_SMEM(name, align) alignas(align) static unsigned char name[LLGEN_DYNAMIC_SCRATCH_BYTES]  // the same, aligned
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
// A shared-memory address (__cvta_generic_to_shared) is 32 bits, as on the GPU, so that the emitted `p + Imm`
// arithmetic runs as printed: the signed offset from an anchor in this library. __shared__ arrays are statics of
// the same library, well within 2 GiB of it.
static unsigned char shared_anchor;
inline unsigned to_shared(const void* p) {
  const long long off = static_cast<long long>(reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(&shared_anchor));
  if (off != static_cast<int>(off)) {
    std::fputs("llgen host shim: a shared-memory pointer more than 2 GiB from this library's statics\n", stderr);
    std::abort();
  }
  return static_cast<unsigned>(off);
}
inline unsigned char* from_shared(unsigned a) {
  return reinterpret_cast<unsigned char*>(reinterpret_cast<uintptr_t>(&shared_anchor) + static_cast<intptr_t>(static_cast<int>(a)));
}
// ldmatrix/stmatrix .m8n8.b16 on a warp of 32: lane 8m + r names row r (16 bytes) of matrix m, and lane t's word m
// holds elements (t/4, 2(t%4)) and (t/4, 2(t%4)+1) of matrix m, the low one in the low half; with Trans, elements
// (2(t%4), t/4) and (2(t%4)+1, t/4). Every lane publishes its row address and the warp meets, as for a shuffle, so
// only the addresses of lanes 0 .. 8N-1 count, as on the GPU. row0_slot: the exchange slot of the lane naming row 0.
template <bool Trans>
inline unsigned char* fragment_half(unsigned row0_slot, unsigned lane, unsigned half) {
  unsigned r = lane / 4, c = 2 * (lane % 4) + half;
  if (Trans) std::swap(r, c);
  return from_shared(static_cast<unsigned>(exchange[row0_slot + r])) + 2 * c;
}
template <bool Trans>
inline unsigned load_word(unsigned row0_slot, unsigned lane) {
  unsigned short h[2];
  for (unsigned k = 0; k < 2; ++k) memcpy(&h[k], fragment_half<Trans>(row0_slot, lane, k), 2);
  return h[0] | static_cast<unsigned>(h[1]) << 16;
}
template <bool Trans>
inline void store_word(unsigned row0_slot, unsigned lane, unsigned w) {
  const unsigned short h[2] = {static_cast<unsigned short>(w), static_cast<unsigned short>(w >> 16)};
  for (unsigned k = 0; k < 2; ++k) memcpy(fragment_half<Trans>(row0_slot, lane, k), &h[k], 2);
}
// Word m of the fold is matrix m's: the comma fold runs left to right.
template <bool Trans, class... W>
inline void ldmatrix(unsigned addr, W&... w) {
  static_assert(LLGEN_HOST_LANES == 32 && sizeof...(W) >= 1 && sizeof...(W) <= 4, "ldmatrix: x1, x2 or x4 on 32 lanes");
  const unsigned self = threadIdx.x, lane0 = self & ~31u, lane = self & 31u;
  exchange[self] = addr;
  warp_sync();
  unsigned m = 0;
  ((w = load_word<Trans>(lane0 + 8 * m++, lane)), ...);
  warp_sync();
}
template <bool Trans, class... W>
inline void stmatrix(unsigned addr, W... w) {
  static_assert(LLGEN_HOST_LANES == 32 && sizeof...(W) >= 1 && sizeof...(W) <= 4, "stmatrix: x1, x2 or x4 on 32 lanes");
  const unsigned self = threadIdx.x, lane0 = self & ~31u, lane = self & 31u;
  exchange[self] = addr;
  warp_sync();
  unsigned m = 0;
  (store_word<Trans>(lane0 + 8 * m++, lane, w), ...);
  warp_sync();
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
inline unsigned long long __cvta_generic_to_shared(const void* p) { return llgen_host::to_shared(p); }
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
// a wrapping add of each 16-bit half (CUDA's SIMD intrinsic)
inline unsigned __vadd2(unsigned a, unsigned b) { return ((a & 0x7fff7fffu) + (b & 0x7fff7fffu)) ^ ((a ^ b) & 0x80008000u); }
// v_perm_b32 (HIP's byte permute), selectors 0-7 only: a byte per result byte over {x:y}
inline unsigned __builtin_amdgcn_perm(unsigned x, unsigned y, unsigned s) { return llgen_host_perm(x, y, s, 8); }
