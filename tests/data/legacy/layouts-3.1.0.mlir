#blocked = #triton_gpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc2 = loc("case.mlir":2:20)
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @blocked(%arg0: tensor<128x64xf16, #blocked> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#blocked = #triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#loc2 = loc("case.mlir":2:24)
module attributes {"triton_gpu.num-ctas" = 4 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @blocked_cta(%arg0: tensor<128x64xf16, #blocked> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:19)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @mma_v2(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:19)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CTAsPerCGA = [2, 2], CTASplitNum = [2, 2], CTAOrder = [1, 0], instrShape = [16, 8]}>
module attributes {"triton_gpu.num-ctas" = 4 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @mma_v2_cta(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:18)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @wgmma(%arg0: tensor<128x64xf16, #mma> loc("case.mlir":2:18)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:21)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @dot_v2_a(%arg0: tensor<64x32xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> loc("case.mlir":2:21)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @dot_v2_b_i8(%arg0: tensor<64x64xi8, #triton_gpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:26)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @dot_wgmma_f16(%arg0: tensor<128x64xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #mma}>> loc("case.mlir":2:26)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:25)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @dot_wgmma_f8(%arg0: tensor<128x64xf8E4M3FN, #triton_gpu.dot_op<{opIdx = 0, parent = #mma}>> loc("case.mlir":2:25)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#blocked = #triton_gpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc2 = loc("case.mlir":2:26)
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @slice_blocked(%arg0: tensor<128xf16, #triton_gpu.slice<{dim = 1, parent = #blocked}>> loc("case.mlir":2:26)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#mma = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @slice_dot(%arg0: tensor<64xf16, #triton_gpu.slice<{dim = 0, parent = #triton_gpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>}>> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:20)
#mma = #triton_gpu.amd_mfma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func @mfma_v2(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:29)
#mma = #triton_gpu.amd_mfma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func @mfma_v2_unspaced(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:29)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#mma = #triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func @mfma_v3_t(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:20)
#mma = #triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func @mfma_16(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:21)
#mma = #triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true, CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>
module attributes {"triton_gpu.num-ctas" = 2 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func @mfma_cta(%arg0: tensor<64x128xf16, #mma> loc("case.mlir":2:21)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#mma = #triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func @mfma_dot_a(%arg0: tensor<64x32xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#mma = #triton_gpu.amd_mfma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 64 : i32} {
  tt.func @mfma_dot_b(%arg0: tensor<64x64xf16, #triton_gpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:20)
#mma = #triton_gpu.amd_wmma<{warpsPerCTA = [2, 2]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @wmma_v1(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#mma = #triton_gpu.amd_wmma<{warpsPerCTA = [2, 2], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>
module attributes {"triton_gpu.num-ctas" = 2 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @wmma_v1_cta(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#mma = #triton_gpu.amd_wmma<{warpsPerCTA = [2, 2]}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @wmma_dot_v1(%arg0: tensor<64x64xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 16}>> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:21)
#shared = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @swizzled(%arg0: !tt.memdesc<64x64xf16, #shared> loc("case.mlir":2:21)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:25)
#shared = #triton_gpu.shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1], hasLeadingOffset = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @swizzled_amd(%arg0: !tt.memdesc<64x64xf16, #shared> loc("case.mlir":2:25)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:25)
#shared = #triton_gpu.shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0], CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0], hasLeadingOffset = false}>
module attributes {"triton_gpu.num-ctas" = 4 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @swizzled_cta(%arg0: !tt.memdesc<64x64xf16, #shared> loc("case.mlir":2:25)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#shared = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_128(%arg0: !tt.memdesc<64x64xf16, #shared> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#shared = #triton_gpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_64_t(%arg0: !tt.memdesc<64x64xf16, #shared> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#shared = #triton_gpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_32_f8(%arg0: !tt.memdesc<64x32xf8E4M3FN, #shared> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:26)
#shared = #triton_gpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_128_f32(%arg0: !tt.memdesc<64x32xf32, #shared> loc("case.mlir":2:26)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#shared = #triton_gpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_none(%arg0: !tt.memdesc<64x64xf16, #shared> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#shared = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [1, 4], CTASplitNum = [1, 4], CTAOrder = [0, 1], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-ctas" = 4 : i32, "triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_cta(%arg0: !tt.memdesc<64x256xf16, #shared> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
