// The CPU shim's cuda_fp16.h and cuda_bf16.h: the 16-bit pair types and the few pair operations emitted code
// calls (__hsub2, __hfma2, __hmul2), each computed exactly and rounded once to nearest even, as the GPU does.
// One file written under three names: an include guard, since GCC's #pragma once tells copies apart by their
// modification time, and two copies written a tick apart were both included (a redefinition, now and then).
#ifndef LLGEN_HOST_FP16_H
#define LLGEN_HOST_FP16_H
#include <cmath>
#include <cstring>

struct __half2 { unsigned short x, y; };
struct __nv_bfloat162 { unsigned short x, y; };

inline float llgen_host_f16_value(unsigned short h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const float v = e == 0 ? std::ldexp(float(m), -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(float(m + 1024), e - 25);
  return (h >> 15) ? -v : v;
}

inline unsigned short llgen_host_f16_bits(double f) {
  unsigned short s = std::signbit(f) ? 0x8000 : 0;
  double a = std::fabs(f);
  if (std::isnan(f)) return 0x7E00;
  if (a == 0) return s;
  int ex;
  std::frexp(a, &ex);  // a = fr * 2^ex, fr in [0.5, 1)
  if (ex - 1 < -14) return s | (unsigned short)std::nearbyint(std::ldexp(a, 24));  // subnormal (may round up to normal)
  double m = std::nearbyint(std::ldexp(a, 11 - ex));  // 11 significant bits, 1024..2048
  int e = ex - 1 + 15;
  if (m == 2048) { m = 1024; ++e; }
  if (e >= 31) return s | 0x7C00;
  return s | (unsigned short)(e << 10) | (unsigned short)(m - 1024);
}

inline float llgen_host_bf16_value(unsigned short h) {
  unsigned u = unsigned(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline unsigned short llgen_host_bf16_bits(double d) {
  const float f = float(d);  // exact for the values emitted code forms
  unsigned u;
  std::memcpy(&u, &f, 4);
  return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

#define LLGEN_HOST_PAIR_OPS(T, VALUE, BITS)                                                            \
  inline T __hsub2(T a, T b) { return {BITS(double(VALUE(a.x)) - VALUE(b.x)), BITS(double(VALUE(a.y)) - VALUE(b.y))}; } \
  inline T __hmul2(T a, T b) { return {BITS(double(VALUE(a.x)) * VALUE(b.x)), BITS(double(VALUE(a.y)) * VALUE(b.y))}; } \
  inline T __hfma2(T a, T b, T c) {                                                                    \
    return {BITS(double(VALUE(a.x)) * VALUE(b.x) + VALUE(c.x)), BITS(double(VALUE(a.y)) * VALUE(b.y) + VALUE(c.y))}; \
  }
LLGEN_HOST_PAIR_OPS(__half2, llgen_host_f16_value, llgen_host_f16_bits)
LLGEN_HOST_PAIR_OPS(__nv_bfloat162, llgen_host_bf16_value, llgen_host_bf16_bits)
#undef LLGEN_HOST_PAIR_OPS
#endif  // LLGEN_HOST_FP16_H
