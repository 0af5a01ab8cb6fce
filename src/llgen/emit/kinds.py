"""One emitter per plan kind, and the four functions that serve every kind: emit, default_name, file_names and
dynamic_smem. A plan says its kind (``plan.kind``: conversion, endpoint, tile, gather); the kind's module here spells
it (``name``, ``render``, ``dynamic_smem``), so a new plan kind is one module on each floor and one line below."""

from __future__ import annotations

from types import ModuleType

from llgen.core.errors import LlgenError
from llgen.emit import conversion, endpoint, gather, packed, tile
from llgen.emit.environment import check_name

EMITTERS: dict[str, ModuleType] = {
    "conversion": conversion,
    "endpoint": endpoint,
    "tile": tile,
    "gather": gather,
    "packed": packed,
}
FORMS = ("kernel", "header", "both")


def _emitter(plan) -> ModuleType:
    try:
        return EMITTERS[plan.kind]
    except (AttributeError, KeyError):
        raise LlgenError(f"no emitter for a {type(plan).__name__}: plans of kinds {', '.join(EMITTERS)} are emitted.") from None


def default_name(plan, kinds: tuple[str, str] | None = None) -> str:
    """The plan's C++ namespace and file stem when none is given: its kind's prefix, what it converts (``kinds``: the
    families' short names, else the path), the dtype, the shape and a hash of everything that decides its code."""
    return _emitter(plan).name(plan, kinds)


def emit(plan, form: str = "header", name: str | None = None, command: str | None = None, header_file: str | None = None) -> str:
    """Source text: form "kernel" (a standalone .cu/.hip that llgen check runs; ``header_file``: it includes that header,
    written beside it, instead of repeating it) or "header" (.cuh/.hip.h to vendor). ``command``, the command line
    that asked for it, goes in the opening comment."""
    if form not in ("kernel", "header"):
        raise LlgenError(f"unknown form '{form}'; use kernel or header.")
    return _emitter(plan).render(plan, form, check_name(name or default_name(plan)), command, header_file)


def file_names(plan, name: str | None = None) -> dict[str, str]:
    """The kernel's and the header's file names: .cu/.cuh for CUDA, .hip/.hip.h for HIP."""
    name = name or default_name(plan)
    if plan.target.is_hip:
        return {"kernel": f"{name}.hip", "header": f"{name}.hip.h"}
    return {"kernel": f"{name}.cu", "header": f"{name}.cuh"}


def dynamic_smem(plan) -> int:
    """Bytes of dynamic shared memory the plan's standalone kernels take at launch (0 where their scratch is static)."""
    return _emitter(plan).dynamic_smem(plan)
