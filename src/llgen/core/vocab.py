"""The words several floors share, defined once and light enough for the CLI to import at start-up: the kinds of
conversion plan (the planner's Path enum is built from them) and the objectives a path is picked for."""

from __future__ import annotations

PATHS = ("noop", "registers", "shuffle", "shared")  # the kinds of plan, cheapest first
OBJECTIVES = ("throughput", "latency")  # many CTAs' throughput (plan/cost.py), or one CTA's latency (plan/latency.py)
