"""The warplocal suite: one- and four-warp conversions whose data never leaves a warp, from the families
Triton's Gluon tests pair, each planned by every variant `llgen check` runs and by both objectives, and simulated
exactly (llgen.verify.simulate) with its JSON replayed."""

from __future__ import annotations

import pytest

from llgen.cases.suite import suite
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.plan import plan_conversion
from llgen.plan.hw import Hw
from llgen.plan.shuffle import warp_local
from llgen.plan.variants import CHECKED
from llgen.verify.replay import replay
from llgen.verify.simulate import simulate

CASES = suite("warplocal")


def test_the_suite_spans_warps_types_shapes_and_families():
    assert len(CASES) >= 24 and len({c.id for c in CASES}) == len(CASES)
    assert {c.warps for c in CASES} == {1, 4}
    assert {to_dtype(c.dtype).bits for c in CASES} == {8, 16, 32}
    assert all(64 * 64 <= c.shape[0] * c.shape[1] <= 128 * 128 for c in CASES)
    notes = " ".join(c.id for c in CASES)
    for family in ("mma", "dot", "slice", "swap", "b2b"):
        assert family in notes, family


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_case_stays_in_its_warps_and_moves_data(case):
    a, b = Hw.of(case.src), Hw.of(case.dst)
    assert warp_local(a, b) and warp_local(b, a)
    assert plan_conversion(case.src, case.dst, case.dtype, "sm_90").path in ("shuffle", "shared")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_case_by_every_variant_and_objective_simulates_exactly(case):
    options = [kw for _, kw in CHECKED] + [{"objective": "latency"}]
    seen = set()
    for s, d in ((case.src, case.dst), (case.dst, case.src)):
        for kw in options:
            try:
                p = plan_conversion(s, d, case.dtype, "sm_90", **kw)
            except LlgenError as e:
                assert "shuffle path cannot" not in str(e), (case.id, kw, e)  # warp-local: shuffles always can
                continue
            key = (p.path, p.detail, s is case.src)
            if key in seen:
                continue
            seen.add(key)
            r = simulate(p)
            assert r.ok, (case.id, kw, r.first_mismatch())
            if p.path != "shuffle":  # a shuffle's JSON lists every thread of every round
                replay(p.to_json())
    assert {k[0] for k in seen} >= {"shuffle", "shared"}
