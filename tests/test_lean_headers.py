"""Lean headers: a header defines only the helpers its code calls, folds what is known at generation time and
speaks its own language in its comments."""

from __future__ import annotations

import re

import pytest

from llgen.cases.suite import suite
from llgen.cli.examples import _wave64
from llgen.core.errors import LlgenError
from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.randlayout import random_cases

HELPERS = ("shfl_idx", "shfl_xor", "byte_perm")
# expressions whose value or shape generation already knows
DEGENERATE = {
    "a modulo of one": r"% 1 == 0",
    "a select between equal arms": r"\? (\w+) : \1[;),]",
    "a loop that never runs": r"i < 0;",
    "a shift by zero": r">> 0\)",
    "a mask of nothing": r"& 0u\)",
    "a plural of one": r"\b1 warps\b",
}
CUDA_ONLY = ("__syncwarp", "bar.sync", "nvcc", "__CUDACC_DEBUG__", "cudaFuncSetAttribute", "__shfl_sync")


def _plans(tgt: str) -> list:
    plans = []
    for case in suite("core") + suite("regressions"):
        a, b = (case.src, case.dst) if tgt.startswith("sm_") else (_wave64(case.src), _wave64(case.dst))
        if a is None or b is None:
            continue
        for path in (None, "shuffle", "shared"):
            try:
                plans.append(plan_conversion(a, b, case.dtype, tgt, path))
            except LlgenError:
                pass  # a path that cannot do this pair
    return plans + [p for _, p in random_cases(60, 31, tgt)]


@pytest.mark.parametrize("tgt", ["sm_80", "sm_90", "gfx942"])
def test_headers_define_what_they_call_and_fold_what_is_known(tgt):
    seen = set()
    for p in _plans(tgt):
        text = emit(p, "header", "x")
        for h in HELPERS:
            defined = f"unsigned {h}(unsigned" in text
            calls = text.count(f"{h}(") - defined
            assert defined == (calls > 0), f"{h}: defined {defined}, {calls} calls\n{p.explain()}"
            seen.add((h, defined))
        # the group's barrier: defined where the plan's scratch rule or rounds call it (shared plans), else not
        sync_defined = "void group_sync()" in text
        assert sync_defined == (text.count("group_sync<") > 0) == (p.path == "shared"), p.explain()
        seen.add(("group_sync", sync_defined))
        for what, pattern in DEGENERATE.items():
            m = re.search(pattern, text)
            assert not m, f"{what}: {m and m.group(0)!r}\n{p.explain()}"
        if tgt.startswith("gfx"):
            assert not [w for w in CUDA_ONLY if w in text], p.explain()
    assert {(h, d) for h in (*HELPERS, "group_sync") for d in (True, False)} <= seen  # each both left out and kept
