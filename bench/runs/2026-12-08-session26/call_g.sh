#!/usr/bin/env bash
# Session 26's last try: the mixed suite's LOOP over 512 and 2048 steps (rules.KS_MIXED) on the cases issue 38's
# targets turn on, then the upcast probe with both slopes. Usage: LLGEN_COMMIT=<hash> bench/runs/2026-12-08-session26/call_g.sh
cd "$(dirname "$0")/../../.."  # the repository root
out=${OUT:-/tmp/llgen-out}
PRESHUFFLE_S=0 SHARD_S=${SHARD_S:-100} MIXED_CASES=${MIXED_CASES:-mma2B_i4_k256_kmajor,mma2B_i4_k64_kmajor,wgmmaA_i8_k128_kmajor,mma2B_i8_k128_kmajor,mma2B_e2m1_k128_kmajor,mma2B_e2m1_k256_kmajor_mx,wgmmaA_e2m1_k256_kmajor_mx,wgmmaA_e2m1_k128_kmajor_f16} \
  bench/mixed_run.sh 25
timeout ${PROBE_S:-60} python3 bench/probes/upcast_ncu.py > "$out/upcast_ncu.txt" 2>&1
tail -n 12 "$out/upcast_ncu.txt"
