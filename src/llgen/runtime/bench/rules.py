"""The bench's shared numbers and the rules it reads results by: how LOOP and STREAM are sized and repeated, what
counts as a tie, when Triton's loop was folded, and each objective's pick against llgen's other variants. A leaf:
every other bench module reads these, none is read here.
"""

from __future__ import annotations

import math
import re

from llgen.cases.suite import suite_name
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import error_line
from llgen.plan.variants import LATENCY_PICK, OWN, PICK

KS = (64, 128)  # LOOP's round trips: its time is the slope between these
# The one-CTA form's round trips. Over 64 round trips a lone CTA's slope is a few microseconds, and the event timer's
# steps of about 0.5 us made its per-conversion times jump in steps of 4-5 ns (t16x32's five rounds read 42.0, 46.0,
# 46.2, 51.5, 51.5 ns): 2% of a 250 ns conversion. Over 1024 the steps are 0.25 ns.
KS_ONE_CTA = (1024, 2048)
# The mixed suite's round trips at CTAS_PER_SM CTAs an SM. Its kernels run 30-300 us at 64 steps, and the slope
# between 64 and 128 read 1.4-1.5x faster than between 64 and 576 on every upcast-alone kernel (and faster than the
# integer pipe allows: 4.2 instructions a clock an SM), where Nsight Compute counts the same cycles a step at both
# lengths (bench/probes/upcast_ncu.py, session 26): the shorter launch measures more than its own time. Over 512 and
# 2048 steps the fastest of them runs 0.1 ms.
KS_MIXED = (512, 2048)
# Whatever K a slope starts from, both are doubled until the launch at the lower one runs this long (at most
# MAX_K_SCALE times): the mixed suite's short launches measured the slope 1.4-1.5x short (above), and some core and
# wide LOOPs run 5-80 us at 64 round trips (t16x32, mma2dotA_f16, the tiny and register-permutation cases). A LOOP
# whose loop folds to nothing stays at the cap.
MIN_LAUNCH_MS = 0.5
MAX_K_SCALE = 256
STREAM_BYTES = 1 << 30  # what STREAM and copy walk
LOOP_ROUNDS = 5  # llgen's and Triton's LOOP again, alternating which goes first
STREAM_ROUNDS = 3  # llgen's STREAM, copy and cudaMemcpy, in rotating order
# Tiles each STREAM/copy step loads before converting, tried for llgen's pick (the alternatives run at
# BenchShape.unroll): on the H100 two tiles a step made w8_b2mma_f32's STREAM 1.2% faster and its ratio to its copy
# 1.014 -> 1.002, one tile made w1_b2mma_f32's (whose two tiles spill) 1.021 -> 1.003, and neither choice suited
# every case (bench/NOTES.md)
STREAM_UNROLLS = (1, 2)
# An alternative whose bench source is longer is not compiled: w1_b2bT_f16's forced shuffle (1.07 MB of selects)
# took NVRTC 211 s on the CPU, the next longest (r3_b2bT_8x32x32_bf16's, 531 KB) 12 s
MAX_SOURCE = 600_000
TIE = 1.02  # measured within 2% of each other: a tie (the pick against the fastest variant; the calibration's order)
PIPE_TIE = 1.01  # LOOP cases with Triton / llgen under this get the pipe counters of both LOOP kernels
PIPE_K = 1024  # round trips of the LOOP kernels under those counters
AT_LIMIT = 0.98  # this close to its ideal with its LSU data pipe this busy, or its ALU pipe this busy: at the limit
# Each objective: the variant the planner picks for it, the LOOP form that measures it (throughput: per-SM ns with
# 32 CTAs an SM; latency: one CTA an SM) and the model's prediction a row records (cost.py, latency.py)
OBJECTIVES = {
    "throughput": (PICK, "loop_per_sm_ns", "cost_pred"),
    "latency": (LATENCY_PICK, "loop_lat_ns", "lat_pred"),
}


def stream_tiles(tile_bytes: int) -> int:
    """Tiles of ``tile_bytes`` the STREAM and copy kernels walk: as many as fit in STREAM_BYTES, one at least."""
    return max(1, STREAM_BYTES // tile_bytes)


def short(r: dict) -> str:
    """A result row as one log line."""
    keys = ("path", "loop_per_sm_ns", "loop_lat_ns", "stream_ratio", "regs", "loop_correct", "error")
    return ", ".join(f"{k}={r[k]:.3g}" if isinstance(r.get(k), float) else f"{k}={r[k]}" for k in keys if k in r)


def loop_ratio(case_result: dict) -> float | None:
    """Triton's LOOP time over llgen's for one case of a report; None where either is missing, or where Triton's
    loop was folded (triton_folded)."""
    v = case_result["variants"]
    me, tr = v.get(PICK, {}).get("loop_per_sm_ns"), v.get("triton", {}).get("loop_per_sm_ns")
    if triton_folded(case_result):
        return None
    return tr / me if me and tr and me > 0 else None


def latency_ratio(case_result: dict) -> float | None:
    """Triton's one-CTA LOOP time over the latency pick's; None where either is missing or Triton's loop was
    folded."""
    me = pick_row(case_result, "latency")[1].get("loop_lat_ns")
    tr = case_result["variants"].get("triton", {}).get("loop_lat_ns")
    if triton_folded(case_result):
        return None
    return tr / me if me and tr and me > 0 else None


def pick_row(c: dict, objective: str = "throughput") -> tuple[str | None, dict]:
    """(name, row) of the variant that holds the objective's pick: the pick's own row, or the one whose kernels it
    shares (same_as); (None, {}) where the report has none (reports before the latency pick)."""
    pick = OBJECTIVES[objective][0]
    for name, r in c["variants"].items():
        if name == pick or pick in (r.get("same_as") or ()):
            return name, r
    return None, {}


def fastest_free(variants: dict) -> str | None:
    """The free-pairing variant (docs/design.md §3.4) with the fastest one-CTA LOOP, where any was timed."""
    timed = [(r["loop_lat_ns"], n) for n, r in variants.items() if n.endswith("_free") and r.get("loop_lat_ns")]
    return min(timed)[1] if timed else None


def triton_folded(case_result: dict) -> bool:
    """Whether Triton's LOOP measured less than its own `+ 1` can take: one add per 32-bit word of the tile every
    round trip, at four warp instructions a clock and 2 GHz. Only a loop the compiler collapsed gets there: LLVM
    folds k integer `+ 1`s of a register permutation into one add of k (regperm_i8); Triton's loop has no barrier
    against it, as ours has LLGEN_KEEP."""
    tr = case_result["variants"].get("triton", {}).get("loop_per_sm_ns")
    shape, dtype = case_result.get("shape"), case_result.get("dtype")
    if tr is None or not shape or not dtype:  # a fold's slope can read exactly 0.0 (regperm_i8)
        return False
    words = max(1, math.prod(shape) * to_dtype(dtype).bytes // 4)
    floor_ns = words / 32 / 4 / 2 / 2.0  # warp instructions, 4 a clock, per conversion (2 a round trip), at 2 GHz
    return tr < floor_ns


def best_alternative(c: dict, objective: str = "throughput") -> tuple[str | None, float | None]:
    """The fastest of llgen's variants other than the objective's pick, by that objective's LOOP form, or
    (None, None) where none was measured."""
    key, mine = OBJECTIVES[objective][1], pick_row(c, objective)[0]
    alts = [(r[key], n) for n, r in c["variants"].items() if n in OWN and n != mine and r.get(key)]
    if not alts:
        return None, None
    ns, name = min(alts)
    return name, ns


def pick_gap(c: dict, objective: str = "throughput") -> float | None:
    """The objective's pick over the fastest llgen variant, itself included (1.0: the pick is the fastest)."""
    me = pick_row(c, objective)[1].get(OBJECTIVES[objective][1])
    _, alt = best_alternative(c, objective)
    return me / min(me, alt) if me and alt else (1.0 if me else None)


def sm_clock_mhz(info: dict) -> float | None:
    """The SM clock the ideal assumes: nvidia-smi's max SM clock (fields: driver, SM clock, max SM clock, memory
    clock). The H100 holds it under this load; the current clock, read as the run starts, can be the idle 345 MHz."""
    m = re.findall(r"(\d+) MHz", info.get("nvidia_smi", ""))
    return float(m[1]) if len(m) > 1 else None


def ideal_ns(case: dict, clock_mhz: float | None) -> float | None:
    """Per-SM ns of one conversion at the hardware's limit (docs/design.md §10): for the shared path, its
    data-volume floor of wavefronts (128 B each, one per clock; the replicas the destination needs
    counted); for the shuffle path, its warp-wide shuffles (one per clock)."""
    v = case["variants"].get(PICK, {})
    if not clock_mhz or not v or not v.get("ideal_clocks"):
        return None
    return v["ideal_clocks"] / clock_mhz * 1e3


def suites_of(report: dict) -> list[tuple[str | None, list[dict]]]:
    """The report's cases by suite, suites in the order they first appear (None: cases without a suite; an older
    report's alias under the current name)."""
    out: dict = {}
    for c in report["cases"]:
        out.setdefault(suite_name(c["suite"]) if c.get("suite") else None, []).append(c)
    return list(out.items())


def case_row(case, **extra) -> dict:
    """A case's row of the report before anything is measured: what names it, ``extra`` keys, no variant yet."""
    head = {"id": case.id, "dtype": case.dtype, "shape": list(case.shape), "warps": case.warps, "note": case.note}
    return head | extra | {"variants": {}, "skipped": {}}


def case_failed(res: dict, e: Exception, log) -> None:
    """The case's row says why it could not be planned or run (its "error"), and the log says it too."""
    res["error"] = error_line(e)
    log(f"  {res['id']}: {res['error']}")
