"""Shared memory as an endpoint (llgen.plan.endpoint): store and load plans between real distributed
layouts and every shared family, each run by the independent simulator (llgen.verify.simulate_endpoint), which must place
every element where the shared layout's own map says and count the wavefronts the plan predicts."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from helpers import one_sentence

from llgen import LlgenError
from llgen.cli import main
from llgen.layouts import PaddedShared
from llgen.plan.endpoint import plan_load, plan_store, staging_layout
from llgen.randlayout import random_layout
from llgen.spec import Where, parse_encoding, parse_layout
from llgen.verify.simulate_endpoint import simulate_endpoint

DIST = ["blocked", "mma", "dot:0", "dot:1", "wgmma"]

# (shared spec, dtype, shape): every family, the swizzle parameters, transposed NVMMA tiles, 8/16/32-bit elements
SHARED = [
    ("swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", "f16", (64, 64)),
    ("swizzled:vec=8,per_phase=1,max_phase=8,order=1x0", "f16", (64, 64)),
    ("swizzled:vec=4,per_phase=2,max_phase=4,order=1x0", "f32", (64, 32)),
    ("swizzled:vec=2,per_phase=1,max_phase=4,order=0x1", "f16", (64, 64)),
    ("nvmma:0", "f16", (64, 64)),
    ("nvmma:32", "f16", (64, 64)),
    ("nvmma:64,transposed=true", "f16", (64, 64)),
    ("nvmma:128", "f16", (64, 64)),
    ("nvmma:128,transposed=true", "f16", (64, 64)),
    ("nvmma:128", "i8", (64, 128)),
    ("nvmma:64", "f32", (64, 64)),
    ("nvmma:128,transposed=true", "f32", (64, 64)),
    (
        "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], "
        "[0, 8], [0, 16], [0, 32]]}, alignment = 16>",
        "f16",
        (64, 64),
    ),
    ("#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>", "f16", (64, 64)),
    ("#ttg.padded_shared<[32:+2] {order = [1, 0], shape = [64, 64]}>", "f16", (64, 64)),
    ("#ttg.padded_shared<[16:+4, 256:+8] {order = [0, 1], shape = [64, 64]}>", "f32", (64, 64)),
    ("#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>", "f16", (64, 64)),
]


def _layouts(dist: str, shared: str, dtype: str, shape, warps: int = 4, lanes: int = 32):
    from llgen.core.dtypes import dtype as to_dtype

    w = to_dtype(dtype).bytes
    return parse_layout(dist, shape, warps, lanes, where=Where(dtype_bytes=w)), parse_encoding(
        shared, shape, warps, lanes, where=Where(dtype_bytes=w)
    )


def _check(plan) -> None:
    sim = simulate_endpoint(plan)
    assert sim.ok, sim.errors[:3]
    assert sim.instr_wavefronts == list(plan.instr_wavefronts)
    assert plan.wavefronts >= plan.floor
    assert bool(plan.floor_reason) == (plan.wavefronts > plan.floor)


@pytest.mark.parametrize("shared,dtype,shape", SHARED, ids=[s[0][:40] + "-" + s[1] for s in SHARED])
@pytest.mark.parametrize("dist", DIST)
def test_real_layouts_store_and_load(dist, shared, dtype, shape):
    d, s = _layouts(dist, shared, dtype, shape)
    _check(plan_store(d, s, dtype, "sm_90"))
    _check(plan_load(s, d, dtype, "sm_90"))


@pytest.mark.parametrize("seed", range(16))
def test_random_layouts(seed):
    rng = random.Random(seed)
    shared, dtype, shape = SHARED[seed % len(SHARED)]
    target = ("sm_90", "sm_80", "gfx942")[seed % 3]
    d = random_layout(rng, shape, rng.choice([1, 2, 4, 8]), target, dtype)
    _, s = _layouts("blocked", shared, dtype, shape)
    _check(plan_store(d, s, dtype, target))
    _check(plan_load(s, d, dtype, target))


def test_amd_targets_use_64_lanes():
    d, s = _layouts(
        "blocked", "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>", "f16", (64, 64), 4, 64
    )
    for plan in (plan_store(d, s, "f16", "gfx942"), plan_load(s, d, "f16", "gfx942")):
        assert plan.side.op in ("st.shared", "ld.shared")
        _check(plan)
    mfma = parse_layout("mfma", (64, 64), 4, 64)
    plan = plan_store(mfma, s, "f16", "gfx942")  # 2 bytes a lane: each 32-lane phase fills half a wavefront
    assert plan.floor_reason == "D holds 2 contiguous bytes a thread along S's offset order, so accesses are 2 bytes wide"
    _check(plan)


def test_mma_accumulator_into_nvmma_128_uses_stmatrix_at_the_floor():
    d, s = _layouts("mma", "nvmma:128", "f16", (128, 128))
    plan = plan_store(d, s, "f16", "sm_90")
    assert (plan.side.op, plan.side.matrices) == ("stmatrix", 4)
    assert plan.wavefronts == plan.floor == 128 * 128 * 2 // 128
    assert plan.smem_align == 1024 and plan.smem_bytes == 128 * 128 * 2
    _check(plan)


def test_sm80_has_no_stmatrix_but_loads_with_ldmatrix():
    d, s = _layouts("mma", "nvmma:128", "f16", (64, 64))
    assert plan_store(d, s, "f16", "sm_80").side.op == "st.shared"
    assert plan_load(s, d, "f16", "sm_80").side.op.startswith("ldmatrix")


def test_row_major_tile_read_column_major_cannot_vectorise_directly():
    d, s = _layouts(
        "blocked:spt=8x1,tpw=8x4,wpc=1x4,order=0x1", "swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", "f16", (64, 64)
    )
    plan = plan_load(s, d, "f16", "sm_90", form="direct")
    assert plan.staging is None and plan.access_bytes == 2
    assert "D holds 2 contiguous bytes a thread along S's offset order, so accesses are 2 bytes wide" in plan.floor_reason
    _check(plan)
    staged = plan_load(s, d, "f16", "sm_90", form="two_step")  # reads S wider instead, then transposes by shuffles
    assert staged.staging is not None and staged.access_bytes > 2 and staged.cost < plan.cost
    _check(staged)
    picked = plan_load(s, d, "f16", "sm_90")  # or keeps 2-byte loads and picks registers by lane off the conflicts
    assert picked.form == "select" and picked.access_bytes == 2 and picked.cost < staged.cost
    _check(picked)


def test_a_staging_layout_keeps_the_warps_and_walks_s_contiguously():
    d, s = _layouts("blocked:spt=1x1,tpw=4x8,wpc=4x1,order=0x1", "nvmma:128", "f16", (64, 64))
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.core.target import target
    from llgen.plan.endpoint import shared_map

    lay, _ = shared_map(s, d)
    q = staging_layout(d, lay, to_dtype("f16"), target("sm_90"), 16)
    assert q.flat_cols("warp") == d.flat_cols("warp")
    assert list(q.flat_cols("register")[:3]) == list(lay.flat_cols("offset")[:3])
    plan = plan_store(d, s, "f16", "sm_90")
    _check(plan)


def test_two_step_plans_run_through_the_simulator():
    """Lanes down the rows of a row-major tile conflict 8 ways on 16-byte loads; loading in Q (lanes across the row)
    and shuffling into D costs less, and must still be exact."""
    d, s = _layouts(
        "blocked:spt=1x1,tpw=32x1,wpc=4x1,order=0x1", "swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", "f16", (64, 64)
    )
    for plan in (plan_store(d, s, "f16", "sm_90", "two_step"), plan_load(s, d, "f16", "sm_90", "two_step")):
        assert plan.staging is not None and plan.convert.path == "shuffle"
        assert plan.access_bytes == 16 and plan.cost > plan.wavefronts
        _check(plan)


def test_broadcast_warps_store_once_and_load_everywhere():
    d = parse_layout("blocked:spt=1x8,tpw=8x4,wpc=1x4,order=1x0", (8, 32), 4, 32)  # warps replicate an 8x32 tile
    s = parse_encoding("nvmma:0", (8, 32), 4, 32)
    store, load = plan_store(d, s, "f16", "sm_90"), plan_load(s, d, "f16", "sm_90")
    assert store.side.predicate_warp_mask == 0b11 and load.side.predicate_warp_mask == 0
    assert store.floor == 4 and load.floor == 4 * 4
    _check(store)
    _check(load)


def test_broadcast_lanes_and_registers():
    """Lane 16 and register 1 replicate: the store's lanes write each word once, the load fills both replicas."""
    d = parse_layout("linear:register=[[0,1],[0,0]],lane=[[0,2],[0,4],[0,8],[1,0],[0,0]],warp=[[0,0]]", (2, 16), 2, 32)
    s = parse_encoding("swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", (2, 16), 2, 32)
    store, load = plan_store(d, s, "f16", "sm_90"), plan_load(s, d, "f16", "sm_90")
    assert (store.wavefronts, store.floor, load.wavefronts, load.floor) == (1, 1, 2, 2)
    assert load.copies == ((2, 0), (3, 1))
    _check(store)
    _check(load)
    from dataclasses import replace

    assert not simulate_endpoint(replace(load, copies=())).ok


def test_padding_moves_banks_and_caps_the_vector():
    d, s = _layouts("blocked", "#ttg.padded_shared<[32:+2] {order = [1, 0], shape = [64, 64]}>", "f16", (64, 64))
    plan = plan_load(s, d, "f16", "sm_90")
    assert plan.access_bytes == 4  # 2 elements of padding keep only 4-byte accesses aligned
    assert plan.floor_reason.startswith("S's padding keeps accesses aligned only up to 4 bytes")
    assert plan.smem_bytes == PaddedShared(((32, 2),), s.offset, (), (64, 64)).padded_bytes(2)
    _check(plan)


def test_the_simulator_catches_a_wrong_plan():
    from dataclasses import replace

    d, s = _layouts("mma", "nvmma:128", "f16", (64, 64))
    plan = plan_store(d, s, "f16", "sm_90")
    first, second, *rest = plan.side.instrs
    bad = replace(plan, side=replace(plan.side, instrs=(replace(first, regs=second.regs), second, *rest)))
    wrong_wf = replace(plan, instr_wavefronts=(1,) * len(plan.instr_wavefronts))
    assert not simulate_endpoint(bad).ok
    assert simulate_endpoint(wrong_wf).instr_wavefronts != list(wrong_wf.instr_wavefronts)
    load = plan_load(s, d, "f16", "sm_90")
    dropped = replace(load, side=replace(load.side, instrs=load.side.instrs[:-1]))
    assert not simulate_endpoint(dropped).ok


def test_a_shared_layout_that_is_not_a_bijection_is_one_sentence():
    from llgen import LinearLayout

    d = parse_layout("blocked", (4, 64), 4, 32, where=Where(dtype_bytes=4))
    wrapped = parse_encoding(
        "nvmma:128", (4, 64), 4, 32, where=Where(dtype_bytes=4)
    )  # Triton's 128-byte tile wraps a 4-row tensor
    with pytest.raises(LlgenError) as e:
        plan_store(d, wrapped, "f32", "sm_90")
    assert (
        one_sentence(e.value)
        == "the shared-memory layout maps 512 offsets onto the tensor's 256 elements, not one offset per element."
    )
    d = parse_layout("blocked", (4, 8), 1, 32)
    twice = LinearLayout.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [1, 0]]}, [("dim0", 4), ("dim1", 8)])
    with pytest.raises(LlgenError) as e:
        plan_load(twice, d, "f16", "sm_90")
    assert one_sentence(e.value) == "the shared-memory layout stores some elements at several offsets and others at none."


# ------------------------------------------------------------------------------------------- llgen plan
def _plan(*args):
    return CliRunner().invoke(main, ["plan", *args])


def test_cli_plan_local_store():
    res = _plan("--src", "mma", "--dst", "nvmma:128", "--shape", "64x64", "--dtype", "f16")
    assert res.exit_code == 0, res.output
    out = res.stdout
    for line in (
        "path: local_store",
        "L = S^-1 D, by blocks",
        "instruction: 4 x stmatrix x4 per thread, 16 bytes each",
        "wavefronts: 4 per access, 64 for the tile",
        "floor: 64 (at the floor)",
        "kSmemBytes: 8192",
        "kSmemAlign: 1024",
    ):
        assert line in out


def test_cli_plan_local_load_json_and_floor_reason():
    args = ("--src", "swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", "--dst", "blocked:spt=8x1,tpw=8x4,wpc=1x4,order=0x1")
    res = _plan(*args, "--shape", "64x64", "--json")
    assert res.exit_code == 0, res.output
    j = json.loads(res.stdout)
    assert j["path"] == "local_load" and j["kSmemBytes"] == 8192
    assert j["wavefronts"] > j["floor"] and j["floor_reason"]
    text = _plan(*args, "--shape", "64x64").stdout
    assert f"floor: {j['floor']} (above it: {j['floor_reason']})" in text


def test_cli_plan_json_names_the_staging_layout_and_its_step():
    """Lanes down the rows of a row-major tile: 16-byte stores, with registers picked by lane so that a quarter warp's
    rows start on different banks."""
    src = "blocked:spt=1x1,tpw=32x1,wpc=4x1,order=0x1"
    res = _plan("--src", src, "--dst", "swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", "--shape", "64x64", "--json")
    j = json.loads(res.stdout)
    assert j["staging"]["conversion"] == "select" and j["instruction"]["bytes"] == 16
    assert j["cost"] == j["wavefronts"] + j["staging"]["conversion_cost"]
    assert j["staging"]["pipe_floor"] == max(j["wavefronts"], j["staging"]["conversion_cost"])


@pytest.mark.parametrize("command", [["swizzle"]])
def test_other_commands_refuse_a_shared_endpoint(command):
    res = CliRunner().invoke(main, [*command, "--src", "mma", "--dst", "nvmma:128", "--shape", "64x64"])
    assert res.exit_code == 2 and res.stdout == ""
    assert (
        res.stderr.strip()
        == "error: --dst is a shared-memory layout (nvmma); `llgen swizzle` chooses a shared layout and takes two distributed ones."
    )


def test_cli_plan_endpoint_refuses_path_and_budget():
    res = _plan("--src", "mma", "--dst", "nvmma:128", "--shape", "64x64", "--smem-budget", "1024")
    assert res.exit_code == 2
    assert res.stderr.strip() == "error: --smem-budget does not apply to a shared-memory endpoint, whose layout fixes the buffer."
