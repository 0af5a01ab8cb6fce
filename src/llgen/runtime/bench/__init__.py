"""`llgen bench`: measure the suites' conversions on a GPU beside their baselines, and write the report."""
