#!/usr/bin/env bash
# Session 25's second device call: gpu-check's correctness and sanitizer parts over every bench kernel (free-paired
# variants and the 16-bit add included), the pre-shuffled loaders on the GPU (the i8 fast byte order included), and
# the upcast-alone kernels under ncu.
cd "$(dirname "$0")/../../.."  # the repository root
. bench/device_setup.sh
OUT= timeout ${CHECK_S:-380} python3 -m llgen.cli gpu-check -o "$out/gpu-check" --budget ${BUDGET:-320} --random 0 \
  --sanitize-random 0 --endpoints 0 --sanitize-endpoints 0 --ncu-random 0 --skip ncu,endpoint-ncu,memcheck,endpoints \
  > /tmp/gpu-check.log 2>&1
tail -n 22 /tmp/gpu-check.log
OUT=/tmp/pre timeout ${PRESHUFFLE_S:-110} python3 bench/preshuffle_gpu.py > /tmp/preshuffle.log 2>&1
grep -E "^exact|FAIL" /tmp/preshuffle.log | head -20
timeout 70 python3 bench/probes/upcast_ncu.py > "$out/upcast_ncu.txt" 2>&1
tail -n 13 "$out/upcast_ncu.txt"
tar czf "$out/logs.tgz" -C /tmp gpu-check.log preshuffle.log
