"""The compile cache, and the table `make perf` prints (the helpers test files share are in helpers.py).

Timings are never asserted inside `make test` (a slow, busy machine must not fail it): tests marked ``perf``
record their time with the ``timing`` fixture against a target, run only under `make perf` (``-m perf``),
and the run ends with one table of every measurement and whether it met its target.

Compiles (NVRTC, clang-19, their disassemblers) are kept in .cache/llgen-compile/ (llgen.runtime.toolchain): a text
that several tests or pytest workers compile is compiled once. LLGEN_COMPILE_CACHE set in the environment wins
(an empty value turns the cache off).
"""

from __future__ import annotations

import gc
import os

import pytest
from helpers import ROOT

os.environ.setdefault("LLGEN_COMPILE_CACHE", str(ROOT / ".cache" / "llgen-compile"))

# The planner, simulator and replay allocate many small objects that live as long as a plan: with Python's default
# thresholds the cyclic collector walks them again and again (the property run's pairs took 10-19% longer).
# Rarer young-generation passes, and what was imported before the tests kept out of every pass.
gc.set_threshold(50_000, 50, 100)
gc.freeze()

_TIMINGS: list[tuple[str, float, float]] = []  # (what, seconds, target seconds)


@pytest.fixture
def perf_table():
    """``perf_table(what, seconds, target)``: record a measurement for the table at the end of the run; returns
    whether it met its target (tests/test_perf.py fails on a miss)."""

    def record(what: str, seconds: float, target: float) -> bool:
        _TIMINGS.append((what, seconds, target))
        return seconds < target

    return record


def pytest_terminal_summary(terminalreporter):
    if not _TIMINGS:
        return
    tr = terminalreporter
    tr.section("perf: measured against targets")
    tr.write_line(f"{'what':58} {'seconds':>9} {'target':>8}  met")
    for what, sec, target in _TIMINGS:
        tr.write_line(f"{what[:58]:58} {sec:9.3f} {target:8g}  {'yes' if sec < target else 'NO'}")
