#!/usr/bin/env bash
# Written in session 26 for the next device call (not run): with every LOOP slope now starting from a launch of
# 0.5 ms (rules.MIN_LAUNCH_MS), (1) the whole mixed suite, whose 4-CTA LOOP figures were timed over too few steps
# before; (2) the core and wide cases whose launches ran under 100 us at 64 round trips (bench/report.json), to see
# whether their figures move; (3) the upcast probe with both slopes beside ncu. About 8 minutes.
# Usage: LLGEN_COMMIT=<hash> bench/runs/2026-12-08-session26/next_call.sh
cd "$(dirname "$0")/../../.."  # the repository root
out=${OUT:-/tmp/llgen-out}
PRESHUFFLE_S=0 SHARD_S=${SHARD_S:-110} bench/mixed_run.sh 25
. bench/device_setup.sh
timeout ${CORE_S:-60} python3 -m llgen.cli bench --suite core --cases t16x32,mma2dotA_f16 --measures loop \
  -o "$out/short-core.json" > /tmp/short.log 2>&1
timeout ${WIDE_S:-150} python3 -m llgen.cli bench --suite wide --measures loop -o "$out/short-wide.json" \
  --cases tiny_8x8_f16,r1_64_i8,regperm_f16,regperm_i8,r18_7_i8,r18_124_f8e5m2,r18_182_i16,r18_353_i32,r18_339_f32,r1_512_f32,tiny_16x16_f32,r18_158_i16 \
  >> /tmp/short.log 2>&1
grep -E "alternating rounds:" /tmp/short.log | head -20
timeout 100 python3 bench/probes/upcast_ncu.py > "$out/upcast_ncu.txt" 2>&1
tail -n 12 "$out/upcast_ncu.txt"
