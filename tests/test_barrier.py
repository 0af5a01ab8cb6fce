"""The barrier is decided once, in the plan (plan.barrier): `llgen plan`, its JSON and the emitted code all say the
same, on every target."""

from __future__ import annotations

import pytest

from llgen.cases.suite import suite
from llgen.cli.examples import _wave64
from llgen.core.errors import LlgenError
from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.plan.cost import BARRIER_CLK
from llgen.plan.shared import Barrier
from llgen.randlayout import random_cases

TARGETS = ("sm_80", "sm_90", "gfx90a", "gfx942")
CALLS = {"__syncwarp();": Barrier.WARP, "group_sync<Barrier>();": Barrier.CTA}


def _suite_plans(tgt: str) -> list:
    plans = []
    for name in ("core", "regressions"):
        for case in suite(name):
            a, b = (case.src, case.dst) if tgt.startswith("sm_") else (_wave64(case.src), _wave64(case.dst))
            if a is None or b is None:
                continue
            for path in (None, "shared"):
                try:
                    plans.append(plan_conversion(a, b, case.dtype, tgt, path))
                except LlgenError:
                    pass  # no shared plan fits, or the layouts do not run here
    return plans


ENTRY = "  if constexpr (kEntry == 2) group_sync<Barrier>();\n"  # the scratch rule's first barrier (plan/scratch.py)


def _emitted_barriers(text: str) -> set[Barrier]:
    """The barriers between a plan's stores and loads: every call but the scratch rule's first one, which depends on
    the buffer's last user (the group's barrier unless the caller names a warp-local one with the same regions)."""
    body = text.replace(ENTRY, "")
    assert (ENTRY in text) == ("group_sync<Barrier>()" in text)  # a shared plan always has it
    return {kind for call, kind in CALLS.items() if call in body}


@pytest.mark.parametrize("tgt", TARGETS)
def test_plan_json_and_emitted_code_agree_on_the_barrier(tgt):
    plans = _suite_plans(tgt) + [p for _, p in random_cases(100, 25, tgt)]
    kinds = set()
    for p in plans:
        kinds.add(p.barrier)
        said = [line for line in p.explain().splitlines() if line.startswith("shared memory:")]
        if p.barrier == Barrier.NONE:
            assert not said and "shared" not in p.to_json()
        else:
            assert said[0].endswith(f"{p.barrier.call} between store and load"), said
            assert p.to_json()["shared"]["barrier"] == p.barrier.call
        want = {p.barrier} | ({p.fallback.barrier} if p.fallback else set())
        assert _emitted_barriers(emit(p, "header", "x")) == want - {Barrier.NONE}, p.explain()
    assert kinds == ({Barrier.NONE, Barrier.WARP, Barrier.CTA} if tgt.startswith("sm_") else {Barrier.NONE, Barrier.CTA})


def test_hip_synchronises_a_one_warp_transpose_with_the_group():
    """A one-warp gfx942 transpose reads only its own words, as on CUDA, yet HIP synchronises the group: the
    explainer once said __syncwarp there while the code called __syncthreads."""
    case = next(c for c in suite("core") if c.id == "t16x32")
    cuda = plan_conversion(case.src, case.dst, case.dtype, "sm_90", "shared")
    hip = plan_conversion(_wave64(case.src), _wave64(case.dst), case.dtype, "gfx942", "shared")
    assert cuda.detail.warp_sync and hip.detail.warp_sync
    assert (cuda.barrier, hip.barrier) == (Barrier.WARP, Barrier.CTA)
    assert "__syncthreads between store and load" in hip.explain()
    # the cost model charges the barriers each target runs: HIP two a round, CUDA's __syncwarp nothing
    for p, barriers in ((cuda, 0), (hip, 2 * hip.detail.rounds)):
        wavefronts = p.detail.predicted_store_wavefronts + p.detail.predicted_load_wavefronts
        assert dict(p.costs)["shared"] == wavefronts + barriers * BARRIER_CLK
