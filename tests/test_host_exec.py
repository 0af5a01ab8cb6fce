"""The emitted text, executed: CUDA and HIP kernels compiled as host C++ (llgen.runtime.host) and run on
CPU threads, every slot and replica of B and every output element compared with NumPy, bit for bit.

The simulator proves plans; these tests prove what the templates print from them. The random pairs use plain
vector accesses (matrix=False); the core suite runs by every variant, ldmatrix/stmatrix included (the shim emulates
them), and tests/test_host_matrix.py runs every matrix form.
"""

from __future__ import annotations

import numpy as np
import pytest

from llgen import LinearLayout, plan_conversion
from llgen.emit import emit
from llgen.randlayout import random_cases
from llgen.runtime import host
from llgen.runtime.cases import gather_plans, suite_jobs
from llgen.runtime.check import Batching, CheckRuns, check_gather, check_many
from llgen.runtime.reference import expected_output, random_input, raw_dtype

UINT = {8: "unsigned char", 16: "unsigned short", 32: "unsigned", 64: "unsigned long long"}


def _all_ok(results) -> None:
    bad = [f"{r.label}: {r.error or ''} {r.first_bad or ''} {r.first_bad_tile or ''}" for r in results if not r.ok]
    assert not bad, f"{len(bad)} of {len(results)} kernels differ from NumPy:\n" + "\n".join(bad[:10])


@pytest.mark.parametrize("target,n", [("sm_90", 150), ("sm_80", 50), ("gfx942", 100)])
def test_random_pairs_run_exactly(target, n):
    """Every dtype, 1-4 warps, broadcasts on both sides, each pair by its default, shuffle or shared path."""
    cases = random_cases(n, 23, target, matrix=False)
    assert {p.path for _, p in cases} >= {"shuffle", "shared"}
    _all_ok(check_many(cases, how=CheckRuns(tiles=6, runs=1, seed=1), compiler=host.compile, sms=1, batching=Batching(25)))


def test_core_suite_by_every_variant_runs_exactly():
    """What `llgen check --cpu --suite core` runs: each case by every variant, ldmatrix/stmatrix included (b2dotA_f16
    and mma2b_f16 store by stmatrix, b2dotB_f16 loads by ldmatrix.trans; their sm_80 forms: tests/test_host_matrix.py)."""
    jobs, _ = suite_jobs("core", "sm_90")
    items = [(j.label, j.plan) for j in jobs if j.same_as is None]
    ops = {(label.split("/")[0], s.op) for label, p in items if p.path == "shared" for s in (p.detail.store, p.detail.load)}
    assert {("b2dotA_f16", "stmatrix"), ("mma2b_f16", "stmatrix"), ("b2dotB_f16", "ldmatrix.trans")} <= ops
    assert len(items) >= 30 and {p.path for _, p in items} >= {"shuffle", "shared"}
    _all_ok(check_many(items, how=CheckRuns(tiles=4, runs=1, seed=2), compiler=host.compile, sms=1, batching=Batching(20)))


def test_eight_bit_shuffle_selects_whole_packed_words():
    """The send word of a round depends on the thread's class; a packed 8-bit word takes its bytes from two
    registers (a missing pair of parentheses once ORed every candidate's low byte). Each class's bytes are
    chosen by a per-thread PRMT selector, and B's words by one PRMT of operands selected by class."""
    a = LinearLayout.from_bases(
        {"register": [[0, 4], [0, 2], [1, 0]], "lane": [[0, 1], [8, 0], [4, 0], [2, 0], [16, 0]], "warp": []},
        {"dim0": 32, "dim1": 8},
    )
    b = LinearLayout.from_bases(
        {"register": [[16, 0], [0, 2], [8, 0]], "lane": [[0, 1], [0, 4], [4, 0], [2, 0], [1, 0]], "warp": []},
        {"dim0": 32, "dim1": 8},
    )
    items = [(f"i8_{t}", plan_conversion(a, b, "i8", t, path="shuffle")) for t in ("sm_90", "sm_80")]
    texts = [emit(p, "kernel", "x") for _, p in items]
    assert all("const unsigned ps0 = ((cls & " in t and "b[0] = byte_perm(((cls & " in t for t in texts)
    _all_ok(check_many(items, how=CheckRuns(tiles=4, runs=2, seed=3), compiler=host.compile, sms=1))


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_vendored_header_typed_api_runs_exactly(target):
    """load_a / convert / store_b on typed registers, as a user's kernel calls them."""
    cases = [(label.replace("r31_", "h"), p) for label, p in random_cases(12, 31, target, matrix=False)]
    src = []
    for name, p in cases:
        t = UINT[p.dtype.bits]
        smem = f"  alignas(16) __shared__ unsigned char smem[{p.detail.scratch_bytes}];\n" if p.path == "shared" else ""
        src.append(
            emit(p, "header", name)
            + f"""
extern "C" __global__ void {name}_use(const {t}* in, {t}* out) {{
{smem}  {t} a[llgen::{name}::kInRegs], b[llgen::{name}::kOutRegs];
  llgen::{name}::load_a(in, a);
  llgen::{name}::convert(a, b{", smem" if smem else ""});
  llgen::{name}::store_b(out, b);
}}"""
        )
    mod = host.compile("\n".join(src), target)
    rng = np.random.default_rng(5)
    for name, p in cases:
        x = random_input(raw_dtype(p.dtype), 1 << p.src.total_out_bits, rng)
        out = mod.filled(x.size, x.dtype, np.iinfo(x.dtype).max)
        mod.launch(f"{name}_use", 1, p.warps * p.lanes, (x, out))
        assert (out == expected_output(p, x, 1)).all(), name


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_strided_io_and_group_placement_run_exactly(target):
    """load_a(ptr, ld) / store_b(ptr, ld) over a matrix whose rows are ld apart (ld = the tile's row, one that keeps
    the vectors, and one that does not), by two groups of the plan's warps in one block: the second group passes
    FirstWarp = kWarps. Every tile element lands in place, replicas included, and nothing outside it is written."""
    cases = [(label.replace("r41_", "g"), p) for label, p in random_cases(10, 41, target, matrix=False)]
    src = []
    for name, p in cases:
        t, ns = UINT[p.dtype.bits], f"llgen::{name}"
        bytes_ = max(16, p.detail.scratch_bytes if p.path == "shared" else 0)
        src.append(
            emit(p, "header", name)
            + f"""
extern "C" __global__ void {name}_use(const {t}* in, {t}* out, long long ld) {{
  alignas(16) __shared__ unsigned char smem[2][{bytes_}];
  {t} a[{ns}::kInRegs], b[{ns}::kOutRegs];
  const long long rows = {ns}::kTileElems / {ns}::kCols;
  if (threadIdx.x < {ns}::kThreads) {{
    {ns}::load_a(in, ld, a);
    {ns}::convert(a, b, smem[0], llgen::scratch_free);  // each group's buffer is fresh
    {ns}::store_b(out, ld, b);
  }} else {{
    {ns}::load_a<{ns}::kWarps>(in + rows * ld, ld, a);
    {ns}::convert<{ns}::kWarps>(a, b, smem[1], llgen::scratch_free);
    {ns}::store_b<{ns}::kWarps>(out + rows * ld, ld, b);
  }}
}}"""
        )
    mod = host.compile("\n".join(src), target)
    rng = np.random.default_rng(9)
    for name, p in cases:
        cols = p.src.shape[-1]
        rows = (1 << p.src.total_out_bits) // cols
        width = max(p.global_load.width, p.global_store.width)
        for ld in sorted({cols, cols + width, cols + 1}):
            x = random_input(raw_dtype(p.dtype), 2 * rows * ld, rng)
            out = mod.filled(x.size, x.dtype, 0)
            mod.launch(f"{name}_use", 1, 2 * p.warps * p.lanes, (x, out, ld))
            inside = (np.arange(x.size) % ld) < cols
            assert (out[inside] == x[inside]).all() and not out[~inside].any(), (name, ld)


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_gather_kernels_run_exactly(target):
    plans = gather_plans(target)
    mod = host.compile("\n".join(emit(p, "kernel", n) for n, p in plans.items()), target)
    _all_ok([check_gather(mod, p, n, tiles=3, seed=11, grid=2) for n, p in plans.items()])


def test_check_cpu_proves_a_conversion_without_a_gpu():
    """`llgen check --cpu`: the GPU checks on CPU threads, the default pair's ldmatrix/stmatrix plan included."""
    from click.testing import CliRunner

    from llgen.cli import main

    r = CliRunner().invoke(
        main,
        [
            "check",
            "--cpu",
            "--src",
            "blocked:spt=1x4,tpw=2x16,wpc=1x1",
            "--dst",
            "blocked:spt=1x4,tpw=16x2,wpc=1x1",
            "--warps",
            "1",
            "--shape",
            "32x32",
            "--dtype",
            "f32",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "CPU threads" in r.output and "1 kernels: 0 slot mismatches" in r.output
    assert "x ldmatrix x4 per thread" in CliRunner().invoke(main, ["plan"]).output  # the default pair: blocked -> mma
    r = CliRunner().invoke(main, ["check", "--cpu"])
    assert r.exit_code == 0, r.output
    assert "; 1 kernels" in r.output and "1 kernels: 0 slot mismatches" in r.output and ", 0 errors" in r.output, r.output


def test_the_fp16_shim_under_two_names_compiles_whatever_their_times(tmp_path):
    """The CPU shim writes one fp16 header as cuda_fp16.h and cuda_bf16.h. GCC's #pragma once tells two copies apart
    by their modification times, so copies written a clock tick apart were both included and redefined __half2, now
    and then (a flaky compile). The header's include guard holds whatever the times."""
    import os
    import subprocess

    for name in ("cuda_fp16.h", "cuda_bf16.h"):
        (tmp_path / name).write_text(host.HOST_FP16)
    os.utime(tmp_path / "cuda_bf16.h", (0, 0))  # far apart, as a slow write could leave them
    (tmp_path / "k.cpp").write_text('#include "cuda_fp16.h"\n#include "cuda_bf16.h"\nint main() { return 0; }\n')
    proc = subprocess.run(
        [host._compiler(), "-std=c++20", "-fsyntax-only", str(tmp_path / "k.cpp")], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
