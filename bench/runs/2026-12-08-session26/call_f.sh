#!/usr/bin/env bash
# Session 26's fourth device call: the whole mixed suite again, its LOOP now timed over 512 and 2048 steps
# (rules.KS_MIXED; call E showed the 64/128 slope 1.4-1.5x short), then the upcast probe with both slopes side by side.
# Usage: LLGEN_COMMIT=<hash> bench/runs/2026-12-08-session26/call_f.sh
cd "$(dirname "$0")/../../.."  # the repository root
out=${OUT:-/tmp/llgen-out}
PRESHUFFLE_S=0 SHARD_S=${SHARD_S:-120} bench/mixed_run.sh 25
timeout 100 python3 bench/probes/upcast_ncu.py > "$out/upcast_ncu.txt" 2>&1
tail -n 12 "$out/upcast_ncu.txt"
