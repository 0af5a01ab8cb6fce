// A user's program that vendors five headers llgen generated (tests/consumer/generate.py writes them into
// third_party/) and uses every part of their API: the typed convert of a shared-memory, a register-permutation and
// a warp-shuffle plan with one signature, dense and strided load_a/store_b, coord_a/coord_b, a warp-specialised
// kernel whose warps 4-7 convert behind a named barrier while warps 0-3 do other work behind their own, a plan
// whose 64 KB of scratch takes dynamic shared memory (the pattern that works for every plan), and a shared tile's
// store and load (an NVMMA tile, stored from A and loaded as an mma's first operand) with a barrier between them.
//
//   nvcc -std=c++17 -arch=sm_90 -Werror all-warnings consumer.cu -o consumer && ./consumer
//
// It prints one line per check and exits 0 when every output is element-exact.
// The headers come first, so that a header that forgets an include of its own fails to compile here.
#include "third_party/cvt_big.cuh"
#include "third_party/cvt_regs.cuh"
#include "third_party/cvt_shared.cuh"
#include "third_party/cvt_shfl.cuh"
#include "third_party/tile_a2dot.cuh"

#include <cuda_fp16.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace sh = llgen::cvt_shared;
namespace rg = llgen::cvt_regs;
namespace sf = llgen::cvt_shfl;
namespace bg = llgen::cvt_big;
namespace tl = llgen::tile_a2dot;

static_assert(sh::kSmemBytes > 0 && rg::kSmemBytes == 0 && sf::kSmemBytes == 0, "one plan of each kind");
static_assert(sh::kSmemAlign <= 16 && sh::kGlobalAlign <= 16, "alignas(16) covers what the header asks");
static_assert(sh::kThreads == 128 && sh::kCols == 64 && sh::kTileElems == 64 * 64, "a 64x64 tile on 4 warps");
static_assert(bg::kSmemOptIn && bg::kSmemBytes > 48 * 1024, "over the 48 KB a static __shared__ array may hold");
static_assert(tl::kSmemBytes == 64 * 64 * 2 && tl::kSmemAlign == 1024 && !tl::kSmemOptIn, "one 8 KB NVMMA tile");
static_assert(tl::kInRegs == sh::kInRegs && tl::kOutRegs == sh::kOutRegs, "A's registers in, the operand's out");

constexpr int kRows = 64, kCols = 64;

__device__ unsigned short bits(__half x) { return __half_as_ushort(x); }

// The tile through A -> B of each plan: B's registers, stored, are the tile again. Same call whatever the plan.
template <int Which>
__global__ void __launch_bounds__(128) dense(const __half* in, __half* out) {
  alignas(16) __shared__ unsigned char smem[sh::kSmemDecl];
  __half a[sh::kInRegs];
  if constexpr (Which == 0) {
    __half b[sh::kOutRegs];
    sh::load_a(in, a);
    sh::convert(a, b, smem);
    sh::store_b(out, b);
  } else if constexpr (Which == 1) {
    __half b[rg::kOutRegs];
    rg::load_a(in, a);
    rg::convert(a, b, nullptr);  // no scratch: nullptr is fine, smem would be too
    rg::store_b(out, b);
  } else {
    __half b[sf::kOutRegs];
    sf::load_a(in, a);
    sf::convert(a, b, smem);
    sf::store_b(out, b);
  }
}

// The tile at row 3, column 5 of a larger matrix whose rows are ld elements apart.
__global__ void __launch_bounds__(128) strided(const __half* in, __half* out, long long ld) {
  alignas(16) __shared__ unsigned char smem[sh::kSmemDecl];
  __half a[sh::kInRegs], b[sh::kOutRegs];
  const long long at = 3 * ld + 5 * (ld % 8 == 0 ? 8 : 1);  // column 40 keeps 16-byte vectors when ld allows them
  sh::load_a(in + at, ld, a);
  sh::convert(a, b, smem);
  sh::store_b(out + at, ld, b);
}

// coord_a / coord_b name the element each register holds.
__global__ void __launch_bounds__(128) coords(const __half* in, int* bad) {
  alignas(16) __shared__ unsigned char smem[sh::kSmemDecl];
  __half a[sh::kInRegs], b[sh::kOutRegs];
  sh::load_a(in, a);
  sh::convert(a, b, smem);
  for (int r = 0; r < sh::kInRegs; ++r) {
    const sh::Coord c = sh::coord_a(r);
    if (bits(a[r]) != bits(in[c.d[0] * kCols + c.d[1]])) atomicAdd(bad, 1);
  }
  for (int r = 0; r < sh::kOutRegs; ++r) {
    const sh::Coord c = sh::coord_b(r);
    if (bits(b[r]) != bits(in[c.d[0] * kCols + c.d[1]])) atomicAdd(bad, 1);
  }
}

// Warp specialisation: 8 warps; warps 0-3 fill a buffer and read it back behind named barrier 2, warps 4-7 convert
// behind named barrier 1. Neither group waits for the other.
__global__ void __launch_bounds__(256) specialised(const __half* in, __half* out, int* side) {
  alignas(16) __shared__ unsigned char smem[sh::kSmemDecl];
  __shared__ int work[128];
  if (threadIdx.x < 128) {
    work[threadIdx.x] = 3 * static_cast<int>(threadIdx.x);
    asm volatile("bar.sync 2, 128;" ::: "memory");
    side[threadIdx.x] = work[127 - threadIdx.x];
  } else {
    __half a[sh::kInRegs], b[sh::kOutRegs];
    sh::load_a<4>(in, a);
    sh::convert<4, 1>(a, b, smem);
    sh::store_b<4>(out, b);
  }
}

// A register permutation in a loop with an elementwise consumer: the typed convert costs nothing.
struct Inverse {  // B -> A of a register permutation, from the header's flat_a / flat_b at compile time
  int from[rg::kInRegs];
  constexpr Inverse() : from{} {
    for (int r = 0; r < rg::kInRegs; ++r)
      for (int j = 0; j < rg::kOutRegs; ++j)
        if (rg::flat_b(j, 0u, 0u) == rg::flat_a(r, 0u, 0u)) from[r] = j;
  }
};

__global__ void __launch_bounds__(128) renames(const __half* in, __half* out, int k) {
  constexpr Inverse back{};
  __half a[rg::kInRegs], b[rg::kOutRegs];
  rg::load_a(in, a);
  for (int i = 0; i < k; ++i) {
    rg::convert(a, b);
#pragma unroll
    for (int j = 0; j < rg::kOutRegs; ++j) b[j] = __hadd(b[j], __float2half(1.0f));
#pragma unroll
    for (int r = 0; r < rg::kInRegs; ++r) a[r] = b[back.from[r]];
  }
  rg::store_b(out, b);
}

// 64 KB of scratch: dynamic shared memory, which the launch sizes (kSmemBytes) after opting the kernel in.
__global__ void __launch_bounds__(bg::kThreads) dynamic_smem(const __half* in, __half* out) {
  extern __shared__ __align__(16) unsigned char dyn_smem[];
  __half a[bg::kInRegs], b[bg::kOutRegs];
  bg::load_a(in, a);
  bg::convert(a, b, dyn_smem);
  bg::store_b(out, b);
}

// The shared tile: A's registers stored into the 128-byte-swizzled tile, a barrier, the tile loaded as the mma's
// first operand (each register checked against coord_b), stored back. Dynamic shared memory at kSmemAlign, whose
// launch gives it tl::kSmemBytes.
__global__ void __launch_bounds__(tl::kThreads) tile_round_trip(const __half* in, __half* out, int* bad) {
  extern __shared__ __align__(tl::kSmemAlign) unsigned char tile_smem[];
  __half a[tl::kInRegs], b[tl::kOutRegs];
  tl::load_a(in, a);
  tl::store(a, tile_smem);  // local_store
  __syncthreads();          // the store's writes before any thread's load
  tl::load(tile_smem, b);   // local_load
  for (int r = 0; r < tl::kOutRegs; ++r) {
    const tl::Coord c = tl::coord_b(r);
    if (bits(b[r]) != bits(in[c.d[0] * kCols + c.d[1]])) atomicAdd(bad, 1);
  }
  tl::store_b(out, b);
}

static int failures = 0;

static void expect(const char* what, bool ok) {
  std::printf("%-60s %s\n", what, ok ? "exact" : "WRONG");
  failures += !ok;
}

#define CUDA_OK(x)                                                                      \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::printf("%s failed: %s\n", #x, cudaGetErrorString(e_));                       \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

int main() {
  const int n = kRows * kCols;
  std::vector<unsigned short> tile(n);
  for (int i = 0; i < n; ++i) tile[i] = static_cast<unsigned short>(0x3c00 + i);  // distinct finite halves
  const long long big_ld[] = {kCols + 64, kCols + 3};  // vectors kept; element by element
  const size_t big = static_cast<size_t>(kRows + 8) * (kCols + 64);
  __half *in, *out, *big_in, *big_out;
  int *bad, *side;
  CUDA_OK(cudaMalloc(&in, n * 2));
  CUDA_OK(cudaMalloc(&out, n * 2));
  CUDA_OK(cudaMalloc(&big_in, big * 2));
  CUDA_OK(cudaMalloc(&big_out, big * 2));
  CUDA_OK(cudaMalloc(&bad, sizeof(int)));
  CUDA_OK(cudaMalloc(&side, 128 * sizeof(int)));
  CUDA_OK(cudaMemcpy(in, tile.data(), n * 2, cudaMemcpyHostToDevice));
  std::vector<unsigned short> got(n);

  auto same_tile = [&]() {
    CUDA_OK(cudaMemcpy(got.data(), out, n * 2, cudaMemcpyDeviceToHost));
    return static_cast<int>(got == tile);
  };
  CUDA_OK(cudaMemset(out, 0, n * 2));
  dense<0><<<1, 128>>>(in, out);
  expect("shared plan: load_a, convert(a, b, smem), store_b", same_tile() == 1);
  CUDA_OK(cudaMemset(out, 0, n * 2));
  dense<1><<<1, 128>>>(in, out);
  expect("register permutation: convert(a, b, nullptr)", same_tile() == 1);
  CUDA_OK(cudaMemset(out, 0, n * 2));
  dense<2><<<1, 128>>>(in, out);
  expect("warp shuffle: convert(a, b, smem) with smem untouched", same_tile() == 1);

  for (long long ld : big_ld) {
    std::vector<unsigned short> src(big), dst(big, 0);
    for (size_t i = 0; i < big; ++i) src[i] = static_cast<unsigned short>(i * 7 + 1);
    CUDA_OK(cudaMemcpy(big_in, src.data(), big * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(big_out, 0, big * 2));
    strided<<<1, 128>>>(big_in, big_out, ld);
    CUDA_OK(cudaMemcpy(dst.data(), big_out, big * 2, cudaMemcpyDeviceToHost));
    const long long at = 3 * ld + 5 * (ld % 8 == 0 ? 8 : 1);
    bool ok = true;
    for (long long i = 0; i < static_cast<long long>(big); ++i) {
      const long long rel = i - at, r = rel >= 0 ? rel / ld : -1, c = rel >= 0 ? rel % ld : -1;
      const bool inside = r >= 0 && r < kRows && c < kCols;
      ok &= dst[i] == (inside ? src[i] : 0);
    }
    char what[96];
    std::snprintf(what, sizeof what, "strided load_a/store_b, ld = %lld", ld);
    expect(what, ok);
  }

  CUDA_OK(cudaMemset(bad, 0, sizeof(int)));
  coords<<<1, 128>>>(in, bad);
  int nbad = -1;
  CUDA_OK(cudaMemcpy(&nbad, bad, sizeof(int), cudaMemcpyDeviceToHost));
  expect("coord_a / coord_b name every register's element", nbad == 0);

  CUDA_OK(cudaMemset(out, 0, n * 2));
  specialised<<<1, 256>>>(in, out, side);
  std::vector<int> side_got(128);
  CUDA_OK(cudaMemcpy(side_got.data(), side, 128 * sizeof(int), cudaMemcpyDeviceToHost));
  bool side_ok = true;
  for (int t = 0; t < 128; ++t) side_ok &= side_got[t] == 3 * (127 - t);
  expect("warp-specialised: warps 4-7 convert<4, 1>, bar.sync 1, 128", same_tile() == 1 && side_ok);

  renames<<<1, 128>>>(in, out, 3);
  CUDA_OK(cudaMemcpy(got.data(), out, n * 2, cudaMemcpyDeviceToHost));
  bool plus_ok = true;
  for (int i = 0; i < n; ++i) {
    __half_raw raw;
    raw.x = tile[i];
    __half want(raw);
    for (int k = 0; k < 3; ++k) want = __float2half(__half2float(want) + 1.0f);  // one f16 add, rounded once
    plus_ok &= std::memcmp(&got[i], &want, 2) == 0;
  }
  expect("register permutation in a loop, +1 three times", plus_ok);

  const int nb = bg::kTileElems;
  std::vector<unsigned short> big_tile(nb), big_got(nb);
  for (int i = 0; i < nb; ++i) big_tile[i] = static_cast<unsigned short>(i * 3 + 1);
  __half *bin, *bout;
  CUDA_OK(cudaMalloc(&bin, nb * 2));
  CUDA_OK(cudaMalloc(&bout, nb * 2));
  CUDA_OK(cudaMemcpy(bin, big_tile.data(), nb * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(bout, 0, nb * 2));
  if (bg::kSmemOptIn) CUDA_OK(cudaFuncSetAttribute(dynamic_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, bg::kSmemBytes));
  dynamic_smem<<<1, bg::kThreads, bg::kSmemBytes>>>(bin, bout);
  CUDA_OK(cudaMemcpy(big_got.data(), bout, nb * 2, cudaMemcpyDeviceToHost));
  expect("64 KB of scratch in dynamic shared memory (kSmemOptIn)", big_got == big_tile);

  CUDA_OK(cudaMemset(out, 0, n * 2));
  CUDA_OK(cudaMemset(bad, 0, sizeof(int)));
  tile_round_trip<<<1, tl::kThreads, tl::kSmemBytes>>>(in, out, bad);
  CUDA_OK(cudaMemcpy(&nbad, bad, sizeof(int), cudaMemcpyDeviceToHost));
  expect("tile: store, __syncthreads, load as the mma's A, store_b", same_tile() == 1 && nbad == 0);

  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("consumer: %s\n", failures ? "FAILED" : "all exact");
  return failures ? 1 : 0;
}
