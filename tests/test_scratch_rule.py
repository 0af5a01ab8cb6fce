"""The scratch rule (llgen.plan.scratch): when a conversion may store into a buffer an earlier one used.

Two warp-local plans whose warps own other bytes of one buffer raced on the GPU when the second began with
__syncwarp (the bench's LOOP and STREAM of two pairs, 128x128 f16, on an H200). The simulator, which shares no
arithmetic with the rule, runs one plan after the other on one buffer and finds that race behind __syncwarp; behind
the barrier the rule picks it finds none. The headers spell the rule as compile-time tags; the C++ agrees with the
Python on every pair tried."""

from __future__ import annotations

import functools
import itertools

import pytest

from llgen.cases.suite import suite
from llgen.emit import emit, emit_bench
from llgen.plan import plan_conversion
from llgen.plan.benchshape import bench_shape, loop_scratch
from llgen.plan.scratch import entry_barrier, warp_regions
from llgen.plan.shared import Barrier
from llgen.randlayout.chains import raced_chains, warp_local_chains
from llgen.verify.simulate import chain_hazard


@pytest.fixture(scope="module")
def chains():
    return raced_chains() + warp_local_chains(4, 11)


@functools.cache  # three tests read them: planned once
def _warp_local_plans() -> tuple:
    out = []
    for name in ("warplocal", "core"):
        for case in suite(name):
            for a, b in ((case.src, case.dst), (case.dst, case.src)):
                try:
                    p = plan_conversion(a, b, case.dtype, path="shared")
                except Exception:  # noqa: BLE001 - a pair with no shared plan
                    continue
                if p.barrier == Barrier.WARP:
                    out.append(p)
    return tuple(out)


def test_chains_race_behind_syncwarp_and_not_behind_the_rules_barrier(chains):
    assert len(chains) == 6
    for label, fwd, bwd in chains:
        for first, second in ((fwd, bwd), (bwd, fwd)):
            assert entry_barrier(second, first) == Barrier.CTA, label
            assert chain_hazard(first, second, "warp"), label  # the old first barrier
            assert chain_hazard(first, second, entry_barrier(second, first).value) is None, label
        # each plan after itself: its warps own the same bytes, __syncwarp suffices (and nothing at all would not)
        assert entry_barrier(fwd, fwd) == Barrier.WARP and chain_hazard(fwd, fwd, "warp") is None, label
        assert chain_hazard(fwd, fwd, "none"), label


def test_the_rule_allows_syncwarp_only_where_the_simulator_finds_no_race():
    plans = _warp_local_plans()
    assert len(plans) >= 40
    allowed = 0
    for first, second in itertools.product(plans[::3], plans[::2]):
        if first.warps != second.warps:
            assert entry_barrier(second, first) == Barrier.CTA
            continue
        if entry_barrier(second, first) == Barrier.WARP:
            allowed += 1
            assert chain_hazard(first, second, "warp") is None, (first.src, second.src)
    assert allowed > len(plans[::3])  # more than the plans after themselves


def test_warp_regions_name_the_warp_of_every_access():
    """The rows are the owner map of the bytes each warp's own instructions touch (per the simulator's sweep)."""
    from llgen.verify.simulate import _warps_touching

    for p in _warp_local_plans()[::4]:
        r = warp_regions(p)
        touched = _warps_touching(p, p.detail.store, store=True) | _warps_touching(p, p.detail.load, store=False)
        for byte in range(0, len(touched), 7):
            if touched[byte]:
                assert touched[byte] == 1 << r.owner(byte), (byte, r)
    cta = plan_conversion(*_pair("b2bT_f16"), "f16", path="shared")
    assert cta.barrier == Barrier.CTA and warp_regions(cta) is None


def _pair(cid: str):
    case = next(c for c in suite("core") + suite("wide") if c.id == cid)
    return case.src, case.dst


def test_the_loop_gives_disagreeing_warp_local_plans_a_buffer_each(chains):
    label, fwd, bwd = chains[0]
    shape = loop_scratch(fwd, bwd)
    assert shape.two_buffers and shape.own_tags
    src = emit_bench(fwd, bwd, "t", bench_shape(fwd, bwd))
    assert "llgen::t_fwd::convert(a, b, smem + " in src and "llgen::t_fwd::scratch);" in src
    assert "llgen::t_bwd::convert(b, a, smem, llgen::t_bwd::scratch);" in src
    # STREAM keeps one buffer: each way follows the other
    assert "llgen::t_fwd::convert(a, b, smem, llgen::t_bwd::scratch);" in src


def test_the_header_tags_agree_with_the_rule_at_compile_time(chains):
    """static_asserts over every ordered pair of a few plans' headers, compiled on the CPU with the host shim: the
    C++ rule gives 1 (__syncwarp) exactly where entry_barrier says WARP, 2 where it says CTA, 0 after scratch_free."""
    from llgen.runtime import host

    plans = [p for _, f, b in chains[:3] for p in (f, b)] + list(_warp_local_plans()[:6])
    cta = plan_conversion(*_pair("b2bT_f16"), "f16", path="shared")
    plans.append(cta)
    names = [f"s{i}" for i in range(len(plans))]
    src = [emit(p, "header", n) for p, n in zip(plans, names, strict=True)]
    code = {Barrier.WARP: 1, Barrier.CTA: 2}
    for (p, n), (q, m) in itertools.product(zip(plans, names, strict=True), repeat=2):
        want = code[entry_barrier(q, p)]
        src.append(f"static_assert(llgen::scratch_entry_barrier<llgen::{m}::Scratch, llgen::{n}::Scratch>() == {want});")
    for m in names:
        src.append(f"static_assert(llgen::scratch_entry_barrier<llgen::{m}::Scratch, llgen::ScratchFree>() == 0);")
        src.append(f"static_assert(llgen::scratch_entry_barrier<llgen::{m}::Scratch, llgen::ScratchAny>() == 2);")
    host.compile("\n".join(src), "sm_90")


def test_chains_on_one_buffer_run_exactly_on_cpu_threads(chains):
    """The bench kernels of two random chains, emitted as gpu-check runs them (one buffer, each conversion naming the other
    as its last user), run on CPU threads and give NumPy's answer (the GPU run and its racecheck: bench/)."""
    from llgen.runtime import host
    from llgen.runtime.bench_kernels import one_buffer
    from llgen.runtime.check import BenchLaunch, check_bench

    cpu = [c for c in chains if c[1].dtype.name != "f16"]  # the CPU shim has no f16x2 add (the GPU run has)
    assert len(cpu) >= 2
    for label, fwd, bwd in cpu[:2]:
        shape = one_buffer(fwd, bwd)
        assert not shape.loop.two_buffers
        src = emit_bench(fwd, bwd, "c", shape)
        assert "llgen::c_bwd::convert(b, a, smem, llgen::c_fwd::scratch);" in src
        r = check_bench(host.compile(src, "sm_90"), fwd, bwd, "c", launch=BenchLaunch(tiles=3, grid=2), shape=shape)
        assert r.ok, (label, r.error, r.first_bad_tile)
