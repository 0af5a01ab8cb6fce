#!/usr/bin/env bash
# On the GPU machine: generate tests/consumer's headers, build the consumer with nvcc (release, and a -DLLGEN_DEBUG
# build whose launch checks must stay silent), run both, and run compute-sanitizer's memcheck and racecheck on the
# release build. Writes bench/consumer.txt (and copies it to $OUT). Usage: bench/consumer_run.sh [ARCH]
set -uo pipefail
cd "$(dirname "$0")/.."
arch=${1:-sm_90}
out=${OUT:-/tmp/llgen-out}
mkdir -p "$out"
report=bench/consumer.txt
build=$(mktemp -d)
cp tests/consumer/consumer.cu "$build/"
{
  echo "tests/consumer on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), $(date -u +%F), commit ${LLGEN_COMMIT:-?}"
  python3 tests/consumer/generate.py "$build/third_party" >/dev/null || echo "generate.py failed"
  cd "$build"
  nvcc -std=c++17 -arch="$arch" -Werror all-warnings consumer.cu -o consumer && echo "built consumer ($arch)"
  nvcc -std=c++17 -arch="$arch" -Werror all-warnings -DLLGEN_DEBUG consumer.cu -o consumer_debug && echo "built consumer_debug"
  echo "== ./consumer"; ./consumer; echo "exit $?"
  echo "== ./consumer_debug (LLGEN_DEBUG launch checks)"; ./consumer_debug; echo "exit $?"
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool ./consumer"
    compute-sanitizer --tool "$tool" ./consumer 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|consumer:" ; echo "exit ${PIPESTATUS[0]}"
  done
} 2>&1 | tee "$report"
cp "$report" "$out/"
