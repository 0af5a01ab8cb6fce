"""The conversions llgen is measured and checked on: the named suites (core, regressions, wide, warplocal, and
endpoint: the shared-memory endpoints) and the gather cases."""
