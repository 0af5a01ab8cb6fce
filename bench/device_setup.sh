# Sourced by the device scripts (bench/mixed_run.sh, bench/scratch_run.sh) from the repository root: unbuffered
# Python, the commit the reports name (the tree travels without .git), $out for what comes back, the package
# installed, and which GPU and when.
export PYTHONUNBUFFERED=1 LLGEN_COMMIT=${LLGEN_COMMIT:-?}
out=${OUT:-/tmp/llgen-out}
mkdir -p "$out"
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u
