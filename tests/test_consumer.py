"""tests/consumer/: a user's program that vendors five generated headers and uses every part of their API (one
convert signature for a shared, a register-permutation and a shuffle plan; dense and strided load_a/store_b;
coord_a/coord_b; a warp-specialised kernel on warps 4-7 behind a named barrier; a 64 KB plan in dynamic shared
memory; a shared tile's store, barrier and load, in dynamic shared memory aligned to its kSmemAlign). Its headers are generated here, then nvcc builds it with every warning an error: a release build for sm_80
and sm_90 in one call, and a debug build (nvcc -G, which turns on the headers' launch checks as -DLLGEN_DEBUG does)
for sm_90. consumer.cu includes the headers before anything else, so a header missing an include fails here;
tests/test_headers.py compiles every header alone. Running it needs a GPU: bench/consumer_run.sh builds and runs it
on the device and reports each check."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

from llgen.runtime.toolchain import ToolchainUnavailable, nvcc, resources_of


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    dst = tmp_path_factory.mktemp("consumer") / "consumer"
    shutil.copytree(ROOT / "tests" / "consumer", dst, ignore=shutil.ignore_patterns("third_party"))
    subprocess.run([sys.executable, "generate.py", "third_party"], cwd=dst, check=True, capture_output=True)
    return dst


def _nvcc() -> str:
    try:
        return nvcc()
    except ToolchainUnavailable as e:
        pytest.skip(str(e))


# both archs in one call; with -Werror, ptxas's warning about local memory or spills fails the build on either
RELEASE = ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"]
RELEASE += ["-Xptxas", "--warn-on-local-memory-usage,--warn-on-spills"]
DEBUG = ["-arch=sm_90", "-G"]


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_consumer_builds_without_warnings_or_local_memory(project, debug):
    # compile only (-c): no GPU here to run it on; bench/consumer_run.sh links and runs it on one
    out = project / f"consumer{'_debug' if debug else ''}.o"
    cmd = [_nvcc(), "-std=c++17", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Werror", *(DEBUG if debug else RELEASE)]
    r = subprocess.run([*cmd, "-c", "consumer.cu", "-o", out.name], cwd=project, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    kernels = resources_of(out)
    names = " ".join(kernels)
    for k in ("dense", "strided", "coords", "specialised", "renames", "dynamic_smem", "tile_round_trip"):
        assert k in names, f"{k} missing from {names}"
    if not debug:  # a debug build keeps printf's arguments and unoptimised locals on the stack
        assert all(res.local == 0 and res.stack == 0 for res in kernels.values()), kernels  # one arch's; ptxas checked both


def test_headers_are_generated_not_checked_in():
    assert (
        not (ROOT / "tests" / "consumer" / "third_party").exists()
        or not subprocess.run(
            ["git", "ls-files", "tests/consumer/third_party"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
    )
