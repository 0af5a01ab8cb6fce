// A user's kernel that vendors a header llgen generated (copied into third_party/).
#include <cuda_fp16.h>
#include "third_party/b2dotA_f16.cuh"

namespace cvt = llgen::b2dotA_f16;

__global__ void use_it(const __half* tile, __half* out) {
  alignas(16) __shared__ unsigned char smem[cvt::kSmemDecl];
  __half a[cvt::kInRegs];
  __half b[cvt::kOutRegs];
  cvt::load_a(tile, a);
  cvt::convert(a, b, smem);
  for (int j = 0; j < cvt::kOutRegs; ++j) out[threadIdx.x * cvt::kOutRegs + j] = b[j];
}
