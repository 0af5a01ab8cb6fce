#!/usr/bin/env bash
# Session 25's third device call, NOT RUN (no machine could be started; bench/NOTES.md): the one-warp latency
# pairs again, the free-paired variant and Triton now in alternating rounds; with PRESHUFFLE_S=<seconds>, the
# pre-shuffled loaders on the GPU; the upcast-alone kernels under ncu over longer loops; four mixed cases with the
# upcasts' shifts as multiply-highs. Usage: PRESHUFFLE_S=100 LLGEN_COMMIT=<hash> bench/runs/2026-12-07-session25/call_c.sh
cd "$(dirname "$0")/../../.."  # the repository root
. bench/device_setup.sh
timeout 90 python3 -m llgen.cli bench --suite warplocal --cases wl1_tpw2x16_to_spt4_f16,wl1_tpw8x4_to_spt4_f16 \
  --measures loop -o "$out/wl" > /tmp/bench.log 2>&1
grep -E "alternating|free" /tmp/bench.log | tail -8
grep -E "MISSED|met:" "$out/wl/report.md" 2>/dev/null | grep -i "latency" | cut -c1-400
if [ "${PRESHUFFLE_S:-0}" != 0 ]; then
  OUT=$out timeout "$PRESHUFFLE_S" python3 bench/preshuffle_gpu.py > /tmp/preshuffle.log 2>&1
  grep -iE "exact|fail" /tmp/preshuffle.log | head -12
fi
PRESHUFFLE_S=0 SHARD_S=110 MIXED_CASES=mma2B_e2m1_k256_kmajor_mx,wgmmaA_e2m1_k256_kmajor_mx,mma2B_i4_k256_kmajor,wgmmaA_i8_k128_kmajor \
  bench/mixed_run.sh 25
timeout 60 python3 bench/probes/upcast_ncu.py > "$out/upcast_ncu.txt" 2>&1
tail -n 13 "$out/upcast_ncu.txt"
tar czf "$out/logs.tgz" -C /tmp bench.log $(cd /tmp && ls preshuffle.log 2>/dev/null)
