// Stands in for hip/hip_runtime.h (and hip_fp16.h, hip_bf16.h) when llgen.runtime.toolchain compiles emitted HIP
// on the CPU: just the names the generated HIP uses, in clang builtins, so clang-19 compiles it with -nogpuinc and
// no ROCm. warpSize is left undefined on purpose: generated code must use its own constexpr wave size.
#pragma once
#ifndef LLGEN_HIP_SHIM_H  // one copy stands in for all three headers: a guard across the three names
#define LLGEN_HIP_SHIM_H
#define __HIP_PLATFORM_AMD__ 1
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(n, ...) __attribute__((amdgpu_flat_work_group_size(1, n)))
typedef __SIZE_TYPE__ size_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef _Float16 __half;
typedef __bf16 __hip_bfloat16;
// hip_fp16.h's and hip_bf16.h's pair types and the pair operations the upcasts call, defined here (through float for
// bf16) so that a kernel links: this shim compiles and counts code, it does not stand for ROCm's arithmetic
struct __half2 { __half x, y; };
struct __hip_bfloat162 { __hip_bfloat16 x, y; };
__device__ __forceinline__ __half2 __hsub2(__half2 a, __half2 b) { return {a.x - b.x, a.y - b.y}; }
__device__ __forceinline__ __half2 __hmul2(__half2 a, __half2 b) { return {a.x * b.x, a.y * b.y}; }
__device__ __forceinline__ __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return {a.x * b.x + c.x, a.y * b.y + c.y}; }
__device__ __forceinline__ float llgen_shim_bf(__hip_bfloat16 v) {
  return __builtin_bit_cast(float, static_cast<unsigned>(__builtin_bit_cast(unsigned short, v)) << 16);
}
__device__ __forceinline__ __hip_bfloat16 llgen_shim_to_bf(float f) {
  const unsigned u = __builtin_bit_cast(unsigned, f);
  return __builtin_bit_cast(__hip_bfloat16, static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16));
}
__device__ __forceinline__ __hip_bfloat162 __hsub2(__hip_bfloat162 a, __hip_bfloat162 b) {
  return {llgen_shim_to_bf(llgen_shim_bf(a.x) - llgen_shim_bf(b.x)), llgen_shim_to_bf(llgen_shim_bf(a.y) - llgen_shim_bf(b.y))};
}
__device__ __forceinline__ __hip_bfloat162 __hmul2(__hip_bfloat162 a, __hip_bfloat162 b) {
  return {llgen_shim_to_bf(llgen_shim_bf(a.x) * llgen_shim_bf(b.x)), llgen_shim_to_bf(llgen_shim_bf(a.y) * llgen_shim_bf(b.y))};
}
__device__ __forceinline__ __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b, __hip_bfloat162 c) {
  return {llgen_shim_to_bf(llgen_shim_bf(a.x) * llgen_shim_bf(b.x) + llgen_shim_bf(c.x)),
          llgen_shim_to_bf(llgen_shim_bf(a.y) * llgen_shim_bf(b.y) + llgen_shim_bf(c.y))};
}
__device__ __forceinline__ unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {  // the i8 upcasts' byte select
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((v >> (8 * ((s >> (4 * i)) & 7u))) & 255u) << (8 * i);
  return r;
}
typedef unsigned uint2 __attribute__((ext_vector_type(2)));
typedef unsigned uint4 __attribute__((ext_vector_type(4)));
typedef int int2 __attribute__((ext_vector_type(2)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
__device__ __forceinline__ uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
__device__ __forceinline__ uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

#define __LLGEN_DIM3(name, f)                                                        \
  struct __llgen_##name {                                                            \
    __declspec(property(get = get_x)) unsigned x;                                    \
    __declspec(property(get = get_y)) unsigned y;                                    \
    __declspec(property(get = get_z)) unsigned z;                                    \
    __device__ unsigned get_x() const { return f(x); }                               \
    __device__ unsigned get_y() const { return f(y); }                               \
    __device__ unsigned get_z() const { return f(z); }                               \
  };                                                                                 \
  static constexpr __device__ __llgen_##name name{};
#define __LLGEN_TID(d) __builtin_amdgcn_workitem_id_##d()
#define __LLGEN_BID(d) __builtin_amdgcn_workgroup_id_##d()
#define __LLGEN_BDIM(d) __builtin_amdgcn_workgroup_size_##d()
#define __LLGEN_GDIM(d) (__builtin_amdgcn_grid_size_##d() / __builtin_amdgcn_workgroup_size_##d())
__LLGEN_DIM3(threadIdx, __LLGEN_TID)
__LLGEN_DIM3(blockIdx, __LLGEN_BID)
__LLGEN_DIM3(blockDim, __LLGEN_BDIM)
__LLGEN_DIM3(gridDim, __LLGEN_GDIM)

extern "C" __device__ int printf(const char*, ...);  // device printf, declared by hip_runtime.h (debug builds' launch checks)

__device__ __forceinline__ void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ __forceinline__ unsigned __lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
__device__ __forceinline__ int __shfl(int v, int src, int width = __AMDGCN_WAVEFRONT_SIZE__) {
  int self = __lane_id();
  return __builtin_amdgcn_ds_bpermute((src + (self & ~(width - 1))) << 2, v);
}
__device__ __forceinline__ int __shfl_xor(int v, int mask, int width = __AMDGCN_WAVEFRONT_SIZE__) {
  int self = __lane_id();
  int idx = self ^ mask;
  idx = idx >= ((self + width) & ~(width - 1)) ? self : idx;
  return __builtin_amdgcn_ds_bpermute(idx << 2, v);
}
__device__ __forceinline__ unsigned __shfl(unsigned v, int src, int width = __AMDGCN_WAVEFRONT_SIZE__) {
  return (unsigned)__shfl((int)v, src, width);
}
__device__ __forceinline__ unsigned __shfl_xor(unsigned v, int mask, int width = __AMDGCN_WAVEFRONT_SIZE__) {
  return (unsigned)__shfl_xor((int)v, mask, width);
}
__device__ __forceinline__ float __shfl(float v, int src, int width = __AMDGCN_WAVEFRONT_SIZE__) {
  return __builtin_bit_cast(float, __shfl(__builtin_bit_cast(int, v), src, width));
}
__device__ __forceinline__ float __shfl_xor(float v, int mask, int width = __AMDGCN_WAVEFRONT_SIZE__) {
  return __builtin_bit_cast(float, __shfl_xor(__builtin_bit_cast(int, v), mask, width));
}
#endif  // LLGEN_HIP_SHIM_H
