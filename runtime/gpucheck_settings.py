"""What one `llgen gpu-check` run does (runtime/gpucheck.py): its settings, its parts and the target it runs on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TARGET = "sm_90"  # 32-lane NVIDIA: the H100/H200 this runs on

SANITIZER_TOOLS = ("memcheck", "synccheck", "racecheck")
PARTS = ("correctness", "endpoints", "ncu", "endpoint-ncu", *SANITIZER_TOOLS)


@dataclass(frozen=True)
class Settings:
    """What one gpu-check run does (`llgen gpu-check --help` says each)."""

    random: int = 2000  # random pairs of real layouts (runtime.cases.random_jobs)
    sanitize_random: int = 200  # of those, the first N also run under the sanitizers
    seed: int = 5
    tiles: int = 1000  # tiles per tile-kernel run (capped at 4M elements)
    runs: int = 2  # runs per kernel, each on fresh random input
    budget: float = 420  # seconds for the whole run
    ncu_random: int = 24  # random shared-memory pairs also measured by ncu
    endpoints: int = 120  # random shared-memory endpoint pairs (runtime.endpoint_random.random_cases)
    sanitize_endpoints: int = 24  # of those, the first N also run under the sanitizers
    skip: frozenset[str] = frozenset()  # parts not run (PARTS)
    prefix: str = str(Path("llgen-gpu-check") / "gpu-check")  # the report's path without .md/.json
