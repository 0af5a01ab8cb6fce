"""Every emitted kernel compiles on the CPU and its disassembly shows what the plan promised."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llgen import LinearLayout
from llgen.emit import emit
from llgen.examples import example_files
from llgen.plan import plan_conversion
from llgen.toolchain import ToolchainUnavailable, compile_cuda, compile_hip, disassemble

ROOT = Path(__file__).resolve().parents[1]
DTYPES = ["f64", "i64", "f32", "i32", "f16", "bf16", "i16", "f8e4m3", "f8e5m2", "i8"]


def random_layout(rng: random.Random, nbits: int, lane_bits: int, warp_bits: int, shape) -> LinearLayout:
    """A random distributed layout: a permutation of the tensor bits over register/lane/warp,
    with a few zero (broadcast) columns mixed in where the hardware has spare bits."""
    bits = list(range(nbits))
    rng.shuffle(bits)
    hw = lane_bits + warp_bits
    slots = ["lane"] * lane_bits + ["warp"] * warp_bits
    nreg = max(0, nbits - hw)
    cols = {"register": [], "lane": [], "warp": []}
    zeros = max(0, hw - nbits)
    pool = bits[:]
    for kind in slots:
        if zeros and rng.random() < 0.5:
            cols[kind].append(0)
            zeros -= 1
        elif pool:
            cols[kind].append(1 << pool.pop())
        else:
            cols[kind].append(0)
    cols["register"] = [1 << b for b in pool] + [0] * rng.choice([0, 0, 1])
    del nreg
    col_bits = shape[1].bit_length() - 1

    def coords(c):
        return [c >> col_bits, c & ((1 << col_bits) - 1)]
    bases = {k: [coords(c) for c in v] for k, v in cols.items()}
    return LinearLayout.from_bases(bases, {"dim0": shape[0], "dim1": shape[1]})


def random_plans(n: int, seed: int, target: str):
    rng = random.Random(seed)
    lanes = 32 if target.startswith("sm") else 64
    plans = []
    while len(plans) < n:
        warp_bits = rng.randint(0, 2)
        nbits = rng.randint(6 + warp_bits, 10)
        rows = rng.randint(1, nbits - 1)
        shape = (1 << rows, 1 << (nbits - rows))
        lb = lanes.bit_length() - 1
        a = random_layout(rng, nbits, lb, warp_bits, shape)
        b = random_layout(rng, nbits, lb, warp_bits, shape)
        if not (a.is_surjective() and b.is_surjective()):
            continue
        path = rng.choice([None, None, "shared", "shuffle"])
        try:
            plans.append(plan_conversion(a, b, rng.choice(DTYPES), target, path=path))
        except Exception as e:  # a forced path that cannot work
            if "cannot" not in str(e):
                raise
    return plans


def expected_counts(plan) -> dict:
    """What the disassembly of the conversion must show."""
    exp = {"shfl": 0, "ldsm": {}, "stsm": {}, "lds": {}, "sts": {}}
    d = plan.detail
    if plan.path == "shuffle":
        exp["shfl"] = d.shuffles
    elif plan.path == "shared":
        for side, key, mkey in ((d.store, "sts", "stsm"), (d.load, "lds", "ldsm")):
            if side.matrices:
                exp[mkey] = {f"x{side.matrices}" + (".T" if side.op.endswith("trans") else ""): len(side.instrs)}
            else:
                exp[key] = {side.width * plan.dtype.bits: len(side.instrs)}
    return exp


def check_sass(sass, plan, name: str) -> None:
    exp = expected_counts(plan)
    got = {"shfl": sass.shfl, "ldsm": dict(sass.ldsm), "stsm": dict(sass.stsm), "lds": dict(sass.lds), "sts": dict(sass.sts)}
    assert got == exp, f"{name}: disassembly {got} differs from the plan's {exp}\n{plan.explain()}"
    assert not sass.uses_local_memory, f"{name}: local memory (stack {sass.stack}, LDL {sass.ldl}, STL {sass.stl})"


def test_kernels_out_is_fresh():
    stale = [rel for rel, text in example_files().items()
             if not (ROOT / "kernels_out" / rel).exists() or (ROOT / "kernels_out" / rel).read_text() != text]
    assert not stale, f"kernels_out/ is stale (run `make examples`): {stale}"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_suite_cuda_compiles_as_planned(arch):
    from llgen.suite import core
    srcs, plans = [], {}
    for case in core():
        plan = plan_conversion(case.src, case.dst, case.dtype, arch)
        srcs.append(emit(plan, "kernel", case.id))
        plans[case.id] = plan
    kernels = disassemble(compile_cuda("\n".join(srcs), arch))
    for cid, plan in plans.items():
        check_sass(kernels[f"{cid}_debug"], plan, f"{cid} ({arch})")
        assert not kernels[f"{cid}_kernel"].uses_local_memory


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_random_plans_compile_as_planned(arch):
    plans = random_plans(110, seed=7 if arch == "sm_80" else 8, target=arch)
    src = "\n".join(emit(p, "kernel", f"r{i}") for i, p in enumerate(plans))
    kernels = disassemble(compile_cuda(src, arch))
    for i, p in enumerate(plans):
        check_sass(kernels[f"r{i}_debug"], p, f"random plan r{i} ({p.path}, {p.dtype.name})")


def test_kernels_out_headers_compile_alone():
    cuda = sorted((ROOT / "kernels_out" / "cuda").glob("*.cuh"))
    assert cuda
    for h in cuda:
        compile_cuda(h.read_text() + "\n", "sm_90")


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
def test_hip_outputs_compile(arch):
    hip = sorted((ROOT / "kernels_out" / "hip").glob("*.hip"))
    try:
        obj = compile_hip("\n".join(p.read_text() for p in hip), arch)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    isa = disassemble(obj)
    from llgen.suite import core
    for case in core():
        k = isa.get(f"{case.id}_debug")
        if k is None:
            continue
        assert not k.uses_local_memory, f"{case.id}: scratch on {arch}"
    assert isa["lanes_f32_debug"].bpermute > 0, "the shuffle plan must use ds_bpermute"


def test_emit_is_deterministic():
    from llgen.suite import core
    case = core()[1]
    p1 = plan_conversion(case.src, case.dst, case.dtype, "sm_90")
    p2 = plan_conversion(case.src, case.dst, case.dtype, "sm_90")
    assert emit(p1, "kernel", "x") == emit(p2, "kernel", "x")


def test_consumer_project_vendors_a_header(tmp_path):
    """tests/consumer/ includes a generated header from its own tree and builds with nvcc (if present)."""
    import shutil
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("no nvcc on this machine")
    src = ROOT / "tests" / "consumer"
    dst = tmp_path / "consumer"
    shutil.copytree(src, dst)
    (dst / "third_party").mkdir(exist_ok=True)
    shutil.copy(ROOT / "kernels_out" / "cuda" / "b2dotA_f16.cuh", dst / "third_party" / "b2dotA_f16.cuh")
    r = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90", "-c", "consumer.cu", "-o", "consumer.o"], cwd=dst,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def test_emit_cli_is_fast():
    t = time.time()
    exe = Path(sys.executable).parent / "llgen"
    r = subprocess.run([str(exe), "emit", "--src", "blocked", "--dst", "mma"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "convert" in r.stdout
    assert time.time() - t < 0.5, f"llgen emit took {time.time() - t:.2f} s"
