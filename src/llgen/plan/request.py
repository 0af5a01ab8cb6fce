"""A parsed pair (llgen.spec.pair) planned as its Options say: the conversion's plan, or with a shared side the
endpoint's."""

from __future__ import annotations

from llgen.core.errors import LlgenError
from llgen.core.options import DEFAULTS, Options
from llgen.plan import plan_conversion
from llgen.plan.endpoint import plan_load, plan_store
from llgen.spec.pair import Pair


def plan_pair(pair: Pair, options: Options = DEFAULTS):
    """The pair's plan: the conversion's (plan_conversion), or with a shared side the endpoint's (plan_endpoint; the
    conversion options do not apply there); an error names an inferred target."""
    if pair.shared:
        return plan_endpoint(pair, options)
    try:
        return plan_conversion(pair.src, pair.dst, pair.dtype, pair.target, options=options)
    except LlgenError as e:
        raise pair.setting.note(e) from None


def plan_endpoint(pair: Pair, options: Options = DEFAULTS):
    """The shared-memory endpoint's plan (llgen.plan.endpoint): a store (--dst shared) or a load (--src shared)."""
    for flag, given in (("--path", options.path), ("--smem-budget", options.smem_budget)):
        if given is not None:
            raise LlgenError(f"{flag} does not apply to a shared-memory endpoint, whose layout fixes the buffer.")
    if options.pairing != "natural":
        raise LlgenError(
            f"--pairing {options.pairing} does not apply to a shared-memory endpoint: the shared layout fixes which elements "
            "share a word in the buffer."
        )
    shared = pair.encoding if pair.encoding is not None else (pair.src if pair.shared == "src" else pair.dst)
    try:
        if pair.shared == "dst":
            return plan_store(pair.src, shared, pair.dtype, pair.target)
        return plan_load(shared, pair.dst, pair.dtype, pair.target)
    except LlgenError as e:
        raise pair.setting.note(e) from None
