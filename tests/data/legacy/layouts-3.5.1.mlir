#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc2 = loc("case.mlir":2:20)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @blocked(%arg0: tensor<128x64xf16, #blocked> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#loc2 = loc("case.mlir":2:24)
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @blocked_cta(%arg0: tensor<128x64xf16, #blocked> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:19)
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @mma_v2(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:19)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CTAsPerCGA = [2, 2], CTASplitNum = [2, 2], CTAOrder = [1, 0], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @mma_v2_cta(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:18)
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wgmma(%arg0: tensor<128x64xf16, #mma> loc("case.mlir":2:18)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:21)
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_v2_a(%arg0: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> loc("case.mlir":2:21)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_v2_b_i8(%arg0: tensor<64x64xi8, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:26)
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_wgmma_f16(%arg0: tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> loc("case.mlir":2:26)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:25)
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_wgmma_f8(%arg0: tensor<128x64xf8E4M3FN, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> loc("case.mlir":2:25)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc2 = loc("case.mlir":2:26)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @slice_blocked(%arg0: tensor<128xf16, #ttg.slice<{dim = 1, parent = #blocked}>> loc("case.mlir":2:26)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @slice_dot(%arg0: tensor<64xf16, #ttg.slice<{dim = 0, parent = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>}>> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:20)
#mma = #ttg.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @mfma_v2(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:29)
#mma = #ttg.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @mfma_v2_unspaced(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:29)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @mfma_v3_t(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:20)
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @mfma_16(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:21)
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true, CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @mfma_cta(%arg0: tensor<64x128xf16, #mma> loc("case.mlir":2:21)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @mfma_dot_a(%arg0: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#mma = #ttg.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @mfma_dot_b(%arg0: tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:20)
#mma = #ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wmma_v1(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#mma = #ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wmma_v1_cta(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:20)
#mma = #ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wmma_v2(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:20)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#mma = #ttg.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [2, 2]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wmma_v2_t(%arg0: tensor<64x64xf16, #mma> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#mma = #ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wmma_dot_v1(%arg0: tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 16}>> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#mma = #ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wmma_dot_v2(%arg0: tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]], block = []}>
#loc2 = loc("case.mlir":2:19)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @linear(%arg0: tensor<64x64xf16, #linear> loc("case.mlir":2:19)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:21)
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @swizzled(%arg0: !ttg.memdesc<64x64xf16, #shared, #smem> loc("case.mlir":2:21)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:25)
#shared = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @swizzled_amd(%arg0: !ttg.memdesc<64x64xf16, #shared, #smem> loc("case.mlir":2:25)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:25)
#shared = #ttg.swizzled_shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0], CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @swizzled_cta(%arg0: !ttg.memdesc<64x64xf16, #shared, #smem> loc("case.mlir":2:25)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_128(%arg0: !ttg.memdesc<64x64xf16, #shared, #smem> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_64_t(%arg0: !ttg.memdesc<64x64xf16, #shared, #smem> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:24)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_32_f8(%arg0: !ttg.memdesc<64x32xf8E4M3FN, #shared, #smem> loc("case.mlir":2:24)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:26)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_128_f32(%arg0: !ttg.memdesc<64x32xf32, #shared, #smem> loc("case.mlir":2:26)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:23)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_none(%arg0: !ttg.memdesc<64x64xf16, #shared, #smem> loc("case.mlir":2:23)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:22)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CTAsPerCGA = [1, 4], CTASplitNum = [1, 4], CTAOrder = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_cta(%arg0: !ttg.memdesc<64x256xf16, #shared, #smem> loc("case.mlir":2:22)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
// -----
#loc2 = loc("case.mlir":2:21)
#shared = #ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @rotating(%arg0: !ttg.memdesc<64x64xf16, #shared, #smem> loc("case.mlir":2:21)) {
    tt.return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#loc = loc("case.mlir":1:1)
#loc1 = loc("case.mlir":2:3)
#loc3 = loc("case.mlir":3:5)
