"""A conversion's source text: the Jinja environment over templates/, the kernel's name and file names,
and emit(), which renders a plan's context (llgen.emit.context) as a standalone kernel or a vendorable header.
Same inputs, same bytes.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..errors import LlgenError
from .context import context

FORMS = ("kernel", "header", "both")


@lru_cache(maxsize=1)
def environment():
    """The Jinja environment over the package's templates (llgen.templates), loaded once."""
    import importlib.resources

    import jinja2

    root = importlib.resources.files("llgen.templates")
    loader = jinja2.DictLoader({p.name: p.read_text() for p in root.iterdir() if p.name.endswith(".j2")})
    return jinja2.Environment(
        loader=loader, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined
    )


def default_name(plan) -> str:
    return f"cvt_{plan.path}_{plan.dtype.name}_{'x'.join(map(str, plan.src.shape))}"


def check_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise LlgenError(f"--name '{name}' is not a C identifier.")
    return name


def emit(plan, form: str = "header", name: str | None = None) -> str:
    """Source text: form "kernel" (standalone .cu/.hip, which includes the conversion) or
    "header" (.cuh/.hip.h to vendor)."""
    if form not in ("kernel", "header"):
        raise LlgenError(f"unknown form '{form}'; use kernel or header.")
    ctx = context(plan, check_name(name or default_name(plan)))
    return environment().get_template(f"{form}.j2").render(**ctx)


def file_names(plan, name: str | None = None) -> dict[str, str]:
    name = name or default_name(plan)
    if plan.target.lang == "cuda":
        return {"kernel": f"{name}.cu", "header": f"{name}.cuh"}
    return {"kernel": f"{name}.hip", "header": f"{name}.hip.h"}
