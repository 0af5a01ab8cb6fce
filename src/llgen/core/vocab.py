"""The words several floors share, defined once and light enough for the CLI to import at start-up: the kinds of
conversion plan (the planner's Path enum is built from them), the objectives a path is picked for, the shared
layouts a conversion's scratch may take, which side of an endpoint is the shared tile, and the kinds of plan (each
one module on the plan floor and one on the emit floor), and the forms an endpoint plan takes, and how narrow elements pair into words."""

from __future__ import annotations

PATHS = ("noop", "registers", "shuffle", "shared")  # the kinds of plan, cheapest first
OBJECTIVES = ("throughput", "latency")  # many CTAs' throughput (plan/cost.py), or one CTA's latency (plan/latency.py)
SWIZZLES = ("optimal", "classic", "unswizzled")  # a conversion's scratch: computed, or one of the baselines' layouts
SHARED_SIDES = ("src", "dst")  # the side of a shared-memory endpoint that is the tile: src for a load, dst for a store
PLAN_KINDS = ("conversion", "endpoint", "tile", "gather", "packed")  # llgen.plan.kinds.PlanKind's kind: which emitter spells it
ENDPOINT_FORMS = ("direct", "two_step", "select")  # EndpointPlan.form: a caller may force each; the smem bench times each
PAIRINGS = ("natural", "free")  # which elements share a 32-bit word: registers 2k, 2k + 1 (natural), or the planner's choice
