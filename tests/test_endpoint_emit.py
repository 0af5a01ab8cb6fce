"""Shared-memory endpoints as source text (llgen.emit.endpoint): the header and the check kernel of store and
load plans. The text is deterministic; every header compiles alone (NVRTC for sm_80 and sm_90, clang-19 for
gfx942) in its debug build; SASS holds the planned instructions and no local memory; and the emitted kernels run
exact on CPU threads (src/llgen/runtime/host.py, ldmatrix/stmatrix emulated): a store leaves every byte of the shared buffer
where S's own map says, poison in its padding, and a load fills every slot of D."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import ROOT
from test_endpoint import SHARED, _layouts
from test_ttgir_local import PIPE

from llgen.cli import main
from llgen.core.errors import LlgenError
from llgen.emit import dynamic_smem, emit
from llgen.emit.registers import fragments, register_coords
from llgen.plan.endpoint import plan_load, plan_store
from llgen.plan.tile import TilePlan, tile_plan
from llgen.randlayout import random_layout
from llgen.runtime import endpointcheck as ec
from llgen.runtime.reference import poison_value, random_input, raw_dtype

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


def _plan(
    direction: str, dist: str, shared: str, dtype: str = "f16", shape=(64, 64), target: str = "sm_90", lanes: int = 32, form=None
):
    d, s = _layouts(dist, shared, dtype, shape, 4, lanes)
    return plan_store(d, s, dtype, target, form) if direction == "store" else plan_load(s, d, dtype, target, form)


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
    "select_store": ("store", "mma", NVMMA, "f32", (64, 64), "st.shared"),  # the f32 epilogue: registers picked by lane
    "select_load": ("load", "mma", NVMMA, "f32", (64, 64), "ld.shared"),
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
FORMS = {"two_step_store": "two_step", "two_step_load": "two_step"}  # the rest take the planner's pick


def _random_plans(target: str, seeds) -> dict:
    """A store and a load of a random distributed layout, per seed, over SHARED's families."""
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
    plans = {name: _plan(*c[:5], form=FORMS.get(name)) for name, c in CASES.items()}
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
    assert "converted to D inside each warp by shuffle" in text and "shfl_xor(" in text


def test_f32_epilogue_picks_registers_by_lane(cuda_plans):
    """An f32 mma accumulator into an NVMMA 128B tile: half of each half warp's rows send the next column block
    first, so 8-byte accesses take 2 wavefronts, not 4; the header says so and picks with a SEL a word."""
    for name in ("select_store", "select_load"):
        plan = cuda_plans[name]
        assert plan.form == "select" and plan.wavefronts == plan.floor and plan.wavefronts_per_access == 2, name
        assert plan.access_bytes == 8 and plan.cost < _plan(*CASES[name][:5], form="direct").cost
    text = emit(cuda_plans["select_store"], "header", "sel")
    assert "converted from D inside each warp by select" in text and "lane select in 1 stage(s)" in text
    assert "b[0] = pick0 ? a[" in text


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
        assert plan.smem_bytes == 65536 and dynamic_smem(plan) == 65536
        assert "  LLGEN_DYNAMIC_SMEM(smem, 1024);  // 65536 bytes\n" in text and "__shared__ unsigned char smem[" not in text
        assert f"inline cudaError_t {name}_opt_in() {{" in text
    small = _plan("store", "mma", NVMMA)
    assert dynamic_smem(small) == 0 and "LLGEN_DYNAMIC_SMEM" not in emit(small, "kernel", "small")


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


# --------------------------------------------------------------------------- a tile: its store and its load

# name -> (A, S, B, dtype, shape): stored from registers in A, loaded into registers in B
TILES = {
    "acc_to_dot_a": ("mma", NVMMA, "dot:0", "f16", (64, 64)),
    "rows_to_columns": (COALESCED, SWIZZLED, COLUMNS, "f16", (64, 64)),
    "padded_mma": ("mma", PADDED, "mma", "f16", (64, 64)),
    "two_step": ("dot:1", "swizzled:vec=2,per_phase=1,max_phase=4,order=0x1", "wgmma", "f16", (64, 64)),
    "dot_b_i8": (COALESCED, NVMMA, "dot:1", "i8", (64, 128)),
    "buffers": (
        "blocked:spt=1x1x8,tpw=1x4x8,wpc=2x2x1,order=2x1x0",
        "swizzled:vec=8,per_phase=1,max_phase=8,order=2x1x0",
        "blocked:spt=1x8x1,tpw=1x8x4,wpc=1x1x4,order=1x2x0",
        "f16",
        (2, 64, 64),
    ),
}


def _tile(a: str, s: str, b: str, dtype: str, shape, target: str = "sm_90", lanes: int = 32) -> TilePlan:
    da, enc = _layouts(a, s, dtype, shape, 4, lanes)
    db, _ = _layouts(b, s, dtype, shape, 4, lanes)
    return tile_plan(plan_store(da, enc, dtype, target), plan_load(enc, db, dtype, target))


def _tile_kernel(name: str, tile: TilePlan) -> str:
    """The tile header and a kernel through it: load_a, store into S (copied out to `image`), a barrier, load, store_b;
    and every register's coord_a / coord_b as a row-major index."""
    raw = tile.dtype.raw
    dims = list(tile.store.dist.shape)
    flat = " + ".join(f"c.d[{i}] * {int(np.prod(dims[i + 1 :]))}" for i in range(len(dims)))
    return (
        emit(tile, "header", name, "test")
        + f"""
extern "C" __global__ void {name}_run(const {raw}* __restrict__ in, unsigned char* __restrict__ image, {raw}* __restrict__ out, int* __restrict__ coords) {{
  namespace t = llgen::{name};
  alignas(t::kSmemAlign) __shared__ unsigned char smem[t::kSmemBytes];
  for (int i = threadIdx.x; i < t::kSmemBytes; i += blockDim.x) smem[i] = 0xa5u;
  __syncthreads();
  t::Word a[(t::kInRegs + t::kPer - 1) / t::kPer], b[(t::kOutRegs + t::kPer - 1) / t::kPer];
  t::load_a_bits(in, a);
  t::store_bits(a, smem);
  __syncthreads();
  for (int i = threadIdx.x; i < t::kSmemBytes; i += blockDim.x) image[i] = smem[i];
  t::load_bits(smem, b);
  t::store_b_bits(out, b);
  int* mine = coords + threadIdx.x * (t::kInRegs + t::kOutRegs);
  for (int r = 0; r < t::kInRegs; ++r) {{ const t::Coord c = t::coord_a(r); mine[r] = {flat}; }}
  for (int r = 0; r < t::kOutRegs; ++r) {{ const t::Coord c = t::coord_b(r); mine[t::kInRegs + r] = {flat}; }}
}}
"""
    )


def _run_tile(module, name: str, tile: TilePlan, rng) -> list[str]:
    from llgen.verify.simulate import element_ids

    st, ld = tile.store, tile.load
    raw = raw_dtype(tile.dtype)
    n = 1 << st.dist.total_out_bits
    threads = tile.warps * tile.target.lanes
    na, nb = 1 << st.dist.in_bits("register"), 1 << ld.dist.in_bits("register")
    x = random_input(raw, n, rng)
    image, out = module.filled(tile.smem_bytes, np.uint8, 0), module.filled(n, raw, poison_value(raw))
    coords = module.filled(threads * (na + nb), np.int32, -1)
    module.launch(f"{name}_run", 1, threads, (module.to_device(x), image, out, coords))
    bad = []
    if not np.array_equal(module.to_host(image), ec.shared_bytes(st, x)):
        bad.append("store: the shared bytes are not S's image of the tile")
    if not np.array_equal(module.to_host(out), x):
        bad.append("load, store_b: the tile did not come back")
    got = module.to_host(coords).reshape(threads, na + nb)
    for what, plan, cols in (("coord_a", st, got[:, :na]), ("coord_b", ld, got[:, na:])):
        want = element_ids(plan.dist, plan.warps, plan.target.lanes).reshape(threads, -1)
        if not np.array_equal(cols, want):
            bad.append(f"{what}: some register's coordinates are not D's")
    return bad


@pytest.fixture(scope="module")
def tiles() -> dict:
    return {name: _tile(*c) for name, c in TILES.items()}


def test_a_tile_header_runs_exact_on_cpu_threads(tiles):
    from llgen.runtime.host import compile as host_compile

    module = host_compile("\n".join(_tile_kernel(n, t) for n, t in tiles.items()), "sm_90")
    rng = np.random.default_rng(12)
    for name, tile in tiles.items():
        assert _run_tile(module, name, tile, rng) == [], name


def test_a_hip_tile_header_runs_exact_on_cpu_threads():
    from llgen.runtime.host import compile as host_compile

    tile = _tile("mfma:32", ROTATING, MFMA_A, "f16", (64, 64), "gfx942", 64)
    module = host_compile(_tile_kernel("hip_tile", tile), "gfx942")
    assert _run_tile(module, "hip_tile", tile, np.random.default_rng(13)) == []


def test_a_tile_header_holds_both_sides_and_says_how_to_declare_the_tile(tiles):
    tile = tiles["acc_to_dot_a"]
    text = emit(tile, "header", "acc", "llgen emit ...")
    assert text == emit(_tile(*TILES["acc_to_dot_a"]), "header", "acc", "llgen emit ...")  # same inputs, same bytes
    assert text.startswith("// Generated by llgen ") and "// regenerate with: llgen emit ...\n#pragma once\n" in text
    assert "call llgen::acc::store and llgen::acc::load" in text
    for line in (
        "inline constexpr int kInRegs = 32;",
        "inline constexpr int kOutRegs = 64;",
        "inline constexpr int kSmemBytes = 8192;",
        "inline constexpr int kSmemAlign = 1024;",
        "inline constexpr bool kSmemOptIn = false;",
        "//   alignas(1024) __shared__ unsigned char smem[8192];",
        "//   extern __shared__ __align__(1024) unsigned char smem[];",
        "__device__ __forceinline__ void store(const T (&in)[kInRegs], void* smem) {",
        "__device__ __forceinline__ void load(const void* smem, T (&out)[kOutRegs]) {",
        "__device__ __forceinline__ void load_a(const T* tile, T (&in)[kInRegs]) {",
        "__device__ __forceinline__ void store_b(T* tile, const T (&out)[kOutRegs]) {",
        "__device__ __forceinline__ Coord coord_a(int reg) {",
        "__device__ __forceinline__ Coord coord_b(int reg) {",
        "// store: Instruction: stmatrix.x4",
        "// load: Instruction: ldmatrix.x4",
        "//   in[0..7]:      (0, 0) (0, 1) (8, 0) (8, 1) (0, 16) (0, 17) (8, 16) (8, 17)",
        "//   out[0..7]:     (0, 0) (0, 1) (8, 0) (8, 1) (0, 8) (0, 9) (8, 8) (8, 9)",
        '// in[] is mma.sync\'s m16n8 C/D fragment (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"),',
        "//     in[0..3]: c0..c3 at (0, 0); in[4..7]: c0..c3 at (0, 16); in[8..11]: c0..c3 at (0, 32);",
        '// out[] is mma.sync\'s m16n8k16 A fragment (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"),',
        "//     out[0..7]: a0..a7 at (0, 0); out[8..15]: a0..a7 at (0, 16); out[16..23]: a0..a7 at (0, 32);",
    ):
        assert any(x.startswith(line) for x in text.splitlines()), line
    code = [x for x in text.splitlines() if not x.startswith("//")]
    assert not any("__syncthreads" in x or "__syncwarp" in x for x in code)  # the caller's barrier, between store and load
    big = _tile("mma", NVMMA, "dot:0", "f16", (128, 256))
    text = emit(big, "header", "big")
    assert "inline constexpr bool kSmemOptIn = true;" in text and "cudaFuncAttributeMaxDynamicSharedMemorySize" in text
    assert (
        "__shared__ unsigned char smem[65536]" not in text and "extern __shared__ __align__(1024) unsigned char smem[];" in text
    )


def test_one_side_headers_gain_the_declaration_and_register_comments_only():
    plan = _plan("load", "dot:1", NVMMA)
    header, kernel = emit(plan, "header", "ld"), emit(plan, "kernel", "ld")
    assert "//   extern __shared__ __align__(1024) unsigned char smem[];" in header and "coord_b(int reg)" in header
    assert "// out[] is mma.sync's m16n8k16 B fragment" in header
    assert "Registers:" not in kernel and "coord_b" not in kernel and "kSmemOptIn" not in kernel  # check kernels as before


def test_a_tile_needs_one_shared_layout_dtype_target_and_warps():
    store = _plan("store", "mma", NVMMA)
    with pytest.raises(LlgenError, match="one shared layout"):
        tile_plan(store, _plan("load", "dot:0", "nvmma:64"))
    with pytest.raises(LlgenError, match="one element type"):
        tile_plan(store, _plan("load", "dot:0", NVMMA, "bf16"))
    with pytest.raises(LlgenError, match="one target"):
        tile_plan(store, _plan("load", "dot:0", NVMMA, target="sm_80"))
    with pytest.raises(LlgenError, match="a store plan and a load plan"):
        tile_plan(_plan("load", "dot:0", NVMMA), store)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_each_tile_header_compiles_alone_with_nvrtc(tmp_path, arch):
    from test_headers import _nvrtc_front_end

    for name, c in TILES.items():
        tile = _tile(*c, target=arch)
        (tmp_path / f"{name}.cuh").write_text(emit(tile, "header", name))
        t = TYPES[tile.dtype.name]
        use = f"""#include "{name}.cuh"
#include <cuda_fp16.h>
__global__ void use_{name}(const {t}* in, {t}* out) {{
  namespace ep = llgen::{name};
  alignas(ep::kSmemAlign) __shared__ unsigned char smem[ep::kSmemBytes];
  {t} a[ep::kInRegs], b[ep::kOutRegs];
  ep::load_a(in, a);
  ep::store(a, smem);
  ep::store<1>(a, smem);
  __syncthreads();
  ep::load(smem, b);
  ep::load<1>(smem, b);
  ep::store_b(out, b);
  out[ep::coord_a(0).d[0] + ep::coord_b(1).d[0]] = b[0];
}}
"""
        log = _nvrtc_front_end(use, tmp_path, arch)
        assert log == "", f"{name} ({arch}):\n{log}"


# ------------------------------------------------------------------------ mma.sync fragments, as PTX defines them
def _ptx(name: str, i: int, lane: int) -> tuple[int, int]:
    """(row, column) of element i of lane ``lane`` in PTX ISA's fragment tables (groupID g, threadID_in_group t)."""
    g, t = lane >> 2, lane & 3
    return {
        "m16n8k16 A": (g + 8 * (i >> 1 & 1), 2 * t + (i & 1) + 8 * (i >> 2)),
        "m16n8k16 B": (2 * t + (i & 1) + 8 * (i >> 1), g),
        "m16n8k32 A": (g + 8 * (i >> 2 & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
        "m16n8k32 B": (4 * t + (i & 3) + 16 * (i >> 2), g),
        "m16n8k8 A": (g + 8 * (i & 1), t + 4 * (i >> 1)),
        "m16n8k8 B": (t + 4 * i, g),
        "m16n8 C/D": (g + 8 * (i >> 1), 2 * t + (i & 1)),
    }[name]


@pytest.mark.parametrize(
    "spec,dtype,names",
    [
        ("mma", "f16", ["m16n8 C/D"]),
        ("mma", "f32", ["m16n8 C/D"]),
        ("wgmma", "f32", ["m16n8 C/D"]),
        ("dot:0", "f16", ["m16n8k16 A", "m16n8 C/D"]),
        ("dot:1", "f16", ["m16n8k16 B"]),
        ("dot:0", "i8", ["m16n8k32 A"]),
        ("dot:1", "i8", ["m16n8k32 B"]),
        ("dot:0", "f32", ["m16n8k8 A"]),
        ("dot:1", "f32", ["m16n8k8 B"]),
        ("dot:op=0,k_width=4", "f16", []),  # Triton's kWidth 4 is not mma.sync's 16-bit A
        (COALESCED, "f16", []),
    ],
)
def test_fragments_are_ptx_s(spec, dtype, names):
    """Each fragment llgen names holds, in every lane, the element PTX's table puts there."""
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.spec import Where, parse_layout

    dt = to_dtype(dtype)
    lay = parse_layout(spec, (64, 64), 4, 32, where=Where(dtype_bytes=dt.bytes))
    found = fragments(lay, dt.bits)
    assert sorted(f.name for f, _ in found) == sorted(names)
    lanes = lay.to_dict()["bases"]["lane"]
    coords = register_coords(lay)
    for f, each in found:
        assert len({i for _, i in each}) == 1 << len(f.elems), f.name  # every element of the fragment is held
        for (origin, i), c in zip(each, coords, strict=True):
            for lane in range(32):
                got = list(c)
                for bit, b in enumerate(lanes):
                    if lane >> bit & 1:
                        got = [x ^ y for x, y in zip(got, b, strict=True)]
                r, col = _ptx(f.name, i, lane)
                assert got == [origin[0] + r, origin[1] + col], (f.name, i, lane)


# -------------------------------------------------------------------------------------- llgen emit --then
def test_cli_emit_then_writes_one_tile_header(tmp_path):
    args = ["emit", "--src", "mma", "--dst", NVMMA, "--then", "dot:0", "--shape", "64x64"]
    res = CliRunner().invoke(main, [*args, "-o", f"{tmp_path}/"])
    assert res.exit_code == 0, res.output
    [header] = tmp_path.iterdir()
    assert header.name.startswith("tile_mma2dotop_f16_64x64_") and header.suffix == ".cuh"
    assert res.stderr == f"wrote {tmp_path}/{header.name} ({len(header.read_bytes())} bytes)\n"
    text = header.read_text()
    assert "// regenerate with: llgen emit --src mma --dst nvmma:128 --then dot:0 --shape 64x64 -o" in text
    assert text.replace(text.splitlines()[1], "") == emit(_tile(*TILES["acc_to_dot_a"]), "header", header.stem).replace(
        "// regenerate with: the Python API (llgen.emit.emit)", ""
    )
    named = CliRunner().invoke(main, [*args, "--name", "acc_tile"])
    assert named.exit_code == 0 and "namespace acc_tile {" in named.stdout and "kOutRegs = 64;" in named.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--src", "mma", "--dst", NVMMA, "--then", "dot:0", "--form", "kernel"], "--then writes the tile's header"),
        (["--src", NVMMA, "--dst", "mma", "--then", "dot:0"], "--dst must be the tile's shared layout"),
        (["--src", "mma", "--dst", NVMMA, "--then", "nvmma:64"], "--then is a shared-memory layout"),
        (["--src", "mma", "--dst", NVMMA, "--then", "dot:0", "--warps", "4", "--target", "sm_80"], None),
    ],
)
def test_cli_emit_then_is_one_sentence_when_wrong(args, message):
    res = CliRunner().invoke(main, ["emit", *args, "--shape", "64x64"])
    if message is None:
        assert res.exit_code == 0 and "namespace tile_mma2dotop_f16_64x64_" in res.stdout
        return
    assert res.exit_code == 2 and res.stdout == "" and message in res.stderr and res.stderr.count("\n") == 1


# ---------------------------------------------------------------- llgen emit --ttgir: a tile per allocation

TTGIR = ROOT / "tests" / "data" / "ttgir"


def test_emit_ttgir_groups_each_allocation_s_store_and_load_into_a_tile_header(tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["emit", "--ttgir", str(TTGIR / "matmul.sm80.ttgir"), "-o", f"{out}/"])
    assert res.exit_code == 0, res.output
    names = sorted(p.name for p in out.iterdir() if p.suffix == ".cuh")
    assert len(names) == 3 and (out / "index.txt").is_file()
    assert [n.rsplit("_", 1)[0] for n in names[:3]] == ["matmul_l38c48", "matmul_x_l35c20", "matmul_y_l36c20"]
    assert all(re.fullmatch(r"[a-z0-9_]+_[0-9a-f]{6}\.cuh", n) for n in names[:3])
    x = (out / names[1]).read_text()
    assert "void store(const T (&in)[kInRegs], void* smem)" in x and "void load(const void* smem, T (&out)[kOutRegs])" in x
    assert "// out[] is mma.sync's m16n8k16 A fragment" in x
    y = (out / names[2]).read_text()
    assert "// out[] is mma.sync's m16n8k16 B fragment" in y
    index = (out / "index.txt").read_text().splitlines()[3:]
    assert sum(line.startswith(f"{names[1]}  ") and "(the tile's store and load), path local_" in line for line in index) == 2
    again = CliRunner().invoke(main, ["emit", "--ttgir", str(TTGIR / "matmul.sm80.ttgir"), "-o", f"{out}/"])
    assert again.exit_code == 0 and sorted(p.name for p in out.glob("*.cuh")) == names  # the same names: the same code


def test_emit_ttgir_follows_views_and_leaves_a_buffer_of_two_loads_alone(tmp_path):
    dump = tmp_path / "pipe.ttgir"
    dump.write_text(PIPE)
    res = CliRunner().invoke(main, ["emit", "--ttgir", str(dump), "-o", f"{tmp_path}/a/"])
    assert res.exit_code == 0, res.output
    index = (tmp_path / "a" / "index.txt").read_text().splitlines()[3:]
    assert len(index) == 4 and all("(the tile's store and load)" in line for line in index)
    assert len({line.split("  ")[0] for line in index}) == 2  # the memdesc_index buffer's tile and the rank-3 one
    # a second load of %b into another layout: the buffer has two load conversions, so each op keeps its own header
    other = "#blocked4 = #ttg.blocked<{sizePerThread = [1, 8, 1], threadsPerWarp = [1, 8, 4], warpsPerCTA = [1, 1, 4], order = [1, 2, 0]}>\n"
    two = other + PIPE.replace(
        "    tt.return",
        "    %w2 = ttg.local_load %b : !ttg.memdesc<2x64x64xf16, #shared3, #smem> -> tensor<2x64x64xf16, #blocked4> loc(#loc4)\n    tt.return",
    )
    dump.write_text(two)
    res = CliRunner().invoke(main, ["emit", "--ttgir", str(dump), "-o", f"{tmp_path}/b/"])
    assert res.exit_code == 0, res.output
    index = (tmp_path / "b" / "index.txt").read_text().splitlines()[3:]
    assert sum("(the tile's store and load)" in line for line in index) == 2 and len(index) == 5
    assert len({line.split("  ")[0] for line in index}) == 4


def test_emit_ttgir_kernels_stay_one_per_op(tmp_path):
    res = CliRunner().invoke(main, ["emit", "--ttgir", str(TTGIR / "matmul.sm80.ttgir"), "--form", "both", "-o", f"{tmp_path}/"])
    assert res.exit_code == 0, res.output
    assert len(list(tmp_path.glob("*.cu"))) == len(list(tmp_path.glob("*.cuh"))) == 5


def test_emit_ttgir_takes_name_as_the_headers_prefix(tmp_path):
    res = CliRunner().invoke(main, ["emit", "--ttgir", str(TTGIR / "matmul.sm80.ttgir"), "--name", "mm80", "-o", f"{tmp_path}/"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "mm80_index.txt",
        "mm80_l38c48.cuh",
        "mm80_x_l35c20.cuh",
        "mm80_y_l36c20.cuh",
    ]
    assert "namespace mm80_x_l35c20 {" in (tmp_path / "mm80_x_l35c20.cuh").read_text()
    bad = CliRunner().invoke(main, ["emit", "--ttgir", str(TTGIR / "matmul.sm80.ttgir"), "--name", "2x", "-o", f"{tmp_path}/"])
    assert bad.exit_code == 2 and "--name '2x' is not a C++ identifier" in bad.stderr
    then = CliRunner().invoke(main, ["emit", "--ttgir", str(TTGIR / "matmul.sm80.ttgir"), "--then", "#mma", "-o", f"{tmp_path}/"])
    assert then.exit_code == 2 and "--then needs --src and --dst" in then.stderr
