"""Shared endpoints as source text (llgen.emit.endpoint): the header and the check kernel of local_store and
local_load plans. The text is deterministic; every header compiles alone (NVRTC for sm_80 and sm_90, clang-19 for
gfx942) in its debug build; SASS holds the planned instructions and no local memory; and the emitted kernels run
exact on CPU threads (runtime/host.py, ldmatrix/stmatrix emulated): a store leaves every byte of the shared buffer
where S's own map says, poison in its padding, and a load fills every slot of D."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from click.testing import CliRunner
from test_endpoint import SHARED, _layouts

from llgen.cli import main
from llgen.emit import emit
from llgen.emit.endpoint import endpoint_dynamic_smem
from llgen.plan.endpoint import plan_load, plan_store
from llgen.randlayout import random_layout
from llgen.runtime import endpointcheck as ec

NVMMA = "nvmma:128"
SWIZZLED = "swizzled:vec=8,per_phase=1,max_phase=8,order=1x0"
PADDED = "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>"
COALESCED = "blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0"
COLUMNS = "blocked:spt=8x1,tpw=8x4,wpc=1x4,order=0x1"  # reads the row-major tile column by column: a transpose
MFMA_A = "dot:op=0,k_width=4,parent=(mfma:32,wpc=2x2)"
PERMUTED = (  # blocked 1x8 with its first two register bits swapped: a 16-byte vector packs registers 0, 2, 1, 3, ...
    "#ttg.linear<{register = [[0, 2], [0, 1], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], "
    "warp = [[4, 0], [8, 0]], block = []}>"
)
ROTATING = "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


def _plan(direction: str, dist: str, shared: str, dtype: str = "f16", shape=(64, 64), target: str = "sm_90", lanes: int = 32):
    d, s = _layouts(dist, shared, dtype, shape, 4, lanes)
    return plan_store(d, s, dtype, target) if direction == "store" else plan_load(s, d, dtype, target)


# name -> (direction, D, S, dtype, shape, the instruction planned on sm_90)
CASES = {
    "mma_acc_nvmma": ("store", "mma", NVMMA, "f16", (64, 64), "stmatrix"),
    "coalesced_nvmma": ("store", COALESCED, NVMMA, "f16", (64, 64), "st.shared"),
    "nvmma_dot_a": ("load", "dot:0", NVMMA, "f16", (64, 64), "ldmatrix"),
    "nvmma_dot_b_i8": ("load", "dot:1", NVMMA, "i8", (64, 128), "ld.shared"),
    "rows_swizzled": ("store", COALESCED, SWIZZLED, "f16", (64, 64), "st.shared"),
    "swizzled_columns": ("load", COLUMNS, SWIZZLED, "f16", (64, 64), "ld.shared"),
    "mma_padded": ("store", "mma", PADDED, "f16", (64, 64), "stmatrix"),
    "padded_mma": ("load", "mma", PADDED, "f16", (64, 64), "ldmatrix"),
    "permuted_store": ("store", PERMUTED, NVMMA, "f16", (64, 64), "st.shared"),
    "permuted_load": ("load", PERMUTED, NVMMA, "f16", (64, 64), "ld.shared"),
    "two_step_store": ("store", "dot:1", "swizzled:vec=2,per_phase=1,max_phase=4,order=0x1", "f16", (64, 64), "st.shared"),
    "two_step_load": ("load", "wgmma", "nvmma:0", "f16", (64, 64), "ld.shared"),
    "buffers_store": (
        "store",
        "blocked:spt=1x1x8,tpw=1x4x8,wpc=2x2x1,order=2x1x0",
        "swizzled:vec=8,per_phase=1,max_phase=8,order=2x1x0",
        "f16",
        (2, 64, 64),
        "st.shared",
    ),
    "buffers_load": (
        "load",
        "blocked:spt=1x8x1,tpw=1x8x4,wpc=1x1x4,order=1x2x0",
        "swizzled:vec=8,per_phase=1,max_phase=8,order=2x1x0",
        "f16",
        (2, 64, 64),
        "ld.shared",
    ),
}


def _random_plans(target: str, seeds) -> dict:
    """A local_store and a local_load of a random distributed layout, per seed, over SHARED's families."""
    out = {}
    for seed in seeds:
        rng = random.Random(seed)
        shared, dtype, shape = SHARED[(5 * seed) % len(SHARED)]
        lanes = 64 if target.startswith("gfx") else 32
        d = random_layout(rng, shape, rng.choice([1, 2, 4]), target, dtype)
        _, s = _layouts("blocked", shared, dtype, shape, 4, lanes)
        out[f"random{seed}_store"] = plan_store(d, s, dtype, target)
        out[f"random{seed}_load"] = plan_load(s, d, dtype, target)
    return out


@pytest.fixture(scope="module")
def cuda_plans() -> dict:
    plans = {name: _plan(c[0], c[1], c[2], c[3], c[4]) for name, c in CASES.items()}
    return plans | _random_plans("sm_90", [0, 1, 2, 3, 12])  # seed 12: nvmma:128 with 8-bit elements


@pytest.fixture(scope="module")
def hip_plans() -> dict:
    plans = {
        "mfma_a_rotating": _plan("load", MFMA_A, ROTATING, target="gfx942", lanes=64),
        "mfma_acc_swizzled": _plan("store", "mfma:32", SWIZZLED, target="gfx942", lanes=64),
    }
    return plans | _random_plans("gfx942", range(10, 12))


@pytest.fixture(scope="module")
def cuda_module(cuda_plans):
    return ec.compile_endpoints(list(cuda_plans.items()), cpu=True)


@pytest.fixture(scope="module")
def hip_module(hip_plans):
    return ec.compile_endpoints(list(hip_plans.items()), cpu=True)


# -------------------------------------------------------------------------------------------- the text


def test_the_planned_instructions(cuda_plans):
    for name, (*_, op) in CASES.items():
        assert cuda_plans[name].side.op.removesuffix(".trans") == op, name


def test_two_step_plans_convert_by_shuffles(cuda_plans):
    for name in ("two_step_store", "two_step_load"):
        assert cuda_plans[name].convert.path == "shuffle", name
    text = emit(cuda_plans["two_step_load"], "header", "two")
    assert "converted to D inside each warp by shuffle" in text and "shfl_idx(" in text


def test_emitted_text_is_deterministic_and_names_the_access():
    plan = _plan("store", "mma", PADDED)
    header = emit(plan, "header", "acc")
    assert header == emit(_plan("store", "mma", PADDED), "header", "acc")
    assert emit(plan, "kernel", "acc") == emit(plan, "kernel", "acc")
    assert "// Instruction: stmatrix.x4: 4 8x8 matrices of 16-byte rows" in header
    assert "S's offset map, offset bit -> element coordinates (its swizzle bits): 1 -> (0, 1)" in header
    assert "// S's padding: 8 element(s) after every 64 (pad() below)" in header
    assert f"inline constexpr int kSmemBytes = {plan.smem_bytes};" in header and plan.smem_bytes == 64 * 72 * 2 - 16
    assert "No barrier inside: the caller synchronises" in header
    assert "__syncthreads" not in header and "__syncwarp" not in header


def test_cli_emit_header_and_name(tmp_path):
    args = ["emit", "--src", "mma", "--dst", NVMMA, "--shape", "64x64", "--form", "header"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.stderr
    assert "__device__ __forceinline__ void store(const T (&in)[kRegs], void* smem)" in res.stdout
    assert "namespace st_mma2shared_f16_64x64_" in res.stdout
    res = CliRunner().invoke(
        main, ["emit", "--src", NVMMA, "--dst", "dot:0", "--shape", "64x64", "--form", "both", "-o", f"{tmp_path}/"]
    )
    assert res.exit_code == 0, res.stderr
    kernel = next(tmp_path.glob("*.cu")).read_text()
    assert '#include "ld_shared2dotop_f16_64x64_' in kernel and "_load(const unsigned char* __restrict__ in" in kernel


@pytest.fixture(scope="module")
def big_plans() -> dict:
    """A 128x256 f16 tile in nvmma:128: 64 KB of S, over the 48 KB a static __shared__ array may hold."""
    return {
        "big_store": _plan("store", "mma", NVMMA, shape=(128, 256)),
        "big_load": _plan("load", "dot:0", NVMMA, shape=(128, 256)),
    }


def test_a_kernel_over_48_kb_takes_dynamic_shared_memory_at_s_alignment(big_plans):
    for name, plan in big_plans.items():
        text = emit(plan, "kernel", name)
        assert plan.smem_bytes == 65536 and endpoint_dynamic_smem(plan) == 65536
        assert "  LLGEN_DYNAMIC_SMEM(smem, 1024);  // 65536 bytes\n" in text and "__shared__ unsigned char smem[" not in text
        assert f"inline cudaError_t {name}_opt_in() {{" in text
    small = _plan("store", "mma", NVMMA)
    assert endpoint_dynamic_smem(small) == 0 and "LLGEN_DYNAMIC_SMEM" not in emit(small, "kernel", "small")


def test_a_kernel_over_48_kb_runs_exact_on_cpu_threads(big_plans):
    module = ec.compile_endpoints(list(big_plans.items()), cpu=True)
    rng = np.random.default_rng(11)
    for name, plan in big_plans.items():
        assert ec.run_endpoint(module, plan, name, rng) == [], name
    assert ec.round_trip(module, ("big_store", big_plans["big_store"]), ("big_load", big_plans["big_load"]), rng) == []


def test_a_kernel_over_48_kb_compiles_with_nvcc(big_plans):
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, disassemble

    try:
        kernels = disassemble(compile_cuda("\n".join(emit(p, "kernel", n) for n, p in big_plans.items()), "sm_90"))
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    assert kernels["big_store_store"].opcodes["STSM.16.M88.4"] == len(big_plans["big_store"].side.instrs)
    assert kernels["big_load_load"].opcodes["LDSM.16.M88.4"] == len(big_plans["big_load"].side.instrs)


def test_a_tile_over_the_block_limit_is_one_sentence():
    res = CliRunner().invoke(main, ["emit", "--src", "mma", "--dst", NVMMA, "--shape", "256x512"])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr == (
        "error: S's buffer of 262144 bytes is more than the 232448 bytes of shared memory a block may use on sm_90, "
        "so no check kernel can hold it.\n"
    )


def test_cli_check_cpu_over_48_kb():
    res = CliRunner().invoke(main, ["check", "--cpu", "--src", "mma", "--dst", NVMMA, "--shape", "128x256"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1] == "local_store: ok (65536 shared bytes, 1 run(s))"


# ---------------------------------------------------------------------------------- CPU threads, exact


def test_cuda_kernels_run_exact_on_cpu_threads(cuda_plans, cuda_module):
    rng = np.random.default_rng(7)
    for name, plan in cuda_plans.items():
        assert ec.run_endpoint(cuda_module, plan, name, rng) == [], name


def test_hip_kernels_run_exact_on_cpu_threads(hip_plans, hip_module):
    rng = np.random.default_rng(8)
    for name, plan in hip_plans.items():
        assert ec.run_endpoint(hip_module, plan, name, rng) == [], name


@pytest.mark.parametrize(
    "store,load",
    [
        ("coalesced_nvmma", "nvmma_dot_a"),
        ("rows_swizzled", "swizzled_columns"),
        ("mma_padded", "padded_mma"),
        ("buffers_store", "buffers_load"),
    ],
)
def test_round_trips(cuda_plans, cuda_module, store, load):
    rng = np.random.default_rng(9)
    assert ec.round_trip(cuda_module, (store, cuda_plans[store]), (load, cuda_plans[load]), rng) == []


def test_the_check_catches_a_wrong_layout(cuda_module):
    """The kernels of one S judged against another S's map: the check must report it."""
    rng = np.random.default_rng(10)
    wrong = _plan("store", COALESCED, "swizzled:vec=1,per_phase=1,max_phase=1,order=1x0")  # nvmma:128 unswizzled
    assert ec.run_endpoint(cuda_module, wrong, "coalesced_nvmma", rng)
    wrong_load = _plan("load", "dot:0", "nvmma:64")
    assert ec.run_endpoint(cuda_module, wrong_load, "nvmma_dot_a", rng)


def test_check_report_of_an_endpoint(tmp_path):
    """--report writes PREFIX.md and PREFIX.json for an endpoint as for a conversion: the device, the plan's
    wavefronts against its floor, and what was compared."""
    prefix = tmp_path / "reports" / "ep"
    args = ["check", "--cpu", "--src", COLUMNS, "--dst", SWIZZLED, "--shape", "64x64", "--runs", "2", "--report", str(prefix)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert res.stderr == f"wrote {prefix}.md and {prefix}.json\n"
    record = json.loads((tmp_path / "reports" / "ep.json").read_text())
    plan = _plan("store", COLUMNS, SWIZZLED)
    assert record["ok"] is True and record["mismatches"] == [] and record["device"]["name"].startswith("CPU threads")
    assert record["counts"] == {"runs": 2, "shared_bytes_compared": 2 * 8192, "mismatches": 0}
    assert record["plan"] == json.loads(json.dumps(plan.to_json()))
    assert record["checked"].startswith("local_store: a random tile loaded into D and stored into S; the whole 8192-byte")
    md = (tmp_path / "reports" / "ep.md").read_text()
    assert (
        f"{plan.wavefronts} wavefront(s) for the tile, {plan.wavefronts_per_access} per access; the floor is {plan.floor}" in md
    )
    assert plan.floor_reason and f"above it: {plan.floor_reason}." in md and plan.explain() in md


def test_check_report_counts_a_load_s_replica_slots(tmp_path):
    # the 4 warps split 256 columns of a 64-column tile: each holds a copy of the tile, 8 registers of 4 rows a thread
    plan = _plan("load", "blocked:spt=1x8,tpw=4x8,wpc=1x4,order=1x0", NVMMA, shape=(16, 64))
    assert ec.compared(plan, 1) == {"slots_compared": 4096, "replica_slots_compared": 3072, "elements_compared": 1024}
    md, js = ec.write_endpoint_report(str(tmp_path / "r"), plan, {"name": "test"}, "today", 1, ["a slot differs"])
    assert json.loads(js.read_text())["ok"] is False and md.read_text().endswith("## Mismatches\n\n- a slot differs\n")


def test_cli_check_cpu():
    res = CliRunner().invoke(main, ["check", "--cpu", "--src", PADDED, "--dst", "mma", "--shape", "64x64"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1] == "local_load: ok (every slot of D and the stored tile, 1 run(s))"


# --------------------------------------------------------------------------------- compilers and SASS
TYPES = {"f16": "__half", "i8": "signed char", "f32": "float"}


def _use(name: str, plan, lang: str) -> str:
    """A kernel that instantiates the header's typed API (store and load_a, or load and store_b) with FirstWarp 0
    and 1."""
    t = TYPES[plan.dtype.name] if lang == "cuda" else {"f16": "_Float16"}.get(plan.dtype.name, TYPES[plan.dtype.name])
    calls = (
        "ep::load_a(in, r); ep::store(r, smem); ep::store<1>(r, smem);"
        if plan.direction == "store"
        else "ep::load(smem, r); ep::load<1>(smem, r); ep::store_b(out, r);"
    )
    return f"""
__global__ void use_{name}(const {t}* in, {t}* out) {{
  namespace ep = llgen::{name};
  alignas(ep::kSmemAlign) __shared__ unsigned char smem[ep::kSmemBytes];
  {t} r[ep::kRegs];
  (void)in; (void)out;
  {calls}
}}
"""


def _unit(folder, name: str, plan, lang: str) -> str:
    suffix = ".cuh" if lang == "cuda" else ".hip.h"
    (folder / f"{name}{suffix}").write_text(emit(plan, "header", name))
    types = "#include <cuda_fp16.h>" if lang == "cuda" else ""
    return f'#include "{name}{suffix}"\n{types}\n{_use(name, plan, lang)}'


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_each_cuda_header_compiles_alone_with_nvrtc(tmp_path, arch):
    from test_headers import _nvrtc_front_end

    for name, (direction, dist, shared, dtype, shape, _) in CASES.items():
        plan = _plan(direction, dist, shared, dtype, shape, arch)
        log = _nvrtc_front_end(_unit(tmp_path, name, plan, "cuda"), tmp_path, arch)
        assert log == "", f"{name} ({arch}):\n{log}"


def test_each_hip_header_compiles_alone_with_clang(tmp_path, hip_plans):
    from test_headers import _clang

    for name, plan in hip_plans.items():
        r = _clang(tmp_path, _unit(tmp_path, name, plan, "hip"), "gfx942")
        assert r.returncode == 0 and r.stderr == "", f"{name}:\n{r.stderr}"


SASS = {  # the cases whose check kernels are disassembled, and the instruction each must plan on each target
    "mma_acc_nvmma": {"sm_90": "stmatrix", "sm_80": "st.shared"},
    "coalesced_nvmma": {"sm_90": "st.shared", "sm_80": "st.shared"},
    "nvmma_dot_a": {"sm_90": "ldmatrix", "sm_80": "ldmatrix"},
    "swizzled_columns": {"sm_90": "ld.shared", "sm_80": "ld.shared"},
    "permuted_store": {"sm_90": "st.shared"},
    "two_step_store": {"sm_90": "st.shared"},
    "two_step_load": {"sm_90": "ld.shared"},
    "nvmma_dot_b_i8": {"sm_90": "ld.shared"},
}


def _opcode(plan) -> str:
    """The SASS opcode of the plan's shared access: STS/LDS by width, STSM/LDSM by matrices and .trans."""
    side, store = plan.side, plan.direction == "store"
    if side.matrices:
        return f"{'STSM' if store else 'LDSM'}.16.{'MT88' if side.op.endswith('trans') else 'M88'}.{side.matrices}"
    suffix = {1: ".U8", 2: ".U16", 4: "", 8: ".64", 16: ".128"}[plan.access_bytes]
    return ("STS" if store else "LDS") + suffix


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_sass_holds_the_planned_instructions_and_no_local_memory(arch):
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, disassemble

    plans = {n: _plan(*CASES[n][:5], arch) for n in SASS if arch in SASS[n]}
    try:
        kernels = disassemble(compile_cuda("\n".join(emit(p, "kernel", n) for n, p in plans.items()), arch))
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    for name, plan in plans.items():
        assert plan.side.op.removesuffix(".trans") == SASS[name][arch], name
        k = kernels[f"{name}_{plan.direction}"]
        # the kernel's own byte copies aside: STS.U8 (store kernels' poison, load kernels' fill) and LDS.U8
        copies = {"STS.U8": 1, "LDS.U8": 1} if plan.direction == "store" else {"STS.U8": 1}
        shared = {op: n - copies.get(op, 0) for op, n in k.opcodes.items() if op.startswith(("STS", "LDS"))}
        assert {op: n for op, n in shared.items() if n} == {_opcode(plan): len(plan.side.instrs)}, name
        assert not k.uses_local_memory, name
