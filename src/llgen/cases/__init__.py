"""The conversions llgen is measured and checked on: the named suites (core, regressions, wide, warplocal, smem)
and the gather cases."""
