"""Conversions other people wrote, each the representative of a class of bugs: replicas held by other warps,
scratch rounds, tiles over 48 KB, and layouts outside the distributed definition. Each is planned by every path
it allows, simulated (data, wavefronts and barriers), replayed from its JSON alone, and its emitted text run on
CPU threads."""

from __future__ import annotations

import pytest

from llgen import LinearLayout, LlgenError, plan_conversion
from llgen.cases.suite import regressions
from llgen.emit import dynamic_smem, emit
from llgen.runtime import host
from llgen.runtime.check import Batching, CheckRuns, check_many
from llgen.spec import Where, parse_layout
from llgen.verify.replay import ReplayError, replay
from llgen.verify.simulate import SimError, simulate

CASES = {c.id: c for c in regressions()}


def _pair(name):
    c = CASES[name]
    return c.src, c.dst, c.dtype


def _plans(a, b, dt, **options):
    """The default plan and every forced path the conversion allows, with and without ldmatrix/stmatrix."""
    out = []
    for path in (None, "shuffle", "shared"):
        for matrix in (True, False):
            try:
                out.append(plan_conversion(a, b, dt, "sm_90", path=path, matrix=matrix, **options))
            except LlgenError as e:
                assert "cannot" in str(e), str(e)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_reproducer_is_exact_on_every_path(name):
    a, b, dt = _pair(name)
    plans = _plans(a, b, dt)
    assert any(p.path == "shared" for p in plans)
    for p in plans:
        assert simulate(p).ok, p.explain()
        replay(p.to_json())


def test_replicated_warps_wait_at_a_cta_barrier():
    """The store runs in one replica warp; warps 1..3 read what warp 0 wrote, so __syncwarp is not enough."""
    a, b, dt = _pair("broadcast_dot_1x64_f16")
    p = plan_conversion(a, b, dt, "sm_90")
    doc = p.to_json()["shared"]
    assert doc["store_warps"] == [0] and doc["barrier"] == "__syncthreads" and not p.detail.warp_sync


def test_the_simulator_and_the_replay_catch_a_missing_cta_barrier(monkeypatch):
    """The rule before the fix (same warp bases, hence __syncwarp) on the broadcast case: both oracles object."""
    from llgen import plan as planner
    from llgen.plan import shared

    a, b, dt = _pair("broadcast_dot_1x64_f16")
    monkeypatch.setattr(shared, "reads_own_writes", lambda a, b: tuple(a.warp) == tuple(b.warp))
    # planned afresh, not remembered: neither the option nor its tile candidates from an earlier test's plans
    monkeypatch.setattr(planner, "_shared_option", planner._shared_option.__wrapped__)
    monkeypatch.setattr(shared, "_best_with_tiles", shared._best_with_tiles.__wrapped__)
    p = plan_conversion(a, b, dt, "sm_90")
    assert p.detail.warp_sync
    with pytest.raises(SimError, match="__syncwarp"):
        simulate(p)
    with pytest.raises(ReplayError, match="__syncwarp"):
        replay(p.to_json())


@pytest.mark.parametrize("budget,rounds", [(None, 2), (64 * 1024, 4), (32 * 1024, 8), (16 * 1024, 16)])
def test_rounds_json_names_tensor_coordinates(budget, rounds):
    a, b, dt = _pair("rounds_256x256_f32")
    p = plan_conversion(a, b, dt, "sm_90", smem_budget=budget)
    doc = p.to_json()["shared"]
    assert doc["rounds"] == rounds == 1 << len(doc["round_bases"])
    assert all(max(v) < 256 for v in doc["offset_bases"] + doc["round_bases"])
    replay(p.to_json())


def test_a_64kb_tile_is_one_piece_of_dynamic_shared_memory():
    a, b, dt = _pair("transpose_128x128_f32")
    p = plan_conversion(a, b, dt, "sm_90", path="shared")
    assert p.detail.rounds == 1 and p.detail.scratch_bytes == 64 * 1024
    assert dynamic_smem(p) == 64 * 1024
    kernel, header = emit(p, "kernel", "t"), emit(p, "header", "t")
    assert "LLGEN_DYNAMIC_SCRATCH(smem)" in kernel and "cudaFuncSetAttribute" in kernel
    assert "kSmemOptIn = true" in header
    with pytest.raises(LlgenError, match="cannot be split to fit the 49152-byte budget"):  # no common register bit
        plan_conversion(a, b, dt, "sm_90", path="shared", smem_budget=48 * 1024)
    gfx = parse_layout("blocked:spt=1x4,tpw=1x64,wpc=4x1,order=1x0", (128, 128), 4, 64, where=Where(dtype_bytes=4))
    gfx_t = parse_layout("blocked:spt=4x1,tpw=64x1,wpc=1x4,order=0x1", (128, 128), 4, 64, where=Where(dtype_bytes=4))
    assert plan_conversion(gfx, gfx_t, "f32", "gfx942").detail.rounds == 1  # 64 KB of LDS


@pytest.mark.parametrize("name", sorted(CASES))
def test_reproducer_text_runs_exactly_on_cpu_threads(name):
    a, b, dt = _pair(name)
    items = [(f"{name}_{i}", p) for i, p in enumerate(_plans(a, b, dt)) if not _uses_matrix(p)]
    if name == "rounds_256x256_f32":
        items.append((f"{name}_r8", plan_conversion(a, b, dt, "sm_90", matrix=False, smem_budget=32 * 1024)))
    results = check_many(items, how=CheckRuns(tiles=3, runs=1, seed=5), compiler=host.compile, sms=1, batching=Batching(8))
    bad = [f"{r.label}: {r.error or ''} {r.first_bad or ''} {r.first_bad_tile or ''}" for r in results if not r.ok]
    assert not bad, "\n".join(bad)


def _uses_matrix(p) -> bool:
    return p.path == "shared" and (p.detail.store.matrices or p.detail.load.matrices)


def _linear(register, lane):
    return LinearLayout.from_bases({"register": register, "lane": lane, "warp": []}, {"dim0": 16, "dim1": 32})


def test_layouts_outside_the_distributed_definition_are_refused_in_one_sentence():
    good = _linear([[0, 1], [0, 2], [1, 0], [2, 0]], [[0, 4], [0, 8], [0, 16], [4, 0], [8, 0]])
    several_bits = _linear([[0, 1], [0, 3], [1, 0], [2, 0]], [[0, 4], [0, 8], [0, 16], [4, 0], [8, 0]])
    repeated = _linear([[0, 1], [0, 2], [1, 0], [2, 0], [0, 2]], [[0, 4], [0, 8], [0, 16], [4, 0], [8, 0]])
    not_onto = _linear([[0, 1], [0, 1], [1, 0], [2, 0]], [[0, 4], [0, 8], [0, 16], [4, 0], [8, 0]])
    for bad, words in ((several_bits, "several bits"), (repeated, "repeats"), (not_onto, "not surjective")):
        for a, b in ((good, bad), (bad, good)):
            for path in (None, "shuffle", "shared", "registers"):
                with pytest.raises(LlgenError) as e:
                    plan_conversion(a, b, "f16", "sm_90", path=path)
                msg = str(e.value)
                assert words in msg and msg.endswith(".") and "\n" not in msg
