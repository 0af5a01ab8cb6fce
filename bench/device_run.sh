#!/usr/bin/env bash
# One call on the lent GPU machine: install, `make gpu-check` (correctness, ncu, sanitizers), `make bench`, then
# bench/probes/copy_and_pipes.py (PROBES=0 skips it; PROBE_PARTS="lanes roofline" runs those parts only).
# Reports land in bench/ and are copied to $OUT; the tools' logs go to $OUT/logs.tgz (the device tool brings
# back at most 8 files). Usage: LLGEN_COMMIT=<hash> bench/device_run.sh [CHECK_BUDGET_S] [BENCH_ARGS...]
# (the tree travels without .git, so the reports learn the commit from LLGEN_COMMIT)
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-330}
shift || true
export PYTHONUNBUFFERED=1 LLGEN_COMMIT=${LLGEN_COMMIT:-?}
out=${OUT:-/tmp/llgen-out}
mkdir -p "$out"
logs=/tmp/llgen-gpu-check-logs
make -s gpu-install >/dev/null 2>&1 || python3 -m pip install -q --no-deps --no-build-isolation -e .
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
rc=0
if [ "$budget" != 0 ]; then
  # OUT= keeps gpu_check's logs in $logs; we copy its two reports ourselves
  OUT= timeout $((${budget%.*} + 120)) python3 -m llgen.cli gpu-check -o bench/gpu-check --budget "$budget" 2>&1 | tee "$out/gpu-check.log" | tail -n 30
  rc=$?
  cp bench/gpu-check.md bench/gpu-check.json "$out/" 2>/dev/null
fi
if [ "${BENCH:-1}" != 0 ]; then
  timeout 400 python3 -m llgen.cli bench --suite core -o bench/ "$@" 2>&1 | tee "$out/bench.log" | tail -n 40
  rc=$((rc | $?))
  cp bench/report.md bench/report.json bench/report.png "$out/" 2>/dev/null
fi
if [ "${PROBES:-1}" != 0 ]; then
  timeout 300 python3 bench/probes/copy_and_pipes.py ${PROBE_PARTS:-} 2>&1 | tee bench/probes/copy_and_pipes.txt | tail -n 40
  rc=$((rc | $?))
  cp bench/probes/copy_and_pipes.txt "$out/"
fi
tar czf "$out/logs.tgz" -C /tmp llgen-gpu-check-logs "$out/gpu-check.log" "$out/bench.log" 2>/dev/null
rm -f "$out/gpu-check.log" "$out/bench.log"
exit $rc
