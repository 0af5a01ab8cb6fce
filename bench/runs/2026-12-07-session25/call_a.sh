#!/usr/bin/env bash
# Session 25's first device call: free pairing beside Triton (warplocal's one-warp pairs, four wide cases), the
# i8 fast byte order and mx in the mixed suite, and the upcast-alone kernels under ncu.
cd "$(dirname "$0")/../../.."  # the repository root
export LLGEN_COMMIT=${LLGEN_COMMIT:-?}
CHAIN_TOOLS= WL_CASES=wl1_tpw2x16_to_spt4_f16,wl1_tpw8x4_to_spt4_f16,wl1_slice_f16,wl1_swap3_f16,wl1_swap5_bf16,wl1_b2dotB_f8e4m3 \
  WL_S=150 WIDE_S=130 WIDE_CASES=w1_b2bT_f16,r1_slice_256_f16,b2dotB_f8e4m3,mma2b_f8e5m2 bench/scratch_run.sh 0
PRESHUFFLE_S=0 SHARD_S=220 MIXED_CASES=wgmmaA_i8_k64_kmajor,wgmmaA_i8_k128_kmajor,wgmmaA_i8_k256_kmajor,mma2B_i8_k128_kmajor,mma2B_i8_k256_kmajor,mma2B_e2m1_k256_kmajor_mx,wgmmaA_e2m1_k256_kmajor_mx,mma2B_i4_k256_kmajor \
  bench/mixed_run.sh 25
timeout 80 python3 bench/probes/upcast_ncu.py > "${OUT:-/tmp/llgen-out}/upcast_ncu.txt" 2>&1
cat "${OUT:-/tmp/llgen-out}/upcast_ncu.txt" | tail -14
