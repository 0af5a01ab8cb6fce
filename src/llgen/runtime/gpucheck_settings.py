"""What one `llgen gpu-check` run does (src/llgen/runtime/gpucheck.py): its settings, its parts, the target it runs on, how long
each part takes and what a run's statuses mean."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TARGET = "sm_90"  # 32-lane NVIDIA: the H100/H200 this runs on

SANITIZER_TOOLS = ("memcheck", "synccheck", "racecheck")
PARTS = ("correctness", "endpoints", "ncu", "endpoint-ncu", *SANITIZER_TOOLS)

# A part's status: PASS (finished, nothing wrong), FAIL (a wrong element or slot, a launch or compile error, a sanitizer
# error, a counter mismatch, or the part crashed), INCOMPLETE (cut short by the time budget, or not started for want of
# it, with nothing wrong in what it did check) and SKIP (--skip, or its tool is not installed). A run's verdict is FAIL
# if any part failed, else INCOMPLETE if any part did not finish, else PASS; its exit status is EXIT[verdict].
PASS, FAIL, INCOMPLETE, SKIP = "PASS", "FAIL", "INCOMPLETE", "SKIP"
EXIT = {PASS: 0, FAIL: 1, INCOMPLETE: 4}  # 2: a usage error or no GPU (nothing written); 3: a bug in llgen
DEFAULT_BUDGET = 600.0  # every part at the default counts: full_run_seconds(Settings()) is 580


@dataclass(frozen=True)
class Settings:
    """What one gpu-check run does (`llgen gpu-check --help` says each)."""

    random: int = 2000  # random pairs of real layouts (runtime.cases.random_jobs)
    sanitize_random: int = 200  # of those, the first N also run under the sanitizers
    seed: int = 5
    tiles: int = 1000  # tiles per tile-kernel run (capped at 4M elements)
    runs: int = 2  # runs per kernel, each on fresh random input
    budget: float = DEFAULT_BUDGET  # seconds for the whole run
    ncu_random: int = 24  # random shared-memory pairs also measured by ncu
    endpoints: int = 120  # random shared-memory endpoint pairs (runtime.endpoint_random.random_cases)
    sanitize_endpoints: int = 24  # of those, the first N also run under the sanitizers
    bench_kernels: str = "all"  # the bench's own kernels: every variant and chain (all), or core's picks (picks)
    skip: frozenset[str] = frozenset()  # parts not run (PARTS)
    prefix: str = str(Path("llgen-gpu-check") / "gpu-check")  # the report's path without .md/.json


def expected_seconds(s: Settings) -> dict[str, float]:
    """About how long each part takes on an H100 or H200 at these settings: a fixed start (compiles, the suites, ncu's
    and the sanitizers' own start) and a cost per random pair. Measured at the default counts with 92 suite kernels
    (2026-11-28): on an H200 correctness 192 s (the suite 70, 2000 random pairs 122), endpoints 20, ncu 159 with its
    fenced second pass, endpoint-ncu 62, memcheck 55, synccheck 15, racecheck 19; an H100 took 23, 146, 61 for
    endpoints, ncu, endpoint-ncu. More suite or bench kernels take longer: the report's verdict then reads what a
    full run needs from how far the run got (gpucheck_report.needed_seconds). State.share hands each part this
    share of the time left, so a budget of `full_run_seconds` lets every part finish and a smaller one cuts each
    part in proportion."""
    scale = max(0.5, s.runs / 2 * (0.5 + 0.5 * min(s.tiles, 1000) / 1000))  # the kernels' runs; compiles do not scale
    sanitized = min(s.sanitize_random, s.random)
    return {
        "correctness": 80 + 0.06 * s.random * scale,
        "endpoints": 8 + 0.1 * s.endpoints * s.runs / 2,
        "ncu": 120 + 1.6 * s.ncu_random,
        "endpoint-ncu": 62.0,
        "memcheck": 20 + 0.15 * sanitized + 0.6 * s.sanitize_endpoints,
        "synccheck": 6 + 0.04 * sanitized + 0.1 * s.sanitize_endpoints,
        "racecheck": 8 + 0.05 * sanitized + 0.15 * s.sanitize_endpoints,
    }


def run_parts(s: Settings) -> list[str]:
    """The parts a run with these settings runs (--skip endpoints takes endpoint-ncu with it)."""
    skip = s.skip | ({"endpoint-ncu"} if "endpoints" in s.skip else set())
    return [p for p in PARTS if p not in skip]


def full_run_seconds(s: Settings) -> int:
    """About how long every part of ``s`` takes to finish on an H100 or H200, with 5% and 10 s to spare, rounded up to
    10 s: 580 at the default counts, which the default budget covers."""
    need = 1.05 * sum(expected_seconds(s)[p] for p in run_parts(s)) + 10
    return int(-(-need // 10) * 10)
