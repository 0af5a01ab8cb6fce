"""Both objectives on a machine without a GPU: the latency objective's pick is a variant of the bench like the others, every
variant carries both models' predictions, the report and targets read both objectives, and a variant whose plans hold
more registers than a thread has is not compiled unless it is a pick."""

from __future__ import annotations

import types
from types import SimpleNamespace

import pytest

from llgen.cases.suite import _parsed, warplocal
from llgen.plan.explain import to_json
from llgen.plan.variants import LATENCY_PICK, PICK, plan_cost, plan_latency, variant_table
from llgen.runtime.bench import measure, report, rules, targets


def _warplocal(cid: str):
    return next(c for c in warplocal() if c.id == cid)


@pytest.mark.parametrize(
    "cid,holder",
    [("wl1_b2bT_f16", PICK), ("wl1_b2dotA_i8", "shared_vec"), ("wl1_mma2dotA_f32", "shared")],
)
def test_the_latency_pick_is_a_variant_kept_once_with_the_kernels_it_shares(cid, holder):
    """Where both objectives pick the same kernels (most cases), the latency pick is the pick's same_as; where the
    latency model picks the other path, it is that forced alternative's."""
    vs, skipped = variant_table(_warplocal(cid), "sm_90", baselines=False)
    (v,) = [v for v in vs if LATENCY_PICK in (v.name, *v.same_as)]
    assert v.name == holder and v.is_pick and skipped[LATENCY_PICK] == f"the same kernels as {holder}"
    assert v.fwd.path == min(to_json(v.fwd)["latencies"].items(), key=lambda kv: kv[1])[0]


def test_each_plan_reports_both_predictions_as_its_json_does():
    vs, _ = variant_table(_warplocal("wl1_b2dotA_i8"), "sm_90", baselines=False)
    for v in vs:
        for p in (v.fwd, v.bwd):
            js = to_json(p)
            assert plan_cost(p) == js["costs"][p.path] and plan_latency(p) == js["latencies"][p.path]


def test_a_variant_over_the_registers_a_thread_has_is_not_compiled_unless_it_is_a_pick(monkeypatch):
    """The slow case of too many registers: 128x128 f16 from an mma v2 B operand with warps [4, 1] (every element on all four
    warps) to rows of 16: its plans hold 256 registers a thread. The pick (also the latency pick) is compiled; the
    forced vector path is a skipped row that says why, before any source is emitted; the pick's STREAM is built at
    its own tiles a step only."""
    (case,) = _parsed(
        [("b_4x1", "f16", (128, 128), 4, "dot:op=1,k_width=2,parent=(mma:wpc=4x1)", "blocked:spt=1x16,tpw=8x4,order=1x0", "")]
    )
    vs, skipped = variant_table(case, "sm_90", baselines=False)
    assert [v.name for v in vs] == [PICK, "shared_vec", "llgen_free"] and skipped[LATENCY_PICK] == "the same kernels as llgen"
    emitted, compiled, lones = [], {}, []
    monkeypatch.setattr(measure, "emit_bench", lambda f, *_: emitted.append(f) or "source")
    monkeypatch.setattr(
        measure, "compile_all", lambda sources, _one_cta, lone: compiled.update(sources) or lones.append(lone) or {}
    )
    res = {"variants": {}, "skipped": {}}
    m = types.SimpleNamespace(case=case, measures={"stream"}, launches={})
    measure.run_variants(m, vs, res, False, lambda _: None)
    assert list(compiled) == [PICK] and emitted == [vs[0].fwd] and lones == [{}]  # no LOOP measured: no one-CTA build
    assert res["skipped"]["llgen_free"].startswith("not run: its plans hold 256 registers")
    why = res["skipped"]["shared_vec"]
    assert why.startswith(
        "not run: its plans hold 256 registers a thread at their peak, over the 255 a thread has, and NVRTC takes minutes"
    )
    assert why.endswith(
        f"(the model: {plan_cost(vs[1].fwd) + plan_cost(vs[1].bwd):.0f} cycles a round trip, one CTA "
        f"{plan_latency(vs[1].fwd) + plan_latency(vs[1].bwd):.0f}; the pick {plan_cost(vs[0].fwd) + plan_cost(vs[0].bwd):.0f}, "
        f"{plan_latency(vs[0].fwd) + plan_latency(vs[0].bwd):.0f})"
    )


def _report() -> dict:
    """A warplocal report as the device would give it, numbers made up: wl_a's picks agree and beat Triton both
    ways; wl_b's latency pick is the forced shared path, 10% slower one CTA than the pick's shuffles and than
    Triton."""

    def row(path, loop, lat, cost, lat_pred, **extra):
        return {"path": path, "loop_per_sm_ns": loop, "loop_lat_ns": lat, "cost_pred": cost, "lat_pred": lat_pred} | extra

    def case(cid, variants):
        return {"id": cid, "suite": "warplocal", "variants": variants, "skipped": {}}

    return {
        "info": {"device": "NVIDIA H100 80GB HBM3", "sms": 132, "nvidia_smi": "580, 1980 MHz, 1980 MHz, 2619 MHz"},
        "measures": ["loop"],
        "cases": [
            case(
                "wl_a",
                {
                    "llgen": row("shared/shared", 20.0, 200.0, 64, 240, same_as=["shared", "llgen_latency"], regs=40),
                    "shuffle": row("shuffle/shuffle", 40.0, 300.0, 128, 640),
                    "triton": {"path": "triton", "loop_per_sm_ns": 22.0, "loop_lat_ns": 210.0},
                },
            ),
            case(
                "wl_b",
                {
                    "llgen": row("shuffle/shuffle", 30.0, 200.0, 96, 532),
                    "shared": row("shared/shared", 33.0, 220.0, 128, 386, same_as=["llgen_latency"], regs=48),
                    "triton": {
                        "path": "triton",
                        "loop_per_sm_ns": 31.0,
                        "loop_lat_ns": 205.0,
                        "regs": 40,
                        "loop_lat_rounds_ns": [205.0, 204.0, 206.0, 205.0, 205.0],
                    },
                },
            ),
        ],
    }


def test_the_rules_find_each_objectives_pick_and_its_gap():
    a, b = _report()["cases"]
    assert rules.pick_row(a, "latency")[0] == PICK and rules.pick_row(b, "latency")[0] == "shared"
    assert rules.best_alternative(b, "latency") == ("llgen", 200.0) and rules.pick_gap(b, "latency") == pytest.approx(1.1)
    assert rules.best_alternative(b) == ("shared", 33.0) and rules.pick_gap(b) == 1.0
    assert rules.latency_ratio(a) == pytest.approx(1.05) and rules.latency_ratio(b) == pytest.approx(205 / 220)
    assert rules.pick_row({"variants": {"llgen": {}}}, "latency") == (None, {})  # a report without the latency pick


def test_the_latency_targets_name_each_miss_with_what_was_measured():
    lines = dict((text.split(":")[0], (status, text)) for status, text in targets.targets_wide(_report(), 1980))
    status, text = lines["one-CTA latency, Triton / llgen's latency pick >= 1.0 on every case"]
    assert status == "MISSED" and text.endswith(
        "wl_b 0.932 (llgen's llgen measured 200.0 ns: shared shared/shared predicted 386 cycles, llgen shuffle/shuffle "
        "532; registers 48 vs Triton's 40) below"
    )
    status, text = next(v for k, v in lines.items() if k.startswith("the latency pick"))
    assert status == "MISSED" and "1/2, worst wl_b 1.100 (over 2%: wl_b 1.100 (shared shared/shared predicted 386" in text
    status, text = next(v for k, v in lines.items() if k.startswith("the throughput pick"))
    assert status == "met" and "2/2" in text
    core = {**_report(), "cases": [_report()["cases"][0]]}
    assert [s for s, t in targets.targets(core, 1980) if t.startswith(("one-CTA", "the throughput", "the latency"))] == [
        "met",
        "met",
        "met",
    ]


def test_the_report_lists_both_objectives_per_case_and_flags_the_latency_models_miss(tmp_path):
    report.write_report(_report(), str(tmp_path))
    text = (tmp_path / "report.md").read_text()
    assert "| wl_a | shared/shared | 20.0 | 22.0 | 1.10 | shuffle 40.0 | 1.000 |" in text  # LOOP, as before
    assert "| wl_a | llgen | shared/shared | 200.0 | 210.0 | 1.05 | shuffle 300.0 | 1.000 | 240 |" in text
    assert "| wl_b | shared | shared/shared | 220.0 | 205.0 | 0.93 | llgen 200.0 | 1.100 | 386 |" in text
    assert "wl_b: the latency model picked shared/shared but llgen (shuffle/shuffle) measured 200.0 vs 220.0 ns one CTA" in text
    assert "- wl_b / shared: path shared/shared, LOOP 33.0, lat 220.0, STREAM -, regs 48, model 128, one CTA 386" in text


def test_free_pairing_has_its_own_latency_target():
    """Where the run timed a free-pairing variant, the targets hold its one-CTA LOOP to Triton's on its own line, and a
    latency pick below Triton says what free pairing measured."""
    report = _report()
    wl_b = report["cases"][1]["variants"]
    wl_b["llgen_latency_free"] = {"path": "shared/shared", "loop_lat_ns": 180.0}
    lines = dict((text.split(":")[0], (status, text)) for status, text in targets.targets_wide(report, 1980))
    status, text = lines[
        "one-CTA latency with free pairing (docs/design.md §3.4), Triton / llgen's fastest free-paired variant >= 1.0 on the 1 cases it changes"
    ]
    assert status == "met" and text.endswith("lowest 1.139")
    status, text = lines["one-CTA latency, Triton / llgen's latency pick >= 1.0 on every case"]
    assert "with free pairing (llgen_latency_free) 180.0 ns, 1.139x Triton" in text
    wl_b["llgen_latency_free"]["loop_lat_ns"] = 210.0
    lines = dict((text.split(":")[0], (status, text)) for status, text in targets.targets_wide(report, 1980))
    status, text = next(v for k, v in lines.items() if k.startswith("one-CTA latency with free pairing"))
    assert status == "MISSED" and text.endswith("wl_b 0.976 below")


def test_free_pairing_target_reads_its_own_alternating_rounds(monkeypatch):
    """The free-paired variant and Triton run alternating rounds of their own: the free variant's median becomes its
    one-CTA time, Triton's rounds sit aside (its latency-pick figure untouched), and the target reads that pair."""
    from llgen.runtime.bench import timing

    times = iter([100.0, 130.0, 131.0, 101.0, 99.0, 129.0, 128.0, 100.0, 102.0, 132.0])
    monkeypatch.setattr(timing, "per_sm_ns", lambda *_a, **_k: next(times))
    results = {"llgen_latency_free": {"loop_lat_ns": 120.0}, "triton": {"loop_lat_ns": 125.0}}
    run = SimpleNamespace(sms=1, rep=1)
    timing.alternate(results, {"llgen_latency_free": None, "triton": None}, run, ("llgen_latency_free", "triton"), True, "free")
    assert results["llgen_latency_free"]["loop_lat_ns"] == 100.0
    assert results["triton"]["loop_lat_ns"] == 125.0 and results["triton"]["loop_lat_free_rounds_ns"] == [
        130.0,
        131.0,
        129.0,
        128.0,
        132.0,
    ]
    report = _report()
    report["cases"][1]["variants"] |= {"llgen_latency_free": results["llgen_latency_free"]}
    report["cases"][1]["variants"]["triton"]["loop_lat_free_rounds_ns"] = results["triton"]["loop_lat_free_rounds_ns"]
    lines = dict((text.split(":")[0], (status, text)) for status, text in targets.targets_wide(report, 1980))
    status, text = next(v for k, v in lines.items() if k.startswith("one-CTA latency with free pairing"))
    assert status == "met" and text.endswith("lowest 1.300"), text
