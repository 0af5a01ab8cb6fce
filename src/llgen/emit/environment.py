"""What every emitter renders through: the Jinja environment over src/llgen/templates/ (loaded once) and the check of a
kernel or namespace name."""

from __future__ import annotations

from functools import lru_cache


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


def check_name(name: str) -> str:
    """A name for the namespace and kernels (llgen.core.names.check_identifier: a C++ identifier, no keyword)."""
    from llgen.core.names import check_identifier

    return check_identifier(name)
