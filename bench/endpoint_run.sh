#!/usr/bin/env bash
# One call on the lent GPU machine for the endpoint suite: `llgen bench --suite endpoint` (every variant: the pick, forced
# direct, two-step and lane-select plans, Triton's Gluon loop), then gpu-check's endpoints and endpoint-ncu parts
# (exactness of the endpoint check kernels, and their shared-memory wavefronts under ncu against the plans).
# Everything lands in $OUT/endpoint.tgz. Usage: LLGEN_COMMIT=<hash> bench/endpoint_run.sh [GPU_CHECK_BUDGET_S] (0: no gpu-check)
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-120}
. bench/device_setup.sh
runs=/tmp/llgen-endpoint
mkdir -p "$runs"
rc=0
timeout ${ENDPOINT_S:-300} python3 -m llgen.cli bench --suite endpoint -o "$runs/endpoint" > "$runs/endpoint.log" 2>&1
rc=$((rc | $?))
grep -E "^- (geometric|MISSED|met)|^\| (ep|op|tr)_" "$runs/endpoint/report.md" 2>/dev/null | cut -c1-230
if [ "$budget" != 0 ]; then
  timeout $((budget + 80)) python3 -m llgen.cli gpu-check -o "$runs/gpu-check" --budget "$budget" --random 0 \
    --sanitize-random 0 --ncu-random 0 --skip correctness,ncu,memcheck,synccheck,racecheck > "$runs/gpu-check.log" 2>&1
  rc=$((rc | $?))
  tail -n 12 "$runs/gpu-check.log"
fi
tar czf "$out/endpoint.tgz" -C "$runs" .
exit $rc
