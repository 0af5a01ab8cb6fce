"""tests/consumer/: a user's program that vendors three generated headers and uses every part of their API (one
convert signature for a shared, a register-permutation and a shuffle plan; dense and strided load_a/store_b;
coord_a/coord_b; a warp-specialised kernel on warps 4-7 behind a named barrier). Its headers are generated here,
then nvcc builds it for sm_80 and sm_90 with every warning an error, as release and debug (-DLLGEN_DEBUG) builds.
Running it needs a GPU: bench/device_run.sh builds and runs it on the device and reports each check."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

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


@pytest.mark.parametrize("arch,debug", [("sm_80", False), ("sm_90", False), ("sm_90", True)])
def test_consumer_builds_without_warnings_or_local_memory(project, arch, debug):
    # compile only (-c): pip's nvcc has no static CUDA runtime to link; bench/consumer_run.sh links and runs it on a GPU
    out = project / f"consumer_{arch}{'_debug' if debug else ''}.o"
    cmd = [_nvcc(), "-std=c++17", f"-arch={arch}", "-Werror", "all-warnings", "-c", "consumer.cu", "-o", out.name]
    r = subprocess.run(cmd + (["-DLLGEN_DEBUG"] if debug else []), cwd=project, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    kernels = resources_of(out)
    names = " ".join(kernels)
    for k in ("dense", "strided", "coords", "specialised", "renames"):
        assert k in names, f"{k} missing from {names}"
    if not debug:  # a debug build keeps printf's arguments on the stack
        assert all(res.local == 0 and res.stack == 0 for res in kernels.values()), kernels


def test_headers_are_generated_not_checked_in():
    assert (
        not (ROOT / "tests" / "consumer" / "third_party").exists()
        or not subprocess.run(
            ["git", "ls-files", "tests/consumer/third_party"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
    )
