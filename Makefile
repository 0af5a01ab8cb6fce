# llgen: `make run` and `make test` are the only commands a fresh machine needs.
PY        ?= python3
VENV      := .venv
BIN       := $(VENV)/bin
STAMP     := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run-show
RUN_OUT   := out

.PHONY: setup run test test-deep perf examples docs gpu-check gpu-install bench hip-toolchain clean

# the package with its runtime dependencies (numpy, jinja2, click) and the show extra (matplotlib, for `llgen show`):
# what `make run` and the README's tour need (the stamp names the extra, so a venv from before it gets it); `pip install .`
# stays without matplotlib
$(RUN_STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --no-compile -e '.[show]'
	touch $(RUN_STAMP)

# the dev extra on top: pinned test tools, the CUDA compilers, Triton as the test oracle, matplotlib. --no-compile:
# Python compiles the modules a run imports when it first imports them, not every module of every package at install
# (about 10 s of a fresh `make test`); the venv's own pip (Python 3.11's) installs a pyproject editable as it is
setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --no-compile -e '.[dev]'
	touch $(STAMP)

# clang-19 compiles the HIP output on the CPU; installed from Debian when missing
hip-toolchain:
	@command -v clang-19 >/dev/null && command -v llvm-objdump-19 >/dev/null || \
	  { (apt-get update -qq && apt-get install -y -qq clang-19 lld-19 llvm-19) >/dev/null || \
	    (sudo apt-get update -qq && sudo apt-get install -y -qq clang-19 lld-19 llvm-19) >/dev/null; }

# explains the default conversion (blocked -> mma, 128x128 f16, sm_90) and writes its kernel to out/
run: $(RUN_STAMP)
	$(BIN)/llgen emit --src blocked --dst mma --explain -o $(RUN_OUT)/

# every CPU check, one pytest worker a core (pytest-xdist); a text compiled twice is read from .cache/llgen-compile/
test: setup hip-toolchain
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	LLGEN_PROPERTY_PAIRS=$(or $(LLGEN_PROPERTY_PAIRS),3000) $(BIN)/pytest -m "not gpu and not perf" -n auto --dist worksteal --durations=15

# make test, with the property run at 10,000 random pairs instead of 3,000 (about 3 more minutes on two cores)
test-deep:
	$(MAKE) test LLGEN_PROPERTY_PAIRS=10000

# timings against their targets, with a table at the end (never part of `make test`)
perf: setup
	$(BIN)/pytest -m perf -p no:cacheprovider tests/test_perf.py

examples: setup
	$(BIN)/python -m llgen.cli.examples kernels_out

# docs/img/*.svg (drawn by llgen show) and docs/cli.md (from the click commands); tests/test_docs.py checks they are current
docs: setup
	$(BIN)/python -m llgen.cli.docs docs

# On the GPU machine, as one command (no internet needed): every suite case by every path, the gather kernels and
# random pairs against NumPy, shared-memory endpoints of every family (store, load, round trip), ncu's shared-memory
# counters against the planner, compute-sanitizer memcheck, synccheck and racecheck. The default --budget (600 s)
# finishes every part on an H100 or H200 (about 550 s); a smaller one leaves parts 'not finished' and the verdict
# INCOMPLETE (exit 4), never FAIL (exit 1, something wrong); two calls also cover it: --skip endpoints,endpoint-ncu,
# then --skip correctness,ncu. Writes bench/gpu-check.md and .json (and copies them to
# $$OUT when set). bench/device_run.sh runs this and `make bench` in one call of the device tool.
# GPU_CHECK_ARGS passes options through, e.g. GPU_CHECK_ARGS="--skip racecheck --budget 300".
gpu-check: gpu-install
	$(GPU_PY) -m llgen.cli gpu-check -o bench/gpu-check $(GPU_CHECK_ARGS)

# On the GPU machine (no internet): its system python3 has CuPy, Triton and torch.
GPU_PY ?= python3

gpu-install:
	$(GPU_PY) -m pip install -q --no-deps --no-build-isolation -e .

# core, wide (in three shards, the last with the gather timings), warplocal (both objectives) and endpoint (through fixed shared layouts),
# merged into one bench/report.md/.json/.png
BENCH_PARTS := $(or $(TMPDIR),/tmp)/llgen-bench
bench: gpu-install
	mkdir -p $(BENCH_PARTS)
	$(GPU_PY) -m llgen.cli bench --suite core --measures loop,stream,wavefronts -o $(BENCH_PARTS)/core.json
	$(GPU_PY) -m llgen.cli bench --suite wide --shard 1/3 --measures loop,stream -o $(BENCH_PARTS)/wide-1.json
	$(GPU_PY) -m llgen.cli bench --suite wide --shard 2/3 --measures loop,stream -o $(BENCH_PARTS)/wide-2.json
	$(GPU_PY) -m llgen.cli bench --suite wide --shard 3/3 --measures loop,stream,gather -o $(BENCH_PARTS)/wide-3.json
	$(GPU_PY) -m llgen.cli bench --suite warplocal --measures loop -o $(BENCH_PARTS)/warplocal.json
	$(GPU_PY) -m llgen.cli bench --suite endpoint -o $(BENCH_PARTS)/endpoint.json
	$(GPU_PY) -m llgen.cli bench --suite mixed --shard 1/2 -o bench/
	$(GPU_PY) -m llgen.cli bench --suite mixed --shard 2/2 -o bench/
	$(GPU_PY) -m llgen.cli bench merge -o bench/ $(BENCH_PARTS)/core.json $(BENCH_PARTS)/wide-*.json $(BENCH_PARTS)/warplocal.json $(BENCH_PARTS)/endpoint.json

clean:
	rm -rf $(VENV) build *.egg-info $(RUN_OUT) .cache
