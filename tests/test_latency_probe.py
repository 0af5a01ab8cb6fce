"""bench/probes/latency_table.py on the CPU: every kernel text compiles for sm_90 through NVRTC, its SASS holds the
instructions the probe means to time (ptxas drops or forwards none of them, except the converged __syncwarp), and
its measurements become a table that src/llgen/plan/latency_table.py accepts."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from helpers import recorded_facts, sass_summary, summary_sass, write_record

from llgen.plan.latency_table import CLASSES, check_table

PROBE = Path(__file__).parents[1] / "bench" / "probes" / "latency_table.py"


def _probe():
    spec = importlib.util.spec_from_file_location("latency_probe", PROBE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# the SASS opcode each class times, and how many of it a kernel of N steps holds per step
OPCODE = {
    "shfl": ("SHFL.IDX", 1),
    "lds_4": ("LDS", 1),
    "lds_8": ("LDS.64", 1),
    "lds_16": ("LDS.128", 1),
    "sts_4": ("STS", 1),
    "sts_8": ("STS.64", 1),
    "sts_16": ("STS.128", 1),
    "ldsm_x1": ("LDSM.16.M88", 1),
    "ldsm_x2": ("LDSM.16.M88.2", 1),
    "ldsm_x4": ("LDSM.16.M88.4", 1),
    "stsm_x1": ("STSM.16.M88", 1),
    "stsm_x2": ("STSM.16.M88.2", 1),
    "stsm_x4": ("STSM.16.M88.4", 1),
    "bar_sync": ("BAR.SYNC.DEFER_BLOCKING", 1),
    "alu": ("PRMT", 1),
    "issue": ("FFMA", 1),
}
# a store's round trip loads what it stored: the load each chain step holds besides the store
ROUND_TRIP = {"sts_4": "LDS", "sts_8": "LDS.64", "sts_16": "LDS.128"}
ROUND_TRIP |= {"stsm_x1": "LDSM.16.M88", "stsm_x2": "LDSM.16.M88.2", "stsm_x4": "LDSM.16.M88.4"}


# The probe's kernels' SASS summaries by text hash (llgen.runtime.toolchain.sass_key), as tests/data/random-sass.json
# keeps test_emit's: while the probe's source hashes as recorded it is not compiled again.
# `python tests/test_latency_probe.py` rewrites the record after a change of the probe.
PROBE_SASS = Path(__file__).parent / "data" / "latency-probe-sass.json"


def probe_sass(probe, known: dict) -> tuple[dict, dict]:
    """The Sass summary of every probe kernel by name, and its record."""
    names = [
        probe.kernel_name(cls, kind, n) for cls in CLASSES for kind in ("chain", "indep") for n in (probe.N_SHORT, probe.N_LONG)
    ]
    found, record = recorded_facts(
        {"probe": probe.kernel_source()}, "sm_90", known, lambda kernels, _: {n: sass_summary(kernels[n]) for n in names}
    )
    return found["probe"], record


def test_every_probe_kernel_compiles_for_sm90_and_holds_what_it_times():
    from llgen.runtime.toolchain import ToolchainUnavailable

    probe = _probe()
    try:
        found, _ = probe_sass(probe, json.loads(PROBE_SASS.read_text())["sm_90"])
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    sass = {name: summary_sass(name, s) for name, s in found.items()}
    for cls in CLASSES:
        for kind in ("chain", "indep"):
            for n in (probe.N_SHORT, probe.N_LONG):
                name = probe.kernel_name(cls, kind, n)
                code = sass[name]
                assert code.local == 0 and code.stack == 0, name
                if cls == "syncwarp":  # a converged full-mask warp barrier: ptxas drops it, which is what it costs
                    continue
                op, per = OPCODE[cls]
                # the set-up stores too (zeroing, each chain's first word): as many as the 4-byte load kernel's
                setup = sass[probe.kernel_name("lds_4", kind, n)].opcodes["STS"] if op == "STS" else 0
                assert code.opcodes[op] - setup >= per * n, (name, op, code.opcodes[op])
                if cls in ROUND_TRIP and kind == "chain":
                    assert code.opcodes[ROUND_TRIP[cls]] == n, (name, code.opcodes)


def test_measurements_become_a_table_the_model_reads():
    probe = _probe()
    raw = {c: {"chain": 30.0, "indep": 2.0} for c in CLASSES}
    raw["lds_4"]["chain"], raw["sts_4"]["chain"] = 29.0, 52.0
    doc = check_table(probe.table_from(raw, "NVIDIA H100 80GB HBM3", "2026-11-26"))
    assert doc["provenance"]["status"] == "measured" and "N=64 and N=128" in doc["provenance"]["method"]
    assert doc["cycles"]["sts_4"]["latency"] == 23.0  # the round trip less the load
    assert doc["cycles"]["issue"]["latency"] == 0.0 and doc["cycles"]["bar_sync"]["interval"] == 30.0
    assert probe.per_instruction(1000, 3000) == 2000 / 64


if __name__ == "__main__":
    # after a change of the probe's kernels: compiled again, their record rewritten
    write_record(PROBE_SASS, {"sm_90": probe_sass(_probe(), {})[1]})
