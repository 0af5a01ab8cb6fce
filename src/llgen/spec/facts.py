"""What a spec states, read from its syntax alone, before anything is built: its family (``blocked``,
``mma``, ``wgmma``, ``dot_op``, ``slice``, ``linear``, ``mfma``, ``wmma``, ``shared``), its parents'
families, and the warp count and warp size it states (warpsPerCTA, threadsPerWarp, linear warp and
lane bases). The command line takes its defaults from these (llgen.spec.request) and names them when
two disagree."""

from __future__ import annotations

import math
from dataclasses import dataclass

from llgen.core.limits import check_spec_text
from llgen.spec.short import parse_short
from llgen.spec.ttgir import Aliases, AttrParser

# TTGIR attribute name -> family
_ATTR_FAMILY = {
    "blocked": "blocked",
    "nvidia_mma": "mma",
    "dot_op": "dot_op",
    "amd_mfma": "mfma",
    "amd_wmma": "wmma",
    "slice": "slice",
    "linear": "linear",
    "swizzled_shared": "shared",
    "nvmma_shared": "shared",
    "amd_rotating_shared": "shared",
    "shared_linear": "shared",
    "padded_shared": "shared",
    "shared": "shared",  # Triton 3.0-3.2's #triton_gpu.shared
}
_SHORT_FAMILY = {"dot": "dot_op", "swizzled": "shared", "nvmma": "shared"}


@dataclass(frozen=True)
class Stated:
    """A number a spec states, and where: ``Stated(8, "warpsPerCTA [8, 1]")``."""

    value: int
    source: str


@dataclass(frozen=True)
class Facts:
    kind: str  # the spec's own family
    families: frozenset[str]  # its own and its parents'
    warps: Stated | None = None
    lanes: Stated | None = None


def spec_facts(spec: str, aliases: Aliases | None = None) -> Facts:
    """The facts of a short-form, TTGIR or ``@file.json`` spec (errors: one LlgenError sentence)."""
    spec = check_spec_text(spec).strip()
    if spec.startswith("@"):
        from llgen.spec.jsonfile import json_counts

        warps, lanes = json_counts(spec[1:])
        return Facts("linear", frozenset({"linear"}), Stated(warps, f"the {warps} warps of {spec}"), _lanes_of(lanes, spec))
    if spec.startswith("#"):
        return _attr_facts(AttrParser(spec, aliases).parse_attr_all())
    return _short_facts(spec, aliases)


def _attr_facts(attr) -> Facts:
    name, fields = attr
    kind = _ATTR_FAMILY.get(name.removeprefix("ttg.").removeprefix("triton_gpu."), "unknown")
    if kind == "mma" and fields.get("versionMajor", fields.get("version")) == 3:
        kind = "wgmma"
    parent = fields.get("parent")
    inner = _attr_facts(parent) if isinstance(parent, tuple) else None
    warps = _product(fields.get("warpsPerCTA"), "warpsPerCTA")
    lanes = _product(fields.get("threadsPerWarp"), "threadsPerWarp")
    if kind == "linear":
        warps, lanes = _linear(fields.get("warp"), fields.get("lane"))
    return _combine(kind, inner, warps, lanes)


def _short_facts(spec: str, aliases: Aliases | None) -> Facts:
    kind, args, pos = parse_short(spec)
    family = _SHORT_FAMILY.get(kind, kind)
    if kind == "mma" and args.get("version", pos) == 3:
        family = "wgmma"
    inner = spec_facts(args["parent"], aliases) if "parent" in args else None
    warps = _product(args.get("warps_per_cta"), "warps_per_cta")
    lanes = _product(args.get("threads_per_warp"), "threads_per_warp")
    if kind == "linear":
        warps, lanes = _linear(args.get("warp"), args.get("lane"))
    return _combine(family, inner, warps, lanes)


def _combine(kind: str, inner: Facts | None, warps: Stated | None, lanes: Stated | None) -> Facts:
    families = frozenset({kind}) | (inner.families if inner else frozenset())
    if inner is not None:
        warps, lanes = warps or inner.warps, lanes or inner.lanes
    return Facts(kind, families, warps, lanes)


def _product(values, name: str) -> Stated | None:
    """The product of a list of positive integers, or None when the list is not one (the builder says why)."""
    if not isinstance(values, list) or not values:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        return None
    return Stated(math.prod(values), f"{name} {values}")


def _linear(warp, lane) -> tuple[Stated | None, Stated | None]:
    """Warps and lanes of linear bases: 2**(number of bases); a list left out has no bases."""
    warp, lane = [] if warp is None else warp, [] if lane is None else lane
    warps = Stated(1 << len(warp), f"the {len(warp)} warp bases") if isinstance(warp, list) and len(warp) < 32 else None
    lanes = Stated(1 << len(lane), f"the {len(lane)} lane bases") if isinstance(lane, list) and len(lane) < 32 else None
    return warps, lanes


def _lanes_of(count: int, spec: str) -> Stated | None:
    return Stated(count, f"the {count} lanes of {spec}") if count > 1 else None
