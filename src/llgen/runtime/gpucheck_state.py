"""One gpu-check run as it goes: its clock (the budget shared out part by part), its record and results, and the
report rewritten after every part (src/llgen/runtime/gpucheck_report.py)."""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from llgen.runtime.gpucheck_report import save_report
from llgen.runtime.gpucheck_settings import Settings


def log(msg: str) -> None:
    print(msg, flush=True)


class State:
    def __init__(self, args: Settings):
        self.args = args
        self.t0 = time.monotonic()
        self.deadline = self.t0 + args.budget
        self.slot = args.budget  # seconds the current part may take
        self.slot_start = self.t0
        self.record: dict = {"title": "llgen gpu-check", "parts": {}, "budget_s": args.budget}
        self.suite_results: list = []
        self.random_results: list = []
        self.endpoint_results: list = []
        self.device = None
        self.logs = Path(os.environ["OUT"]) / "gpu-check-logs" if os.environ.get("OUT") else Path("/tmp/llgen-gpu-check-logs")
        self.logs.mkdir(parents=True, exist_ok=True)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def begin(self, remaining_parts: int, weight: float) -> None:
        """Give the next part ``weight`` of a fair share of the time left (never more than is left)."""
        self.share(weight, max(1, remaining_parts))

    def share(self, expected: float, expected_left: float) -> None:
        """Give the next part, expected to take ``expected`` seconds of the ``expected_left`` that it and the parts
        after it take (gpucheck_settings.expected_seconds), that share of the time left: all of what it needs when
        the budget holds them all, the same fraction of it as every later part otherwise (never more than is left,
        never under 15 s)."""
        self.slot_start = time.monotonic()
        self.slot = max(15.0, min(self.left(), expected * self.left() / max(expected, expected_left)))

    def left_in_slot(self) -> float:
        return self.slot - (time.monotonic() - self.slot_start)

    def part(self, name: str, status: str, detail: str, *, started: bool = True, **data) -> None:
        """Record part ``name``'s status (gpucheck_settings: PASS, FAIL, INCOMPLETE or SKIP), its one-line detail
        and, where it was ``started``, the seconds it took and the share of the budget it had."""
        now = time.monotonic()
        times = (
            {"seconds": round(now - self.slot_start, 1), "slot_s": round(self.slot, 1)} if started and status != "SKIP" else {}
        )
        self.record["parts"][name] = {"status": status, "detail": detail, **times, **data}
        log(f"[{now - self.t0:6.1f}s] {name}: {status} - {detail}")
        self.save()

    def save(self) -> None:
        try:
            save_report(self)
        except Exception:  # noqa: BLE001 - a report bug must not stop the run
            traceback.print_exc()
