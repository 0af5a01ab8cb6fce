"""The models against the GPU (throughput and one-CTA latency): tests/data/calibration.json holds, per case and variant, the LOOP
time a bench run measured and, where it ran one, the one-CTA LOOP time; the cost model (src/llgen/plan/cost.py) must
order each case's variants as their LOOP measured and the latency model (src/llgen/plan/latency.py) as their one-CTA
LOOP measured, a gap under the table's tie (2%) being a tie. Regenerate the table from a bench report with
`llgen bench calibrate bench/report.json -o tests/data/calibration.json`; the table's `unexplained` list names each
case a model orders against its measurement, with the times and why (a case that comes right must leave the list)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from llgen.runtime.bench import calibration

TABLE = Path(__file__).resolve().parent / "data" / "calibration.json"


def _table() -> dict:
    table = json.loads(TABLE.read_text())
    if not table["rows"]:
        pytest.skip("tests/data/calibration.json has no measured rows yet: run llgen bench on a GPU, then calibrate")
    return table


@cache
def _plans(suite: str, case_id: str, kinds: tuple[str, str], target: str) -> tuple:
    """A row's two plans, planned once for all the tests here (planning every row is most of their time)."""
    return calibration.case_plans(calibration.find_case(suite, case_id), kinds, target)


def _row_plans(row: dict, target: str) -> tuple:
    return _plans(row["suite"], row["case"], tuple(row["kinds"]), target)


def test_every_row_names_a_case_of_its_suite_and_plans_of_its_kinds():
    table = _table()
    for r in table["rows"]:
        assert r["loop_ns"] > 0 and len(r["kinds"]) == 2 and r.get("lat_ns", 1) > 0, r
        plans = _row_plans(r, table["target"])
        assert calibration.cycles(plans) >= 0
        if "lat_ns" in r:
            assert calibration.cycles(plans, "latency") >= 0


@pytest.mark.parametrize("objective", ["throughput", "latency"])
def test_each_model_orders_each_cases_variants_as_they_measured(objective):
    table = _table()
    key = calibration.MEASURED[objective]
    measured = [(r["suite"], r["case"]) for r in table["rows"] if key in r]
    if len(measured) == len(set(measured)):
        pytest.skip(f"no case of tests/data/calibration.json has two variants with {key}: run llgen bench, then calibrate")
    bad = calibration.order_mismatches(
        table["rows"], lambda row: calibration.cycles(_row_plans(row, table["target"]), objective), table["tie"], objective
    )
    known = {u["case"] for u in table.get("unexplained", []) if u.get("objective", "throughput") == objective}
    new = [b for b in bad if b.split(":")[0] not in known]
    assert not new, f"{len(new)} pair(s) the model orders against the measurement:\n" + "\n".join(new)
    stale = known - {b.split(":")[0] for b in bad}
    assert not stale, f"the model now orders {sorted(stale)} as measured: take them off the table's unexplained list"


def test_order_mismatches_allows_ties_and_catches_a_wrong_order():
    rows = [
        {"suite": "s", "case": "c", "variant": "llgen", "kinds": ["shared", "shared"], "loop_ns": 100.0},
        {"suite": "s", "case": "c", "variant": "shuffle", "kinds": ["shuffle", "shuffle"], "loop_ns": 101.5},
        {"suite": "s", "case": "c", "variant": "shared_vec", "kinds": ["shared_vec", "shared_vec"], "loop_ns": 150.0},
    ]
    cost = {"llgen": 10.0, "shuffle": 9.0, "shared_vec": 30.0}
    assert calibration.order_mismatches(rows, lambda r: cost[r["variant"]]) == []  # 1.5% apart: a tie
    cost["shared_vec"] = 10.0  # an equal cost is the model declining to rank: allowed
    assert calibration.order_mismatches(rows, lambda r: cost[r["variant"]]) == []
    cost["shared_vec"] = 5.0
    msgs = calibration.order_mismatches(rows, lambda r: cost[r["variant"]])
    assert len(msgs) == 2 and msgs[0].startswith(
        "c: llgen (shared/shared) measured 100.0 ns < shared_vec (shared_vec/shared_vec) 150.0 ns"
    )
    # the latency order: only rows with a one-CTA time, each ordered by its own measurement
    rows[0]["lat_ns"], rows[2]["lat_ns"] = 300.0, 250.0
    assert calibration.order_mismatches(rows, lambda r: cost[r["variant"]], objective="latency") == []
    cost["shared_vec"] = 20.0
    (msg,) = calibration.order_mismatches(rows, lambda r: cost[r["variant"]], objective="latency")
    assert msg == (
        "c: shared_vec (shared_vec/shared_vec) measured 250.0 ns < llgen (shared/shared) 300.0 ns one CTA, "
        "but the latency model predicts 20 vs 10 cycles"
    )


def _report() -> dict:
    """A report as llgen bench writes it with both objectives, numbers made up: core's lanes_f32 (one CTA timed for
    the pick and the baseline only, as a report without the latency pick has it) and warplocal's wl1_b2dotA_i8, whose latency pick is the forced shared
    path's kernels (same_as) and whose every variant has both times."""

    def row(path, kinds, loop, lat=None, **extra):
        return {"path": path, "kinds": kinds, "loop_per_sm_ns": loop, **({"loop_lat_ns": lat} if lat else {}), **extra}

    return {
        "info": {"device": "GPU", "date": "d"},
        "cases": [
            {
                "id": "lanes_f32",
                "suite": "core",
                "variants": {
                    "llgen": row("shuffle/shuffle", ["shuffle", "shuffle"], 65.0, 170.0, same_as=["llgen_latency"]),
                    "shared": row("shared/shared", ["shared", "shared"], 131.6),
                    "naive": row("shared/shared", ["naive", "naive"], 517.0, 900.0),
                    "triton": row("triton", None, 65.0, 171.0),
                },
            },
            {
                "id": "wl1_b2dotA_i8",
                "suite": "warplocal",
                "variants": {
                    "llgen": row("shuffle/shuffle", ["shuffle", "shuffle"], 30.0, 260.0),
                    "shared": row("shared/shared", ["shared", "shared"], 33.0, 200.0, same_as=["llgen_latency"]),
                    "shared_vec": row("shared/shared", ["shared_vec", "shared_vec"], 34.0, 201.0),
                },
            },
        ],
    }


def test_the_table_is_written_from_a_report_with_todays_predictions(tmp_path):
    out = calibration.write_table(_report(), str(tmp_path / "cal.json"))
    table = json.loads(Path(out).read_text())
    rows = {(r["case"], r["variant"]): r for r in table["rows"]}
    assert list(rows) == [
        ("lanes_f32", "llgen"),
        ("lanes_f32", "shared"),
        ("lanes_f32", "naive"),
        ("wl1_b2dotA_i8", "llgen"),
        ("wl1_b2dotA_i8", "shared"),
        ("wl1_b2dotA_i8", "shared_vec"),
    ]
    assert rows["lanes_f32", "llgen"]["cost_pred"] < rows["lanes_f32", "shared"]["cost_pred"]
    assert "lat_ns" not in rows["lanes_f32", "shared"] and "lat_pred" not in rows["lanes_f32", "shared"]
    assert rows["lanes_f32", "llgen"]["lat_pred"] < rows["lanes_f32", "naive"]["lat_pred"]
    assert rows["wl1_b2dotA_i8", "shared"]["lat_pred"] < rows["wl1_b2dotA_i8", "llgen"]["lat_pred"]
    assert table["source"]["device"] == "GPU"
    for objective, key in calibration.PREDICTED.items():
        assert calibration.order_mismatches(table["rows"], lambda r, key=key: r[key], table["tie"], objective) == []
    # one-CTA times the latency model orders the other way are listed
    rows["wl1_b2dotA_i8", "llgen"]["lat_ns"] = 150.0
    bad = calibration.order_mismatches(table["rows"], lambda r: r["lat_pred"], table["tie"], "latency")
    assert [b.split(" measured")[0] for b in bad] == ["wl1_b2dotA_i8: llgen (shuffle/shuffle)"] * 2
