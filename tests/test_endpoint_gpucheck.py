"""gpu-check's shared-memory endpoints part (llgen.runtime.endpoint_gpucheck) and its ncu rows, on the CPU: the
cases drawn per seed, every family among them, their kernels run on CPU threads, the report from fake results,
and the endpoint check kernels' counters against the prediction."""

from __future__ import annotations

import json

import pytest

from llgen.core.errors import LlgenError
from llgen.runtime import endpoint_cases, endpoint_report, gpucheck, ncu
from llgen.runtime import endpoint_gpucheck as epc
from llgen.runtime.compile import CompileFailed
from llgen.runtime.endpoint_random import random_cases
from llgen.runtime.gpucheck_settings import PARTS, Settings
from llgen.runtime.gpucheck_state import State


def _key(c):
    return (c.label, c.family, c.shared, json.dumps(c.store.dist.to_dict()), c.store.wavefronts, c.load.wavefronts)


@pytest.fixture(scope="module")
def drawn():
    return list(random_cases(24, 7))


def test_random_cases_are_the_same_for_a_seed_and_differ_across_seeds(drawn):
    assert [_key(c) for c in list(random_cases(24, 7))] == [_key(c) for c in drawn]
    assert [_key(c) for c in list(random_cases(6, 8))] != [_key(c) for c in drawn[:6]]
    assert [_key(c) for c in list(random_cases(6, 7))] == [_key(c) for c in drawn[:6]]  # case i depends on (seed, i) only


def test_random_cases_cover_every_family_and_rank(drawn):
    assert len(drawn) == 24
    assert [c.family for c in drawn[:6]] == list(endpoint_cases.FAMILIES)
    assert {len(c.store.dist.shape) for c in drawn} == {1, 2, 3}
    for c in drawn:
        assert " " not in c.label  # the sanitizer worker's log lines are split on spaces
        assert c.cpu == (c.family == "amd_rotating_shared")
        assert c.store.target.name == ("gfx942" if c.cpu else "sm_90")
        assert c.store.direction == "store" and c.load.direction == "load"
    assert any(c.shared.startswith("JSON [") for c in drawn if c.family == "json_offsets")


def test_real_cases_hold_the_probe_families_buffers_and_amd():
    cases = list(endpoint_cases.real_cases(["mma"]))
    assert {c.family for c in cases} == {"swizzled", "nvmma", "padded_shared", "amd_rotating_shared"}
    assert sum(len(c.store.dist.shape) == 3 for c in cases) == len(endpoint_cases.BUFFERS)
    assert {c.store.target.name for c in cases if c.cpu} == {"gfx942"}


def test_cases_run_exact_on_cpu_threads(drawn, monkeypatch):
    real = epc.compile_endpoints
    monkeypatch.setattr(epc, "compile_endpoints", lambda items, _cpu: real(items, True))
    got = []
    res = epc.run_cases(drawn[:6], runs=1, seed=3, on_result=got.append)
    assert res == got and len(res) == 6
    assert all(r.ok and r.runs == 1 and r.not_run is None for r in res), [(r.label, r.error, r.mismatches) for r in res]
    assert [r.label for r in res] == [c.label for c in drawn[:6] if not c.cpu] + [c.label for c in drawn[:6] if c.cpu]


def test_a_batch_that_fails_to_compile_costs_only_its_bad_case(drawn, monkeypatch):
    bad_label = drawn[1].label

    class Module:
        pass

    def compile_endpoints(items, _cpu):
        if len(items) > 2:
            raise CompileFailed("batch")
        if items[0][1] is drawn[1].store:
            raise CompileFailed("error: bad case")
        if items[0][1] is drawn[2].store:
            raise LlgenError("the check kernel holds S in at most 48 KB.")
        return Module()

    monkeypatch.setattr(epc, "compile_endpoints", compile_endpoints)
    monkeypatch.setattr(epc, "run_endpoint", lambda _m, p, _n, _rng: ["1 of 8 slots differ"] if p is drawn[3].load else [])
    monkeypatch.setattr(epc, "round_trip", lambda *_: [])
    cases = [c for c in drawn[:5] if not c.cpu]
    res = {r.label: r for r in epc.run_cases(cases, runs=2, seed=1, on_result=lambda _: None)}
    assert res[bad_label].error.startswith("compile failed: error: bad case") and not res[bad_label].ok
    assert res[drawn[2].label].not_run == "the check kernel holds S in at most 48 KB." and res[drawn[2].label].ok
    assert res[drawn[3].label].mismatches == ["1 of 8 slots differ"] * 2 and res[drawn[3].label].runs == 2
    assert res[drawn[0].label].ok and res[drawn[0].label].runs == 2
    c = endpoint_report.counts(list(res.values()))
    assert (c["cases"], c["ok"], c["failed"], c["not_run"], c["mismatches"], c["errors"]) == (5, 2, 2, 1, 2, 1)


def test_run_cases_stops_between_batches_when_out_of_time(drawn, monkeypatch):
    monkeypatch.setattr(epc, "compile_endpoints", lambda *_: object())
    monkeypatch.setattr(epc, "run_endpoint", lambda *_: [])
    monkeypatch.setattr(epc, "round_trip", lambda *_: [])
    assert epc.run_cases(drawn, runs=1, seed=1, on_result=lambda _: None, out_of_time=lambda: True) == []
    gpu = [c for c in drawn if not c.cpu]
    taken, done = [], []

    def draws():
        for i in range(100):
            taken.append(i)
            yield gpu[i % len(gpu)]

    def stop():
        return len(done) >= epc.BATCH

    res = epc.run_cases(draws(), runs=1, seed=1, on_result=done.append, out_of_time=stop, compile_workers=1)
    assert len(res) == epc.BATCH and len(taken) == epc.BATCH + 1  # one case drawn past the deadline, none run
    taken.clear(), done.clear()
    res = epc.run_cases(draws(), runs=1, seed=1, on_result=done.append, out_of_time=stop, compile_workers=3)
    assert len(res) == 4 * epc.BATCH and len(taken) == 4 * epc.BATCH + 1  # the 3 batches compiled ahead still run


def test_endpoint_suite_cases_plan_a_store_from_p_and_a_load_into_q():
    cases, note = endpoint_cases.endpoint_suite_cases()
    assert cases and note == f"The endpoint suite: {len(cases)} cases (store from P, load into Q)."
    for c in cases:
        assert c.label.startswith("endpoint/") and c.family in endpoint_cases.FAMILIES and not c.cpu
        assert (c.store.direction, c.load.direction) == ("store", "load") and c.store.shared == c.load.shared


def _fake_results(drawn):
    res = [epc._result(c) for c in drawn[:4]]
    res[1].mismatches = ["round trip ep0s -> ep0l: 3 of 512 slots differ"]
    res[2].not_run = "the check kernel is over 48 KB."
    res[3].error = "launch failed: boom"
    return res


def test_the_endpoints_section_names_counts_families_failures_and_what_did_not_run(drawn):
    text = endpoint_report.section(
        _fake_results(drawn), ["The endpoint suite: 0 cases."], "Stopped at 4 of 9 cases (time budget)."
    )
    assert text.startswith("4 cases") and "1 exact, 2 failed (1 mismatches, 1 errors), 1 not run" in text
    assert "Stopped at 4 of 9" in text and "The endpoint suite: 0 cases." in text
    assert f"- {drawn[1].label}: round trip ep0s -> ep0l" in text and f"- {drawn[3].label}: launch failed: boom" in text
    assert f"- {drawn[2].label}: the check kernel is over 48 KB." in text
    for fam in endpoint_cases.FAMILIES[:4]:
        assert fam in text
    assert endpoint_report.section([], []) == "Not run."


def test_frame_wavefronts_count_warp_steps_of_the_byte_loops():
    assert ncu.frame_wavefronts(8192, 128) == 256  # 64 steps x 4 warps
    assert ncu.frame_wavefronts(100, 64) == 4  # bytes 0-63, 64-99: both warps twice (warp 1's lanes 4.. idle)
    assert ncu.frame_wavefronts(40, 64) == 2
    assert ncu.frame_wavefronts(16, 64) == 1  # warp 1 never in range
    assert ncu.frame_wavefronts(512, 256, 64) == 8  # 64-lane waves


def test_endpoint_counters_are_compared_with_plan_plus_byte_loops(drawn):
    st, ld = drawn[0].store, drawn[0].load
    frame = ncu.frame_wavefronts(st.smem_bytes, st.warps * 32)
    p = ncu.endpoint_prediction(st)
    assert (p["pred_st_wf"], p["pred_ld_wf"], p["plan_wf"]) == (st.wavefronts + frame, frame, st.wavefronts)
    q = ncu.endpoint_prediction(ld)
    assert (q["pred_st_wf"], q["pred_ld_wf"]) == (frame, ld.wavefronts)
    exact = {ncu.WF_ST: p["pred_st_wf"], ncu.WF_LD: p["pred_ld_wf"]}
    assert ncu.compare_launches(p, [exact, exact])["verdict"] == "match"
    off = {ncu.WF_ST: p["pred_st_wf"] + 2, ncu.WF_LD: p["pred_ld_wf"]}
    assert ncu.compare_launches(p, [off, off])["verdict"] == "MISMATCH"
    assert ncu.compare_launches(p, [off, exact])["verdict"] == "unstable"
    row = {**ncu.compare_launches(p, [off]), "kernel": "real0 store"}
    text = endpoint_report.ncu_section([row])
    assert "real0 store" in text and "MISMATCH" in text and str(p["pred_st_wf"] + 2) in text
    assert endpoint_report.ncu_section([]) == "Not run."


def test_gpu_check_report_has_the_endpoint_parts(drawn, tmp_path, monkeypatch):
    monkeypatch.delenv("OUT", raising=False)
    st = State(Settings(random=0, endpoints=4, budget=60, prefix=str(tmp_path / "gc")))
    st.device = {"name": "fake", "arch": "sm_90", "sms": 1, "driver": "0", "runtime": "none"}
    st.endpoint_results = _fake_results(drawn)
    p = ncu.endpoint_prediction(drawn[0].store)
    st.record["endpoint_ncu_rows"] = [{**ncu.compare_launches(p, []), "kernel": "real0 store", "group": "real"}]
    st.record["endpoint_ncu_left_out"] = ["real44: a gfx942 case (no ncu on CPU threads)"]
    st.record["endpoints"] = {"notes": ["The endpoint suite: 0 cases."], "stopped": ""}
    st.part("endpoints", "FAIL", "4 of 4 cases")
    data = json.loads((tmp_path / "gc.json").read_text())
    assert data["parts"]["endpoints"]["status"] == "FAIL" and len(data["endpoint_results"]) == 4
    assert data["endpoint_results"][1]["ok"] is False and data["endpoint_results"][2]["not_run"]
    text = (tmp_path / "gc.md").read_text()
    assert "## Shared-memory endpoints" in text and "## Endpoint wavefronts (Nsight Compute)" in text
    assert "not measured" in text and "Not measured: real44" in text and "--endpoints 4" in text


def test_endpoints_is_a_part_to_skip():
    assert "endpoints" in PARTS
    with pytest.raises(LlgenError, match=r"cannot skip x: the parts are correctness, endpoints, ncu, endpoint-ncu, memcheck"):
        gpucheck.main(Settings(skip=frozenset({"x"})))


def _state(tmp_path, monkeypatch, **kw):
    monkeypatch.delenv("OUT", raising=False)
    st = State(Settings(random=0, runs=1, budget=600, prefix=str(tmp_path / "gc"), **kw))
    st.device = {"name": "fake", "arch": "sm_90", "sms": 1, "driver": "0", "runtime": "none"}
    return st


def test_the_endpoints_part_runs_its_cases_and_stops_at_its_slot(drawn, tmp_path, monkeypatch):
    real = epc.compile_endpoints
    monkeypatch.setattr(epc, "compile_endpoints", lambda items, _cpu: real(items, True))
    monkeypatch.setattr(epc, "all_cases", lambda n, _seed, notes: notes.append("no endpoint suite") or iter(drawn[:n]))
    st = _state(tmp_path, monkeypatch, endpoints=3)
    st.begin(1, 1.0)
    gpucheck.part_endpoints(st)
    part = st.record["parts"]["endpoints"]
    assert part["status"] == "PASS" and part["counts"]["cases"] == 3 and st.record["endpoints"]["notes"] == ["no endpoint suite"]
    st = _state(tmp_path, monkeypatch, endpoints=3)
    st.slot = 0  # the slot is spent before the first case
    gpucheck.part_endpoints(st)
    part = st.record["parts"]["endpoints"]
    # was FAIL: a part the budget cut short is not finished, not failed (the stop is still said, in the report too)
    assert part["status"] == "INCOMPLETE" and part["detail"].startswith("not finished: 0 cases checked")
    assert "Stopped after 0 cases (time budget)" in st.record["endpoints"]["stopped"]


def test_ncu_rows_of_endpoints_carry_their_case_and_verdict(drawn, tmp_path, monkeypatch):
    cases = [c for c in drawn if not c.cpu][:2]
    monkeypatch.setattr(endpoint_cases, "ncu_cases", lambda: (cases, ["real/x: a gfx942 case (no ncu on CPU threads)"]))

    def measure(items, source, timeout, _log_dir, _log):
        ref, path = source.split()
        assert ref == "llgen.runtime.endpoint_gpucheck:load_items" and timeout >= 20
        assert [(n, p.to_json()) for n, p in epc.load_items(path)] == [(n, p.to_json()) for n, p in items]
        rows = {}
        for n, p in items:
            pred = ncu.endpoint_prediction(p)
            meas = {ncu.WF_ST: pred["pred_st_wf"], ncu.WF_LD: pred["pred_ld_wf"] + (n == "ep1l")}
            rows[n] = ncu.compare_launches(pred, [meas, meas])
        return {"rows": rows, "metrics": [], "rc": 0, "timed_out": False, "seconds": 1.0, "out": ""}

    monkeypatch.setattr(gpucheck, "measure_endpoints", measure)
    st = _state(tmp_path, monkeypatch)
    gpucheck.part_endpoint_ncu(st)
    part = st.record["parts"]["endpoint-ncu"]
    assert part["status"] == "FAIL"
    assert (
        part["detail"] == "3/4 endpoint check kernels match plan + byte loops on every launch (2 cases, 2 launches each, 1.0 s)"
    )
    rows = st.record["endpoint_ncu_rows"]
    assert [r["kernel"] for r in rows] == [f"{c.label} {k}" for c in cases for k in ("store", "load")]
    assert [r["verdict"] for r in rows] == ["match", "match", "match", "MISMATCH"]
    assert st.record["endpoint_ncu_left_out"] == ["real/x: a gfx942 case (no ncu on CPU threads)"]


def first_case_items():
    """The ncu worker's source in test_ncu_worker_launches_every_endpoint_kernel."""
    return epc.kernel_items(list(random_cases(1, 7)))


def test_ncu_worker_launches_every_endpoint_kernel(monkeypatch, capsys):
    from llgen.runtime import endpointcheck

    real = endpointcheck.compile_endpoints
    monkeypatch.setattr(endpointcheck, "compile_endpoints", lambda items, **_: real(items, True))
    launched = []
    monkeypatch.setattr(endpointcheck, "run_endpoint", lambda _m, p, n, _rng: launched.append((n, p.direction)) or [])
    assert ncu.endpoint_worker("test_endpoint_gpucheck:first_case_items") == 0
    assert launched == [("ep0s", "store")] * ncu.LAUNCHES + [("ep0l", "load")] * ncu.LAUNCHES
    assert capsys.readouterr().out.splitlines() == ["worker: ep0s_store", "worker: ep0l_load"]
