"""The CPU oracles above the planner: simulate a plan (or a shared-memory endpoint) on every warp, lane and
register with NumPy, and replay a plan from its JSON alone."""
