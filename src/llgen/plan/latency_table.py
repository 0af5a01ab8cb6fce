"""One warp's latency per instruction class, in SM clocks: what the one-CTA latency model (plan/latency.py) adds up.

Each class has two numbers: ``latency``, the clocks from issuing the instruction to a dependent instruction being
able to use its result (for a store: to a load of the same address seeing it), and ``interval``, the clocks between
two independent instructions of the class that one warp issues back to back. bench/probes/latency_table.py measures
both on a GPU and writes JSON of exactly this form (``llgen.latency/1``); ``check_table`` holds a table to it.

The numbers are the H100's, measured by that probe on 2026-11-26 (``provenance``); each entry's ``source`` gives the
chain and the independent-stream figures it was read from. Classes:
  shfl                    SHFL.IDX / SHFL.BFLY (32-bit)
  lds_4, lds_8, lds_16    LDS.32 / .64 / .128
  sts_4, sts_8, sts_16    STS of that width (latency: store to a dependent load's data, less the load's own)
  ldsm_x1, _x2, _x4       LDSM.16.M88.1 / .2 / .4
  stsm_x1, _x2, _x4       STSM (latency as for sts)
  bar_sync, syncwarp      bar.sync 0 in a one-warp CTA, __syncwarp (WARPSYNC)
  alu                     one step of a SEL / PRMT / LOP3 chain (the integer ALU)
  issue                   ``interval`` only: any instruction's issue slot on one warp scheduler
"""

from __future__ import annotations

from llgen.core.errors import LlgenError

SCHEMA = "llgen.latency/1"
CLASSES = (
    "shfl",
    "lds_4",
    "lds_8",
    "lds_16",
    "sts_4",
    "sts_8",
    "sts_16",
    "ldsm_x1",
    "ldsm_x2",
    "ldsm_x4",
    "stsm_x1",
    "stsm_x2",
    "stsm_x4",
    "bar_sync",
    "syncwarp",
    "alu",
    "issue",
)

TABLE: dict = {
    "schema": "llgen.latency/1",
    "provenance": {
        "status": "measured",
        "device": "NVIDIA H100 80GB HBM3 (nvidia-h100-x1, run files in bench/runs/2026-11-26-session11/)",
        "date": "2026-11-26",
        "method": "bench/probes/latency_table.py: one warp, one CTA; clock64() around N=64 and N=128 instructions, best of 3 passes; (T128 - T64) / 64; chains dependent (latency) or 16 independent (interval); store latency = store-load round trip - load latency",
    },
    "cycles": {
        "shfl": {"latency": 26.0, "interval": 4.19, "source": "measured: chain 26.00, independent 4.19 cycles an instruction"},
        "lds_4": {"latency": 23.0, "interval": 4.0, "source": "measured: chain 23.00, independent 4.00 cycles an instruction"},
        "lds_8": {"latency": 26.0, "interval": 4.0, "source": "measured: chain 26.00, independent 4.00 cycles an instruction"},
        "lds_16": {"latency": 31.8, "interval": 8.06, "source": "measured: chain 31.80, independent 8.06 cycles an instruction"},
        "sts_4": {"latency": 5.0, "interval": 4.0, "source": "measured: chain 28.00, independent 4.00 cycles an instruction"},
        "sts_8": {"latency": 9.16, "interval": 6.0, "source": "measured: chain 35.16, independent 6.00 cycles an instruction"},
        "sts_16": {
            "latency": 17.25,
            "interval": 10.0,
            "source": "measured: chain 49.05, independent 10.00 cycles an instruction",
        },
        "ldsm_x1": {"latency": 23.0, "interval": 4.0, "source": "measured: chain 23.00, independent 4.00 cycles an instruction"},
        "ldsm_x2": {"latency": 25.0, "interval": 4.0, "source": "measured: chain 25.00, independent 4.00 cycles an instruction"},
        "ldsm_x4": {
            "latency": 30.48,
            "interval": 8.19,
            "source": "measured: chain 30.48, independent 8.19 cycles an instruction",
        },
        "stsm_x1": {"latency": 5.12, "interval": 4.0, "source": "measured: chain 28.12, independent 4.00 cycles an instruction"},
        "stsm_x2": {"latency": 9.16, "interval": 6.0, "source": "measured: chain 34.16, independent 6.00 cycles an instruction"},
        "stsm_x4": {
            "latency": 15.73,
            "interval": 10.0,
            "source": "measured: chain 46.22, independent 10.00 cycles an instruction",
        },
        "bar_sync": {
            "latency": 14.0,
            "interval": 14.0,
            "source": "measured: chain 14.00, independent 14.00 cycles an instruction",
        },
        "syncwarp": {
            "latency": 1.0,
            "interval": 1.0,
            "source": "measured: chain 1.00, independent 1.00 cycles an instruction; a full-warp __syncwarp compiles to nothing measurable (ptxas drops it in a converged warp)",
        },
        "alu": {"latency": 4.0, "interval": 2.0, "source": "measured: chain 4.00, independent 2.00 cycles an instruction"},
        "issue": {"latency": 0.0, "interval": 0.98, "source": "measured: chain 4.00, independent 0.98 cycles an instruction"},
    },
}


def check_table(doc: dict) -> dict:
    """``doc`` if it is a latency table (every class, a latency and an interval each, numbers >= 0); else LlgenError
    naming what is wrong."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise LlgenError(f"a latency table has schema '{SCHEMA}', not {doc.get('schema') if isinstance(doc, dict) else doc!r}.")
    cycles = doc.get("cycles", {})
    for c in CLASSES:
        entry = cycles.get(c)
        if not isinstance(entry, dict):
            raise LlgenError(f"the latency table has no entry for '{c}'.")
        for key in ("latency", "interval"):
            v = entry.get(key)
            if not isinstance(v, int | float) or isinstance(v, bool) or v < 0:
                raise LlgenError(f"the latency table's {c}.{key} is {v!r}, not a number of cycles >= 0.")
    for key in ("device", "date", "method"):
        if not doc.get("provenance", {}).get(key):
            raise LlgenError(f"the latency table's provenance has no '{key}'.")
    return doc


def lat(cls: str, table: dict = TABLE) -> float:
    return table["cycles"][cls]["latency"]


def interval(cls: str, table: dict = TABLE) -> float:
    return table["cycles"][cls]["interval"]
