# llgen: `make run` and `make test` are the only commands a fresh machine needs.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: setup run test examples docs gpu-check bench hip-toolchain clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

# clang-19 compiles the HIP output on the CPU; installed from Debian when missing
hip-toolchain:
	@command -v clang-19 >/dev/null && command -v llvm-objdump-19 >/dev/null || \
	  { (apt-get update -qq && apt-get install -y -qq clang-19 lld-19 llvm-19) >/dev/null || \
	    (sudo apt-get update -qq && sudo apt-get install -y -qq clang-19 lld-19 llvm-19) >/dev/null; }

run: setup
	$(BIN)/llgen emit --src blocked --dst mma --explain

test: setup hip-toolchain
	$(BIN)/ruff check codegen runtime tests
	$(BIN)/pytest -m "not gpu"

examples: setup
	$(BIN)/python -m llgen.examples kernels_out

docs: setup
	$(BIN)/python -m llgen.docs docs

gpu-check: setup
	@echo "gpu-check: on a GPU machine, compiles and runs every suite case and random pairs, writes bench/gpu-check.md"
	$(BIN)/llgen check --suite core --random 300 --report bench/gpu-check

bench: setup
	$(BIN)/llgen bench --suite core -o bench/

clean:
	rm -rf $(VENV) build *.egg-info
