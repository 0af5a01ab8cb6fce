// The CPU shim for llgen's emitted CUDA and HIP (llgen.runtime.host): a block's threads are fibers (ucontext) of the
// one calling thread, each run in turn until it waits at a barrier or returns. A block's threads meet at one barrier
// for __syncthreads, a warp's at its own for __syncwarp, every shuffle and every ldmatrix/stmatrix (host.py puts
// llgen_host::ldmatrix/stmatrix in place of their inline PTX). Fibers, not OS threads: 32-1024 threads a block
// meeting at a barrier every shuffle, on a few shared cores, spent most of their time in the kernel's futex and
// scheduler. Light headers only: <thread> and <barrier> took most of a second of every compile.
// Compiled with -DLLGEN_HOST_LANES=<wave size> -DLLGEN_DYNAMIC_SCRATCH_BYTES=<bytes> by host.py.
#pragma once
#include <sys/mman.h>
#include <ucontext.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
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
inline llgen_dim3 threadIdx, blockIdx;  // the running fiber's
inline llgen_dim3 blockDim, gridDim;

namespace llgen_host {
constexpr unsigned MAX_WARPS = 1024 / LLGEN_HOST_LANES;
// A fiber's stack: the emitted kernels' frames are a few KB; its lowest GUARD_BYTES are no-access, so an overflow
// faults instead of writing the next fiber's frames.
constexpr unsigned long STACK_BYTES = 256 * 1024, GUARD_BYTES = 64 * 1024;
struct fiber {
  ucontext_t context;
  bool done;
};
inline ucontext_t scheduler;
inline fiber fibers[1024];
inline void* body;  // the launch's kernel call, an F
inline unsigned long long steps;  // barrier arrivals and returns: a round of the block without one is a deadlock
inline void fail(const char* why) {
  std::fprintf(stderr, "llgen host shim: %s\n", why);
  std::abort();
}
// Back to the scheduler, which resumes the block's threads in turn.
inline void yield() { swapcontext(&fibers[threadIdx.x].context, &scheduler); }
// `count` threads meet: the last to arrive opens the next phase; the others yield until it opens.
struct barrier {
  unsigned count = 0, arrived = 0, phase = 0;
  void wait() {
    const unsigned p = phase;
    ++steps;
    if (++arrived == count) {
      arrived = 0;
      ++phase;
      return;
    }
    while (phase == p) yield();
  }
};
inline barrier block_barrier, warp_barriers[MAX_WARPS];
inline unsigned long long exchange[1024];
inline void sync() { block_barrier.wait(); }
inline void warp_sync() { warp_barriers[threadIdx.x / LLGEN_HOST_LANES].wait(); }
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
    fail("a shared-memory pointer more than 2 GiB from this library's statics");
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
inline void run_fiber() {
  (*static_cast<F*>(body))();
  fibers[threadIdx.x].done = true;
  ++steps;
}
// Blocks one after another (__shared__ arrays are statics); a block's threads are fibers of this one thread, each
// run until it waits at a barrier or returns, in turn, until all have returned.
template <class F>
inline void launch(unsigned grid, unsigned block, F kernel) {
  if (block == 0 || block > 1024) fail("a block has 1 to 1024 threads");
  block_barrier = {block};
  for (unsigned w = 0; w * LLGEN_HOST_LANES < block; ++w) {
    const unsigned left = block - w * LLGEN_HOST_LANES;
    warp_barriers[w] = {left < LLGEN_HOST_LANES ? left : LLGEN_HOST_LANES};
  }
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  body = &kernel;
  const unsigned long bytes = block * STACK_BYTES;
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) fail("no memory for the fibers' stacks");
  unsigned char* stacks = static_cast<unsigned char*>(map);
  for (unsigned t = 0; t < block; ++t) mprotect(stacks + t * STACK_BYTES, GUARD_BYTES, PROT_NONE);
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx = {b, 0, 0};
    for (unsigned t = 0; t < block; ++t) {
      fiber& f = fibers[t];
      f.done = false;
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = stacks + t * STACK_BYTES;
      f.context.uc_stack.ss_size = STACK_BYTES;
      f.context.uc_link = &scheduler;
      makecontext(&f.context, run_fiber<F>, 0);
    }
    for (unsigned running = block; running;) {
      const unsigned long long before = steps;
      running = 0;
      for (unsigned t = 0; t < block; ++t) {
        if (fibers[t].done) continue;
        threadIdx = {t, 0, 0};
        swapcontext(&scheduler, &fibers[t].context);
        running += !fibers[t].done;
      }
      if (running && steps == before) fail("threads wait at a barrier that the others of their warp or block never reach");
    }
  }
  munmap(map, bytes);
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
// the high word of a 32 x 32-bit product
inline unsigned __umulhi(unsigned a, unsigned b) { return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32); }
// a wrapping add of each 16-bit half (CUDA's SIMD intrinsic)
inline unsigned __vadd2(unsigned a, unsigned b) { return ((a & 0x7fff7fffu) + (b & 0x7fff7fffu)) ^ ((a ^ b) & 0x80008000u); }
// v_perm_b32 (HIP's byte permute), selectors 0-7 only: a byte per result byte over {x:y}
inline unsigned __builtin_amdgcn_perm(unsigned x, unsigned y, unsigned s) { return llgen_host_perm(x, y, s, 8); }
