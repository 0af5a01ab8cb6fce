#!/usr/bin/env bash
# One call on the lent GPU machine for the scratch rule and the regressions: racecheck and synccheck over the chains of
# two warp-local plans on one buffer; the bench of b2dotB_f32 and the two one-warp latency pairs beside Triton,
# merged into one report; then, in what is left of the budget, gpu-check's correctness part and
# synccheck/racecheck over every suite kernel and every bench kernel (core, wide, warplocal and endpoint by every variant,
# and chains of warp-local plans on one buffer). Ends with a short table. Usage: bench/scratch_run.sh [CHECK_BUDGET_S]
# (0: no gpu-check); WL_CASES= benches the whole warplocal suite (with its free-pairing variants, docs/design.md §3.4),
# WIDE_CASES=a,b the wide cases to bench, CHAIN_TOOLS= skips the chains' sanitizers. Free pairing beside Triton:
# CHAIN_TOOLS= WL_CASES= WIDE_CASES=w1_b2bT_f16,r1_slice_256_f16,b2dotB_f8e4m3,mma2b_f8e5m2 bench/scratch_run.sh 0
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-150}
. bench/device_setup.sh
parts=/tmp/llgen-bench
mkdir -p "$parts"
rc=0
for tool in ${CHAIN_TOOLS-racecheck synccheck}; do  # the chains first: the pairs that raced, and random ones like them
  timeout ${SAN_S:-90} compute-sanitizer --tool $tool --print-limit 10 python3 -m llgen.runtime.bench_kernels > "$out/chains-$tool.log" 2>&1
  rc=$((rc | $?))
  echo "chains under $tool: $(grep -c ' ok$' "$out/chains-$tool.log") ok, $(grep -c ' FAIL' "$out/chains-$tool.log") failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/chains-$tool.log" | tr '\n' ' ')"
done
wl_cases=${WL_CASES-wl1_tpw2x16_to_spt4_f16,wl1_tpw8x4_to_spt4_f16}  # WL_CASES= (empty): the whole warplocal suite
timeout ${WL_S:-120} python3 -m llgen.cli bench --suite warplocal ${wl_cases:+--cases $wl_cases} \
  --measures loop -o "$parts/warplocal.json" > "$out/bench.log" 2>&1
rc=$((rc | $?))
timeout ${WIDE_S:-90} python3 -m llgen.cli bench --suite wide --cases "${WIDE_CASES-b2dotB_f32}" --measures loop,stream -o "$parts/wide.json" \
  >> "$out/bench.log" 2>&1
rc=$((rc | $?))
python3 -m llgen.cli bench merge -o "$out" "$parts/warplocal.json" "$parts/wide.json" >> "$out/bench.log" 2>&1
rc=$((rc | $?))
if [ "$budget" != 0 ]; then
OUT= timeout $((budget + 60)) python3 -m llgen.cli gpu-check -o "$out/gpu-check" --budget "$budget" --random 0 \
  --sanitize-random 0 --endpoints 0 --sanitize-endpoints 0 --ncu-random 0 --skip ncu,endpoint-ncu,memcheck,endpoints \
  > "$out/gpu-check.log" 2>&1
rc=$((rc | $?))
tail -n 25 "$out/gpu-check.log"
fi
echo "== short table: case / variant: LOOP ns per SM, one-CTA ns, registers, local bytes, exact"
python3 - "$parts" <<'EOF'
import json, sys, pathlib
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    for c in json.loads(f.read_text())["cases"]:
        for name, r in c.get("variants", {}).items():
            print(f"{c['id']:28} {name:18} {r.get('loop_per_sm_ns', '-')!s:>8} {r.get('loop_lat_ns', '-')!s:>8} "
                  f"{r.get('regs', '-')!s:>4} {r.get('local_bytes', '-')!s:>4} {r.get('loop_correct', '-')}")
EOF
tail -n 5 "$out/bench.log"
tar czf "$out/logs.tgz" -C "$out" gpu-check.log bench.log chains-racecheck.log chains-synccheck.log 2>/dev/null
rm -f "$out"/*.log
exit $rc
