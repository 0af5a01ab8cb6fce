"""Two-step endpoints whose staging layout Q swaps D's registers for D's lanes one pair at a time (llgen.plan.chain):
the 8-bit B operand read from an N-major buffer, which no ldmatrix.trans serves for bytes, takes 8-byte loads and
shuffle rounds that each move whole words, where the direct plan loads byte by byte. Proven by the simulator on the
suite's cases and on random endpoints, and by the emitted text on CPU threads."""

from __future__ import annotations

from dataclasses import replace

import pytest

from llgen.cases.mixed import CASES
from llgen.cases.suite import suite
from llgen.plan.chain import Chain, steps_of
from llgen.plan.endpoint import _Endpoint, _swap_chain, plan_load, plan_store, shared_map
from llgen.runtime.endpoint_random import random_cases
from llgen.runtime.endpointcheck import check_endpoint
from llgen.verify.simulate_endpoint import simulate_endpoint

BYTES_B = [c for c in CASES if c.operand == "mma2B" and not c.kmajor and c.dtype == "i8"]


def _endpoint(plan) -> _Endpoint:
    s, enc = shared_map(plan.shared, plan.dist)
    return _Endpoint(plan.direction, s, enc, plan.dtype, plan.target)


@pytest.mark.parametrize("case", BYTES_B, ids=lambda c: c.id)
def test_8_bit_b_operands_from_n_major_buffers_take_the_chain_as_their_two_step_plan(case):
    direct = plan_load(case.shared(), case.layout(), "i8", "sm_90", form="direct")
    staged = plan_load(case.shared(), case.layout(), "i8", "sm_90", form="two_step")
    assert isinstance(staged.convert, Chain) and len(staged.convert.steps) >= 2
    assert direct.side.width == 1 and staged.side.width >= 4 and staged.cost < direct.cost / 1.5
    assert all(s.path == "shuffle" for s in staged.convert.steps)
    assert simulate_endpoint(staged).errors == []
    assert plan_load(case.shared(), case.layout(), "i8", "sm_90").convert is None  # the pick stays direct until measured


def test_the_endpoint_suites_two_step_variants_take_the_chain_for_8_bit_b_operands():
    picked = {}
    for c in suite("endpoint"):
        load = plan_load(c.encoding(), c.q, c.dtype, "sm_90", form="two_step")
        picked[c.id] = isinstance(load.convert, Chain)
        assert simulate_endpoint(load).errors == [], c.id
    assert picked["op_B_i8_nvmma128"] and picked["op_B_f8_swizzled"]


@pytest.mark.parametrize("direction", ["store", "load"])
def test_chains_run_exactly_on_cpu_threads(direction):
    case = BYTES_B[0]
    d, s = case.layout(), case.shared()
    base = plan_store(d, s, "i8", "sm_90", "direct") if direction == "store" else plan_load(s, d, "i8", "sm_90", "direct")
    chained = _swap_chain(_endpoint(base), d)
    assert chained is not None and len(steps_of(chained.convert)) >= 2
    chained = replace(chained, tile_io=base.tile_io)  # how the check kernels move D to and from global memory
    assert simulate_endpoint(chained).errors == []
    assert check_endpoint(chained, name=f"chain_{direction}", cpu=True, seed=9) == []


def test_random_endpoints_simulate_exactly_through_their_chains():
    """Every random endpoint whose S starts on D's lanes, stored and loaded through the chain (forced)."""
    n = 0
    for case in random_cases(60, 5):
        for plan in (case.store, case.load):
            if plan.target.lang != "cuda":
                continue
            chained = _swap_chain(_endpoint(plan), plan.dist)
            if chained is None:
                continue
            n += 1
            assert simulate_endpoint(chained).errors == [], case.label
    assert n >= 10


def test_the_simulator_sees_a_chain_that_does_not_lead_from_q_to_d():
    case = BYTES_B[0]
    staged = plan_load(case.shared(), case.layout(), "i8", "sm_90", form="two_step")
    steps = staged.convert.steps
    for forged in (Chain(tuple(reversed(steps))), Chain(steps[:1])):
        errors = simulate_endpoint(replace(staged, convert=forged)).errors
        assert any("do not lead from Q to D" in e for e in errors)
