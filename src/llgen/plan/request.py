"""A parsed pair (llgen.spec.pair) planned: the conversion's plan, or with a shared side the endpoint's."""

from __future__ import annotations

from llgen.core.errors import LlgenError
from llgen.plan import plan_conversion
from llgen.plan.endpoint import plan_load, plan_store
from llgen.spec.pair import Pair


def plan_pair(pair: Pair, path: str | None = None, smem_budget: int | None = None, **options):
    """The pair's plan: the conversion's (plan_conversion), or with a shared side the endpoint's (plan_endpoint; the
    conversion options do not apply there); an error names an inferred target."""
    if pair.shared:
        return plan_endpoint(pair, path, smem_budget)
    try:
        return plan_conversion(pair.src, pair.dst, pair.dtype, pair.target, path=path, smem_budget=smem_budget, **options)
    except LlgenError as e:
        raise pair.setting.note(e) from None


def plan_endpoint(pair: Pair, path: str | None = None, smem_budget: int | None = None):
    """The local_store (--dst shared) or local_load (--src shared) plan (llgen.plan.endpoint)."""
    for flag, given in (("--path", path), ("--smem-budget", smem_budget)):
        if given is not None:
            raise LlgenError(f"{flag} does not apply to a shared-memory endpoint, whose layout fixes the buffer.")
    shared = pair.encoding if pair.encoding is not None else (pair.src if pair.shared == "--src" else pair.dst)
    try:
        if pair.shared == "--dst":
            return plan_store(pair.src, shared, pair.dtype, pair.target)
        return plan_load(shared, pair.dst, pair.dtype, pair.target)
    except LlgenError as e:
        raise pair.setting.note(e) from None
