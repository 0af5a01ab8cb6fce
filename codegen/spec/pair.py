"""A conversion's two layouts from what the user said: the specs, the shape and element type, the options
given (None: not given) and the TTGIR module read with --ttgir. Defaults and contradictions are
llgen.spec.request's; caps are checked before anything is built."""

from __future__ import annotations

from dataclasses import dataclass

from ..dtypes import DType
from ..errors import LlgenError
from ..layout import LinearLayout
from .facts import spec_facts
from .limits import ascii_int, check_tile
from .request import Setting, resolve


@dataclass(frozen=True)
class Pair:
    src: LinearLayout
    dst: LinearLayout
    dtype: DType
    target: str
    warps: int
    kinds: tuple[str, str]  # the families of the two specs, e.g. ("blocked", "mma")
    setting: Setting

    def plan(self, path: str | None = None, smem_budget: int | None = None, **options):
        """The plan of the conversion (llgen.plan_conversion); an error names an inferred target."""
        from ..plan import plan_conversion

        try:
            return plan_conversion(self.src, self.dst, self.dtype, self.target, path=path, smem_budget=smem_budget, **options)
        except LlgenError as e:
            raise self.setting.note(e) from None


def parse_shape(text: str) -> tuple[int, ...]:
    """``128x128`` -> (128, 128): ASCII digits, every entry a power of two, at most MAX_TILE_ELEMENTS in all."""
    parts = text.strip().lower().split("x")
    if not text.strip() or len(parts) > 8 or not all(p.strip() for p in parts):
        raise LlgenError(f"shape '{text[:40]}' is not of the form 128x128.")
    shape = tuple(ascii_int(p.strip(), "shape entry") for p in parts)
    for s in shape:
        if s < 1 or s & (s - 1):
            raise LlgenError(f"shape '{text}' holds {s}, which is not a power of two.")
    return check_tile(shape)


def parse_pair(
    src: str,
    dst: str,
    shape: tuple[int, ...],
    dtype: DType,
    *,
    warps: int | None = None,
    threads_per_warp: int | None = None,
    target: str | None = None,
    module=None,
) -> Pair:
    """The layouts of ``src`` -> ``dst`` over ``shape`` and the target they are planned for."""
    from . import parse_layout

    check_tile(shape)
    aliases = module.aliases if module is not None else None
    facts = {"--src": spec_facts(src, aliases), "--dst": spec_facts(dst, aliases)}
    for side, text in (("--src", src), ("--dst", dst)):
        if facts[side].kind == "shared":
            raise LlgenError(
                f"{side} is a shared-memory layout ({_named(text)}); llgen converts between distributed (register) "
                "layouts only, shared endpoints are not supported yet."
            )
    setting = resolve(facts, warps=warps, threads_per_warp=threads_per_warp, target=target, module=module)
    try:
        a = parse_layout(src, shape, setting.warps, setting.lanes, dtype.bytes, aliases)
        b = parse_layout(dst, shape, setting.warps, setting.lanes, dtype.bytes, aliases)
    except LlgenError as e:
        raise setting.note(e) from None
    return Pair(a, b, dtype, setting.target, setting.warps, (facts["--src"].kind, facts["--dst"].kind), setting)


def _named(spec: str) -> str:
    """A spec as an error names it: ``#ttg.padded_shared<...>`` for an attribute, the kind of a short form."""
    spec = spec.strip()
    if spec.startswith("#"):
        return spec.split("<", 1)[0].split("=", 1)[0].strip() + "<...>"
    return spec.split(":", 1)[0].strip()
