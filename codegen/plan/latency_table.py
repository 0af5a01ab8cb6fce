"""One warp's latency per instruction class, in SM clocks: what the one-CTA latency model (plan/latency.py) adds up.

Each class has two numbers: ``latency``, the clocks from issuing the instruction to a dependent instruction being
able to use its result (for a store: to a load of the same address seeing it), and ``interval``, the clocks between
two independent instructions of the class that one warp issues back to back. bench/probes/latency_table.py measures
both on a GPU and writes JSON of exactly this form (``llgen.latency/1``); ``check_table`` holds a table to it.

Until a GPU run fills it, the numbers are seeded from public sources for the H100 (``status``), and where no source
gave a number, estimated from the nearest one that did (each entry's ``source`` says which). Classes:
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

from ..errors import LlgenError

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

_SHARED = "shared memory ~30 cycles on the H100 (fp4-site.pages.dev/silicon/gpu-memory-hierarchy; arXiv 2402.13499 §IV)"
_ALU = "arithmetic operation latency 4 cycles on V100/A100/H100 (pmc.ncbi.nlm.nih.gov/articles/PMC10448217, table 3)"
_EST = "estimate, no public number found: "

TABLE: dict = {
    "schema": SCHEMA,
    "provenance": {
        "status": "literature, not yet measured here",
        "device": "NVIDIA H100 (public sources; none measured on this project's machine yet)",
        "date": "2026-11-26",
        "method": "seeded from public microbenchmark reports; bench/probes/latency_table.py replaces them with one warp's "
        "dependent chains timed by clock64() (N=128 minus N=64, over 64)",
    },
    "cycles": {
        "shfl": {"latency": 24, "interval": 2, "source": _EST + "a crossbar trip like shared memory's without the address stage"},
        "lds_4": {"latency": 30, "interval": 1, "source": _SHARED},
        "lds_8": {"latency": 30, "interval": 2, "source": _SHARED + "; interval: 256 bytes a warp, two wavefronts"},
        "lds_16": {"latency": 32, "interval": 4, "source": _SHARED + "; interval: 512 bytes a warp, four wavefronts"},
        "sts_4": {"latency": 20, "interval": 1, "source": _EST + "the write half of a shared-memory round trip"},
        "sts_8": {"latency": 20, "interval": 2, "source": _EST + "as sts_4, two wavefronts"},
        "sts_16": {"latency": 22, "interval": 4, "source": _EST + "as sts_4, four wavefronts"},
        "ldsm_x1": {"latency": 30, "interval": 1, "source": _SHARED + " (as LDS.32: one wavefront)"},
        "ldsm_x2": {"latency": 32, "interval": 2, "source": _SHARED + " (as LDS.64)"},
        "ldsm_x4": {"latency": 34, "interval": 4, "source": _SHARED + " (as LDS.128)"},
        "stsm_x1": {"latency": 20, "interval": 1, "source": _EST + "as sts_4"},
        "stsm_x2": {"latency": 20, "interval": 2, "source": _EST + "as sts_8"},
        "stsm_x4": {"latency": 22, "interval": 4, "source": _EST + "as sts_16"},
        "bar_sync": {"latency": 20, "interval": 20, "source": _EST + "a CTA barrier's round trip through the SM"},
        "syncwarp": {"latency": 4, "interval": 4, "source": _EST + "one converged warp: an ALU step"},
        "alu": {"latency": 4, "interval": 2, "source": _ALU + "; interval: 16 lanes a sub-partition (codegen/plan/cost.py)"},
        "issue": {"latency": 0, "interval": 1, "source": "one instruction a clock per warp scheduler (Hopper whitepaper)"},
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
