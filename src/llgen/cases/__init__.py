"""The conversions llgen is measured and checked on: the named suites (core, regressions, wide, warplocal, and
smem: the endpoint suite) and the gather cases."""
