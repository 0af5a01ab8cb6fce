"""Lane selects (llgen.plan.select): an endpoint that accesses S in Q = D with registers picked by lane. Q must hold
each thread's elements in another register order, the simulator must run the select and catch a wrong one, the
planner must reach the floor where the issue's f32 epilogues conflict, and the text must be SELs on constant indices."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from test_endpoint import SHARED, _check, _layouts

from llgen.cases.suite_endpoint import endpoint_suite
from llgen.core.errors import LlgenError
from llgen.emit import emit
from llgen.plan.endpoint import plan_load, plan_store
from llgen.plan.select import LaneSelect, stages_of, with_lane_select
from llgen.randlayout import random_layout
from llgen.verify.simulate import element_ids
from llgen.verify.simulate_endpoint import simulate_endpoint

SUITE = {c.id: c for c in endpoint_suite()}
EPILOGUES = ["ep_mma_f32_128B_w4", "ep_mma_f32_64B_w4", "ep_wgmma_f32_128B_w8", "ep_wgmma_f32_64B_w4"]


def _thread_sets(layout, warps: int) -> list[set[int]]:
    ids = element_ids(layout, warps, 32)
    return [set(ids[w, t].tolist()) for w in range(warps) for t in range(32)]


def test_q_holds_each_thread_s_elements_in_another_register_order():
    d, _ = _layouts("mma", "nvmma:128", "f32", (64, 64))
    masks = [0, 0, 4, 8, 0]
    q = with_lane_select(d, masks)
    assert _thread_sets(q, 4) == _thread_sets(d, 4) and q != d
    sel = LaneSelect(d, q, None, None, 4, stages_of(masks))
    ids_d, ids_q = element_ids(d, 4, 32), element_ids(q, 4, 32)
    for lane in range(32):
        for r in range(ids_q.shape[2]):
            assert ids_q[0, lane, r] == ids_d[0, lane, sel.source(r, lane)]


def test_stages_are_a_basis_of_the_lane_map():
    assert stages_of([0, 0, 4, 8]) == ((0b0100, 4), (0b1000, 8))
    assert stages_of([2, 2, 0, 2]) == ((0b1011, 2),)  # one register vector: one stage, its lanes by parity
    assert stages_of([1, 3, 2]) == ((0b011, 1), (0b110, 2))  # 3 = 1 ^ 2: lane bit 1 is in both stages
    assert stages_of([0, 0]) == ()


@pytest.mark.parametrize("cid", EPILOGUES)
def test_f32_epilogues_reach_the_wavefront_floor_with_selects(cid):
    """The issue's f32 accumulators into NVMMA 128B/64B tiles: 4 wavefronts an 8-byte access where 2 would do, with
    the same wavefronts as Triton. Selecting registers by lane reaches the floor both ways, within the cost model's
    budget: at most 2 stages, and cheaper than the direct and the two-step plans."""
    case = SUITE[cid]
    enc = case.encoding()
    for plan in (plan_store(case.p, enc, case.dtype, "sm_90"), plan_load(enc, case.p, case.dtype, "sm_90")):
        assert plan.form == "select" and plan.wavefronts == plan.floor, (cid, plan.direction)
        assert len(plan.convert.stages) <= 2 and plan.pipe_floor == plan.floor
        direct = _store(case, "direct") if plan.direction == "store" else _load(case, "direct")
        assert direct.wavefronts == 2 * plan.floor and plan.cost < direct.cost
        _check(plan)


def _store(case, form):
    return plan_store(case.p, case.encoding(), case.dtype, "sm_90", form)


def _load(case, form):
    return plan_load(case.encoding(), case.p, case.dtype, "sm_90", form)


def test_the_simulator_catches_a_select_that_is_not_run():
    case = SUITE["ep_mma_f32_128B_w4"]
    enc = case.encoding()
    for plan in (plan_store(case.p, enc, case.dtype, "sm_90"), _load(case, None)):
        assert simulate_endpoint(plan).ok
        lanes, regs = plan.convert.stages[0]
        for wrong in ((), ((lanes, regs ^ 2),), ((lanes ^ 1, regs),)):  # no select, the wrong register, wrong lanes
            bad = replace(plan, convert=replace(plan.convert, stages=wrong))
            assert not simulate_endpoint(bad).ok, wrong


def test_a_forced_select_where_none_helps_is_one_sentence():
    d, s = _layouts("mma", "nvmma:128", "f16", (64, 64))  # stmatrix at the floor
    with pytest.raises(LlgenError, match="no lane-select plan"):
        plan_store(d, s, "f16", "sm_90", "select")


def test_selects_move_whole_words_only():
    """16-bit and 8-bit elements pack 2 and 4 to a word: a select never splits one (no byte permutes)."""
    for c in SUITE.values():
        enc = c.encoding()
        for plan in (plan_store(c.q, enc, c.dtype, "sm_90"), plan_load(enc, c.q, c.dtype, "sm_90")):
            if plan.form == "select":
                per = 32 // plan.dtype.bits if plan.dtype.bits < 32 else 1
                assert all(regs % per == 0 for _, regs in plan.convert.stages), c.id


def _random_endpoint(seed: int):
    """(D, S, dtype): a random distributed layout of ``seed`` against one of SHARED's families."""
    rng = random.Random(1000 + seed)
    shared, dtype, shape = SHARED[seed % len(SHARED)]
    d = random_layout(rng, shape, rng.choice([1, 2, 4]), "sm_90", dtype)
    return d, _layouts("blocked", shared, dtype, shape, 4, 32)[1], dtype


@pytest.mark.parametrize("seed", range(24))
def test_random_layouts_with_a_select_run_exact(seed):
    """Random distributed layouts against every shared family: wherever the planner (or a forced select) picks
    registers by lane, the simulator places every element and counts the planned wavefronts."""
    d, s, dtype = _random_endpoint(seed)
    for make in (lambda f: plan_store(d, s, dtype, "sm_90", f), lambda f: plan_load(s, d, dtype, "sm_90", f)):
        try:
            plan = make("select")
        except LlgenError:
            continue
        assert plan.cost < make("direct").cost
        _check(plan)


def test_the_header_selects_with_constant_indices():
    case = SUITE["ep_mma_f32_128B_w4"]
    plan = plan_store(case.p, case.encoding(), case.dtype, "sm_90")
    text = emit(plan, "header", "ep")
    lines = [x.strip() for x in text.splitlines() if "pick0 ?" in x]
    assert len(lines) == plan.convert.selects == 128
    words = {int(x.split("[")[1].split("]")[0]) for x in lines}
    assert words == set(range(128))
    assert "const bool pick0 = ((lane >> 2) & 1u) != 0u;  // stage 0: registers r <-> r ^ 4" in text


def test_the_simulator_runs_the_select_that_lane_select_states():
    """The selects' lane map as the simulator runs it equals LaneSelect.source for every lane and register."""
    case = SUITE["tr_f32_vec1"]
    plan = plan_load(case.encoding(), case.q, case.dtype, "sm_90")
    assert plan.form == "select"
    sel = plan.convert
    src = np.arange(4 * 32 * sel.n_in).reshape(4, 32, sel.n_in)
    from llgen.verify.simulate import _select

    out = np.empty_like(src)
    _select(sel, src, out)
    for lane in range(32):
        assert [int(out[0, lane, r]) for r in range(sel.n_in)] == [
            int(src[0, lane, sel.source(r, lane)]) for r in range(sel.n_in)
        ]


def test_the_random_class_holds_selects():
    """The random pairs above are worth their time only if selects turn up among them."""
    found = 0
    for seed in range(0, 24, 3):
        d, s, dtype = _random_endpoint(seed)
        found += plan_store(d, s, dtype, "sm_90").form == "select"
        found += plan_load(s, d, dtype, "sm_90").form == "select"
    assert found >= 3


def test_a_tile_of_512_registers_a_thread_reaches_the_floor():
    """Lanes down the rows of a row-major 256x256 f32 tile, 512 registers a thread: a bounded search (combinations of
    at most two registers) still finds the selects that put every 16-byte access on distinct banks."""
    d, s = _layouts(
        "blocked:spt=1x1,tpw=32x1,wpc=4x1,order=0x1", "swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", "f32", (256, 256)
    )
    plan = plan_store(d, s, "f32", "sm_90")
    assert plan.form == "select" and plan.wavefronts == plan.floor and plan.access_bytes == 16
    _check(plan)


def test_the_simulator_moves_whole_words_as_the_text_does():
    """A select whose register mask splits a word (two f16 a word) cannot be printed: the text moves words. The
    simulator runs the words the text would move, so such a plan, built by hand, fails it; the emitter refuses it."""
    from llgen.core.dtypes import dtype
    from llgen.core.target import target
    from llgen.plan.endpoint import _direct, _Endpoint, shared_map

    case = SUITE["tr_f16_swizzled"]
    s, enc = shared_map(case.encoding(), case.q)
    end = _Endpoint("store", s, enc, dtype("f16"), target("sm_90"))
    q = with_lane_select(case.q, [1, 0, 0, 0, 0])
    access = _direct(end, q, "Q")
    sel = LaneSelect(case.q, q, end.dt, end.tgt, access.warps, ((1, 1),))
    plan = replace(access, dist=case.q, staging=q, convert=sel, cost=access.cost)
    assert not simulate_endpoint(plan).ok
    with pytest.raises(AssertionError, match="whole words"):
        emit(plan, "header", "bad")
