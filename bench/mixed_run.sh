#!/usr/bin/env bash
# One call on the lent GPU machine for mixed precision: bench/preshuffle_gpu.py (repack + load + upcast exactness,
# mma/wgmma products, streams), then `llgen bench --suite mixed` in four shards. Everything lands in $OUT/mixed.tgz
# (the device tool brings back at most 8 files). MIXED_CASES=a,b runs only those cases (one piece, not four shards);
# PROBE=1 runs bench/probes/mixed_stream.py after; PRESHUFFLE_S=0 skips the pre-shuffle checks. Usage: LLGEN_COMMIT=<hash> bench/mixed_run.sh [REP_MS]
set -uo pipefail
cd "$(dirname "$0")/.."
rep=${1:-25}
. bench/device_setup.sh
runs=/tmp/llgen-mixed
mkdir -p "$runs"
rc=0
if [ "${PRESHUFFLE_S:-150}" != 0 ]; then
  OUT=$runs timeout ${PRESHUFFLE_S:-150} python3 bench/preshuffle_gpu.py > "$runs/preshuffle.log" 2>&1
  rc=$((rc | $?))
  grep -E "^exact|FAIL" "$runs/preshuffle.log" | head -20
fi
if [ -n "${MIXED_CASES:-}" ]; then
  timeout ${SHARD_S:-110} python3 -m llgen.cli bench --suite mixed --cases "$MIXED_CASES" --rep "$rep" \
    -o "$runs/mixed-cases.json" > "$runs/mixed-cases.log" 2>&1
  rc=$((rc | $?))
  grep -E "^\| .*(llgen|triton)" "$runs/mixed-cases.log" | head -40
else
  for i in 1 2 3 4; do
    timeout ${SHARD_S:-110} python3 -m llgen.cli bench --suite mixed --shard "$i/4" --rep "$rep" \
      -o "$runs/mixed-$i-of-4.json" > "$runs/mixed-$i.log" 2>&1
    rc=$((rc | $?))
    tail -n 2 "$runs/mixed-$i.log"
  done
fi
if [ -n "${PROBE:-}" ]; then
  timeout ${PROBE_S:-150} python3 bench/probes/mixed_stream.py > "$runs/mixed-stream-probe.txt" 2>&1
  rc=$((rc | $?))
  cat "$runs/mixed-stream-probe.txt"
fi
tar czf "$out/mixed.tgz" -C "$runs" .
exit $rc
