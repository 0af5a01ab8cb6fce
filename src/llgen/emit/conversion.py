"""A conversion's source text: the kernel's name and file names, and emit(), which renders a plan's context
(llgen.emit.context) as a standalone kernel or a vendorable header. Same inputs, same bytes.
"""

from __future__ import annotations

import re

from llgen.core.errors import LlgenError
from llgen.emit.context import context
from llgen.emit.endpoint import default_endpoint_name, emit_endpoint
from llgen.emit.environment import check_name, environment

FORMS = ("kernel", "header", "both")


def default_name(plan, kinds: tuple[str, str] | None = None) -> str:
    """``cvt_<A's kind>2<B's kind>_<dtype>_<shape>_<hash>``: the hash covers both layouts' bases, the dtype, the
    target and the warps, so two different conversions never share a name (kinds are the families' short names,
    e.g. ("blocked", "mma"); without them the name says the path)."""
    import hashlib
    import json

    if getattr(plan, "kind", None) == "endpoint":
        return default_endpoint_name(plan, kinds)
    key = json.dumps([plan.src.to_dict(), plan.dst.to_dict(), plan.dtype.name, plan.target.name, plan.warps], sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    what = "2".join(re.sub(r"[^A-Za-z0-9]", "", k) or "x" for k in kinds) if kinds else plan.path
    return f"cvt_{what}_{plan.dtype.name}_{'x'.join(map(str, plan.src.shape))}_{digest}"


def emit(plan, form: str = "header", name: str | None = None, command: str | None = None, header_file: str | None = None) -> str:
    """Source text: form "kernel" (standalone .cu/.hip, which holds the conversion) or "header" (.cuh/.hip.h to
    vendor). ``command``, the command line that asked for it, goes in the opening comment. ``header_file``: the
    kernel includes that header (written beside it, as --form both does) instead of repeating the conversion."""
    if getattr(plan, "kind", None) == "endpoint":  # a local_store / local_load (llgen.emit.endpoint)
        return emit_endpoint(plan, form, name, command, header_file)
    if form not in ("kernel", "header"):
        raise LlgenError(f"unknown form '{form}'; use kernel or header.")
    ctx = context(plan, check_name(name or default_name(plan)), command)
    ctx["header_file"] = header_file if form == "kernel" else None
    return environment().get_template(f"{form}.j2").render(**ctx)


def file_names(plan, name: str | None = None) -> dict[str, str]:
    name = name or default_name(plan)
    if plan.target.is_hip:
        return {"kernel": f"{name}.hip", "header": f"{name}.hip.h"}
    return {"kernel": f"{name}.cu", "header": f"{name}.cuh"}
