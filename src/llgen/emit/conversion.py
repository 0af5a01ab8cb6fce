"""A conversion plan (llgen.plan.Plan) as source text: its name, and the standalone kernel or the vendorable header
rendered from its context (llgen.emit.context). Same inputs, same bytes."""

from __future__ import annotations

import hashlib
import json
import re

from llgen.emit.context import context
from llgen.emit.environment import environment


def name(plan, kinds: tuple[str, str] | None = None) -> str:
    """``cvt_<A's kind>2<B's kind>_<dtype>_<shape>_<hash>``: the hash covers both layouts' bases, the dtype, the
    target and the warps, so two different conversions never share a name (kinds are the families' short names,
    e.g. ("blocked", "mma"); without them the name says the path)."""
    key = json.dumps([plan.src.to_dict(), plan.dst.to_dict(), plan.dtype.name, plan.target.name, plan.warps], sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    what = "2".join(re.sub(r"[^A-Za-z0-9]", "", k) or "x" for k in kinds) if kinds else plan.path
    return f"cvt_{what}_{plan.dtype.name}_{'x'.join(map(str, plan.src.shape))}_{digest}"


def render(
    plan, form: str, kernel_name: str, command: str | None = None, header_file: str | None = None, packed: dict | None = None
) -> str:
    """Form "kernel" (standalone .cu/.hip, which holds the conversion, or includes ``header_file`` written beside it)
    or "header" (.cuh/.hip.h to vendor); ``packed``: a 4-bit plan's packing, for the byte plan ``plan``
    (llgen.emit.packed)."""
    ctx = context(plan, kernel_name, command)
    ctx["packed"] = packed
    ctx["header_file"] = header_file if form == "kernel" else None
    return environment().get_template(f"{form}.j2").render(**ctx)


def dynamic_smem(plan) -> int:
    """Dynamic shared memory the standalone kernels take at launch: their scratch where the plan says it is dynamic
    (Plan.dynamic_smem), else 0."""
    return plan.smem_bytes if plan.dynamic_smem else 0
