#blocked = #triton_gpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc2 = loc("local_ops.mlir":4:23)
#shared = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, triton_gpu.target = "cuda:90", "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func @store_load(%arg0: tensor<64x64xf16, #blocked> loc("local_ops.mlir":4:23)) {
    %0 = triton_gpu.local_alloc  : () -> !tt.memdesc<2x64x64xf16, #shared, #triton_gpu.shared_memory, mutable> loc(#loc3)
    %c0_i32 = arith.constant 0 : i32 loc(#loc4)
    %1 = triton_gpu.memdesc_subview %0[%c0_i32, %c0_i32, %c0_i32] : !tt.memdesc<2x64x64xf16, #shared, #triton_gpu.shared_memory, mutable> -> !tt.memdesc<64x64xf16, #shared, #triton_gpu.shared_memory, mutable> loc(#loc5)
    triton_gpu.local_store %arg0, %1 : tensor<64x64xf16, #blocked> -> !tt.memdesc<64x64xf16, #shared, #triton_gpu.shared_memory, mutable> loc(#loc6)
    %2 = triton_gpu.local_load %1 : !tt.memdesc<64x64xf16, #shared, #triton_gpu.shared_memory, mutable> -> tensor<64x64xf16, #blocked> loc(#loc7)
    tt.return loc(#loc8)
  } loc(#loc1)
} loc(#loc)
#loc = loc("local_ops.mlir":3:1)
#loc1 = loc("local_ops.mlir":4:3)
#loc3 = loc("local_ops.mlir":5:10)
#loc4 = loc("local_ops.mlir":6:11)
#loc5 = loc("local_ops.mlir":7:10)
#loc6 = loc("local_ops.mlir":8:5)
#loc7 = loc("local_ops.mlir":9:10)
#loc8 = loc("local_ops.mlir":10:5)
