#!/usr/bin/env bash
# Session 26's third device call. (1) The cases whose shared plans changed when matrix tiles past two scratch rounds
# stopped losing to plain vectors that take more instructions (the tie rule now breaks only true ties): eight
# warplocal and four wide cases, every variant beside Triton, LOOP and one CTA. (2) wl1_tpw8x4_to_spt4_f16 again in a
# 1 KB budget: 8 rounds of stmatrix and 16-byte loads, the round size of Triton's own kernel. (3) The upcast-alone
# kernels timed by ncu and by events in one process (bench/probes/upcast_ncu.py), for the i4 timing question.
# Usage: LLGEN_COMMIT=<hash> bench/runs/2026-12-08-session26/call_e.sh
cd "$(dirname "$0")/../../.."  # the repository root
export LLGEN_COMMIT=${LLGEN_COMMIT:-?}
out=${OUT:-/tmp/llgen-out}
CHAIN_TOOLS= WL_S=280 WIDE_S=150 \
  WL_CASES=wl1_tpw8x4_to_spt4_f16,wl1_b2b_f32,wl1_b2b_i8,wl1_b2dotA_i8,wl1_b2mma_f16,wl1_slice_f16,wl1_swap5_bf16,wl4_b2dotA_i8 \
  WIDE_CASES=mma2b_f16_b8k,r3_mma2b_4x64x32_f16,w1_b2b_i8,w1_b2dotA_f16 bench/scratch_run.sh 0 > "$out/short-table.txt" 2>&1
grep -E "MISSED|met:" "$out/report.md" | cut -c1-600
timeout 70 python3 -m llgen.cli bench --suite warplocal --cases wl1_tpw8x4_to_spt4_f16 --smem-budget 1024 --measures loop \
  -o "$out/tpw8x4-1k.json" > /tmp/tpw8x4-1k.log 2>&1
grep -E "alternating" /tmp/tpw8x4-1k.log
timeout 100 python3 bench/probes/upcast_ncu.py > "$out/upcast_ncu.txt" 2>&1
tail -n 25 "$out/upcast_ncu.txt"
grep -E "wl1_tpw8x4|alternating" "$out/short-table.txt" | head -20
