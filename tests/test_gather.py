"""Gather (docs/design.md §9): plans, the CPU oracle against NumPy's take_along_axis, and the emitted
kernels compiled (NVRTC sm_80/sm_90, clang-19 gfx942) with the shuffles the plan promised and no
local memory."""

from __future__ import annotations

import random

import numpy as np
import pytest

from llgen import LinearLayout as L
from llgen import LlgenError
from llgen.cases.suite import gather_cases
from llgen.emit import emit, file_names
from llgen.layouts import blocked
from llgen.plan.gather import plan_gather
from llgen.randlayout import random_layout
from llgen.runtime.cases import gather_plans
from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, compile_hip, disassemble
from llgen.verify.simulate import simulate_gather

S32 = (32, 32)
WARP_LOCAL = blocked([1, 1], [1, 32], [4, 1], [1, 0], S32)  # a row per warp's lanes: shuffles
CROSS = blocked([1, 1], [32, 1], [1, 4], [1, 0], S32)  # axis 1 over warps: shared memory


def _check(plan, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    shape = plan.layout.shape
    src = rng.integers(0, 1 << 30, shape)
    idx = rng.integers(0, shape[plan.axis], shape)
    res = simulate_gather(plan, src, idx)
    assert res.ok, f"first mismatch (warp, lane, reg, expected, got): {res.first_mismatch()}\n{plan.explain()}"
    assert res.shuffles == plan.shuffles


# ----------------------------------------------------------------------------------------------- plans
def test_warp_local_axis_is_shuffled():
    p = plan_gather(WARP_LOCAL, 1, "f32", "sm_90")
    assert p.path == "shuffle" and p.n_regs == 8
    d = p.detail
    assert d.lane_keep == 0 and d.lane_runs == ((0, 0, 5),) and d.select_mask == 0
    assert len(d.rounds) == 8 and d.shuffles == 8 and all(r.op == "idx" for r in d.rounds)
    _check(p)


def test_cross_warp_axis_goes_through_shared_memory():
    p = plan_gather(CROSS, 1, "f32", "sm_90")
    assert p.path == "shared" and p.shuffles == 0
    assert p.detail.scratch_bytes == 32 * 32 * 4 and p.detail.axis_mask == 31 and p.detail.axis_shift == 0
    _check(p)
    p0 = plan_gather(CROSS, 0, "f32", "sm_90")  # axis 0 lives in lanes: shuffles
    assert p0.path == "shuffle"
    _check(p0)


def test_axis_in_registers_needs_no_shuffle():
    lay = blocked([1, 32], [32, 1], [4, 1], [1, 0], (128, 32))
    p = plan_gather(lay, 1, "f16", "sm_90")
    assert p.path == "registers" and p.shuffles == 0
    assert p.detail.pack == 2 and p.detail.rounds_per_dest == 16
    _check(p)


@pytest.mark.parametrize("dt", ["f64", "i64", "f32", "i32", "f16", "bf16", "i16", "f8e4m3", "i8"])
@pytest.mark.parametrize("tgt", ["sm_90", "gfx942"])
def test_dtypes_and_lanes(dt, tgt):
    lanes = 32 if tgt == "sm_90" else 64
    shape = (32, 64)
    mixed = blocked([1, 4], [lanes // 16, 16], [4, 1], [1, 0], shape)  # registers and lanes along the axis
    p = plan_gather(mixed, 1, dt, tgt)
    assert p.path == "shuffle"
    bits = {"f64": 64, "i64": 64, "f32": 32, "i32": 32}.get(dt, 16 if "16" in dt else 8)
    per_word = 1 if bits >= 32 else min(32 // bits, 4)
    assert p.detail.pack == per_word
    assert p.detail.rounds_per_dest == 4 // per_word
    assert p.shuffles == p.n_regs * (4 // per_word) * (2 if bits == 64 else 1)
    _check(p, 1)
    _check(plan_gather(mixed, 1, dt, tgt, path="shared"), 2)
    _check(plan_gather(mixed, 0, dt, tgt), 3)  # axis 0 crosses warps


def test_broadcast_layouts():
    # warps broadcast (the tile is smaller than the CTA): every warp holds the whole tile
    lay = blocked([1, 4], [4, 8], [1, 4], [1, 0], S32)
    assert any(c == 0 for c in lay.flat_cols("warp"))
    for axis in (0, 1):
        _check(plan_gather(lay, axis, "f16", "sm_80"))
    # a broadcast register and a broadcast lane
    lay = L.from_bases(
        {"register": [[0, 1], [0, 0], [1, 0]], "lane": [[0, 2], [0, 0], [0, 4], [2, 0], [4, 0]], "warp": [[8, 0], [16, 0]]},
        {"dim0": 32, "dim1": 8},
    )
    p = plan_gather(lay, 1, "i8", "sm_90")
    assert p.out_copies
    _check(p)
    _check(plan_gather(lay, 0, "i8", "sm_90"))


def test_random_layouts_simulate_exactly():
    rng = random.Random(5)
    dts = ["f64", "f32", "f16", "i8"]
    n = 0
    for _ in range(300):
        tgt = rng.choice(["sm_90", "gfx942"])
        wb = rng.choice([0, 1, 2, 3])
        rows, cols = rng.choice([(16, 32), (32, 32), (8, 128), (64, 16), (4, 256)])
        lay = random_layout(rng, (rows, cols), 1 << wb, tgt)
        for axis in (0, 1):
            for path in (None, "shared"):
                p = plan_gather(lay, axis, rng.choice(dts), tgt, path=path)
                _check(p, n)
                n += 1
    assert n == 1200


def test_bad_input():
    with pytest.raises(LlgenError, match="axis 2 is out of range"):
        plan_gather(WARP_LOCAL, 2, "f32", "sm_90")
    with pytest.raises(LlgenError, match="out of range"):
        plan_gather(WARP_LOCAL, -1, "f32", "sm_90")
    with pytest.raises(LlgenError, match="distributed"):  # a swizzled (two-bit) basis
        plan_gather(
            L.from_bases(
                {"register": [[0, 1], [1, 1]], "lane": [[0, 2], [0, 4], [0, 8], [0, 16], [2, 0]], "warp": []},
                {"dim0": 4, "dim1": 32},
            ),
            1,
            "f32",
            "sm_90",
        )
    with pytest.raises(LlgenError, match="in-dims register/lane/warp"):
        plan_gather(L.from_bases({"offset": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2}), 0, "f32", "sm_90")
    with pytest.raises(LlgenError, match="lanes"):
        plan_gather(WARP_LOCAL, 1, "f32", "gfx942")
    with pytest.raises(LlgenError, match="crosses warps"):
        plan_gather(CROSS, 1, "f32", "sm_90", path="shuffle")
    with pytest.raises(LlgenError, match="unknown gather path"):
        plan_gather(CROSS, 1, "f32", "sm_90", path="ldmatrix")
    with pytest.raises(LlgenError, match="unknown dtype"):
        plan_gather(CROSS, 1, "f13", "sm_90")
    with pytest.raises(LlgenError, match="exceeds the budget"):
        plan_gather(blocked([1, 1], [32, 1], [1, 4], [1, 0], (128, 128)), 1, "f32", "sm_90")
    with pytest.raises(LlgenError, match="unknown form"):
        emit(plan_gather(CROSS, 1, "f32", "sm_90"), "both")
    with pytest.raises(LlgenError, match=r"not a C\+\+ identifier"):
        emit(plan_gather(CROSS, 1, "f32", "sm_90"), "kernel", "1x")


def test_suite_case():
    (case,) = gather_cases()
    assert (case.id, case.dtype, case.shape, case.warps, case.axis) == ("gather_f32", "f32", (32, 32), 4, 1)
    p = plan_gather(case.layout, case.axis, case.dtype, "sm_90")
    assert p.path == "shuffle" and p.shuffles == 8
    _check(p)


# --------------------------------------------------------------------------------------------- emission
def _compile_cases(tgt: str) -> dict:
    return gather_plans(tgt)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cuda_kernels_compile_as_planned(arch):
    plans = _compile_cases(arch)
    src = "\n".join(emit(p, "kernel", n) for n, p in plans.items())
    kernels = disassemble(compile_cuda(src, arch))
    for n, p in plans.items():
        for fn in (f"{n}_debug", f"{n}_kernel"):
            k = kernels[fn]
            assert k.shfl == p.shuffles, f"{fn}: {k.shfl} SHFL, plan {p.shuffles}\n{p.explain()}"
            assert not k.uses_local_memory, f"{fn}: local memory (stack {k.stack}, LDL {k.ldl}, STL {k.stl})"
            if p.path == "shared":
                assert k.bar == 2 and sum(k.lds.values()) == len(p.detail.loads), f"{fn}: {dict(k.lds)}"
            else:
                assert k.bar == 0 and not k.lds and not k.sts


def test_cuda_header_compiles_alone_and_is_deterministic():
    p = plan_gather(*_hdr_args())
    h = emit(p, "header", "gath")
    assert h == emit(plan_gather(*_hdr_args()), "header", "gath")
    assert h.startswith("// Generated by llgen: a vendorable header") and "#pragma once" in h and "namespace gath" in h
    assert "void gather(const T (&src)[16], const int (&idx)[16], T (&out)[16])" in h
    consumer = (
        h
        + """
#include <cuda_fp16.h>
extern "C" __global__ void use(const __half* s, const int* i, __half* o) {
  __half a[16], b[16]; int ix[16];
  llgen::gath::load(s, a); llgen::gath::load_index(i, ix); llgen::gath::gather(a, ix, b); llgen::gath::store(o, b);
}
"""
    )
    k = disassemble(compile_cuda(consumer, "sm_90"))["use"]
    assert k.shfl == p.shuffles and not k.uses_local_memory
    assert file_names(p, "gath") == {"kernel": "gath.cu", "header": "gath.cuh"}
    shared = emit(plan_gather(CROSS, 1, "f32", "sm_90"), "header", "gs")
    assert "void gather(const T (&src)[8], const int (&idx)[8], T (&out)[8], void* smem)" in shared
    compile_cuda(shared + "\n", "sm_80")


def _hdr_args():
    return blocked([1, 4], [2, 16], [4, 1], [1, 0], (32, 64)), 1, "f16", "sm_90"


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
def test_hip_kernels_compile_as_planned(arch):
    plans = _compile_cases(arch)
    src = "\n".join(emit(p, "kernel", n) for n, p in plans.items())
    try:
        obj = compile_hip(src, arch)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    isa = disassemble(obj)
    for n, p in plans.items():
        for fn in (f"{n}_debug", f"{n}_kernel"):
            k = isa[fn]
            assert not k.uses_local_memory, f"{fn}: scratch on {arch}"
            assert k.bpermute == p.shuffles, f"{fn}: {k.bpermute} ds_bpermute, plan {p.shuffles}"
    assert "__shfl(" in src and "__shfl_sync" not in src and " warpSize" not in src.replace("not read from warpSize", "")
    assert file_names(plans["g_local_f32"], "x") == {"kernel": "x.hip", "header": "x.hip.h"}


# ----------------------------------------------------------------------------------------------- on a GPU
@pytest.mark.gpu
def test_gpu_gather_kernels_match_numpy():
    cupy = pytest.importorskip("cupy")
    try:
        if not cupy.is_available():
            pytest.skip("cupy.is_available() is false")
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"no usable GPU: {e}")
    from llgen.runtime.check import check_gather
    from llgen.runtime.compile import compile as compile_gpu

    plans = gather_plans("sm_90")
    mod = compile_gpu("\n".join(emit(p, "kernel", n) for n, p in plans.items()), "sm_90")
    bad = [r for r in (check_gather(mod, p, n, seed=11) for n, p in plans.items()) if not r.ok]
    assert not bad, [(r.name, r.error, r.slot_bad, r.tile_bad, r.first_bad_tile) for r in bad]
