"""Parse a layout spec into a `LinearLayout` or an encoding: the entry points (`parse_layout`,
`parse_encoding`), the checks of shape, warp count and warp size, and ``@path.json`` files. The short
form goes to short.py, a TTGIR attribute to ttgir.py, a ``@path.json`` file to jsonfile.py; a short
form's ``parent=(SPEC)`` comes back here through the `ParseParent` short.py is handed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llgen import layouts as L
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.limits import MAX_RANK, check_slots, check_spec_text, check_tile
from llgen.core.target import target as to_target
from llgen.spec.context import ANYWHERE, Context, Where
from llgen.spec.facts import spec_facts
from llgen.spec.jsonfile import read_json_layout
from llgen.spec.request import DEFAULT_WARPS
from llgen.spec.short import encoding_from_short
from llgen.spec.ttgir import AttrParser, encoding_from_attr


def parse_layout(
    spec: str,
    shape: Sequence[int],
    num_warps: int | None = None,
    threads_per_warp: int | None = None,
    *,
    where: Where = ANYWHERE,
) -> LinearLayout:
    """The layout ``spec`` describes over ``shape``, for ``num_warps`` warps of ``threads_per_warp``
    lanes. Left out (None), both come from the spec as on the command line: the warps its warpsPerCTA
    or warp bases state, else 4; the lanes its threadsPerWarp or lane bases state, else
    ``where.target``'s warp size, else the kind's own (64 for mfma, else 32). ``where`` also gives
    the element size and the aliases that resolve ``#name`` references (a TTGIR file's, see
    llgen.spec.module)."""
    shape = _check_tensor_shape(shape)
    spec = check_spec_text(spec).strip()
    if spec.startswith("@"):
        lay = read_json_layout(spec[1:], shape)
    else:
        lay = parse_encoding(spec, shape, num_warps, threads_per_warp, where=where).to_linear(shape)
    check_slots(lay, spec)
    return lay


def parse_encoding(
    spec: str,
    shape: Sequence[int],
    num_warps: int | None = None,
    threads_per_warp: int | None = None,
    *,
    where: Where = ANYWHERE,
):
    """The encoding object (e.g. `llgen.layouts.Blocked`) of a short-form or TTGIR spec, checked
    against ``shape``'s rank, the warp count and the warp size (None: inferred, see `parse_layout`)."""
    spec = check_spec_text(spec).strip()
    if num_warps is None or threads_per_warp is None:
        num_warps, threads_per_warp = _stated(spec, where, num_warps, threads_per_warp)
    ctx = Context(_check_tensor_shape(shape), num_warps, threads_per_warp, where.dtype_bytes, where.aliases)
    if spec.startswith("#"):
        enc = encoding_from_attr(AttrParser(spec, where.aliases).parse_attr_all(), ctx)
    else:
        enc = encoding_from_short(spec, ctx, _parse_parent)
    if enc.rank != len(shape):
        raise LlgenError(f"layout '{_brief(spec)}' has rank {enc.rank} but the shape {list(shape)} has rank {len(shape)}.")
    _check_warps(enc, ctx)
    return enc


def _parse_parent(spec: str, shape, ctx: Context):
    """A short form's ``parent=(SPEC)``, short-form or TTGIR, through `parse_encoding` with ``ctx``'s warps,
    warp size, element size and aliases (short.py is handed this, so it need not import this module)."""
    return parse_encoding(spec, shape, ctx.num_warps, ctx.tpw, where=ctx.where())


def _stated(spec: str, where: Where, num_warps, threads_per_warp) -> tuple[int, int | None]:
    """The warp count and warp size a spec states (llgen.spec.facts) where the caller gave none. A
    count no GPU runs (3 warps, a warp of 16) is not taken: the layout's own check names it."""
    facts = spec_facts(spec, where.aliases)
    target = where.target
    if num_warps is None:
        stated = facts.warps.value if facts.warps else 0
        num_warps = stated if stated and not stated & (stated - 1) else DEFAULT_WARPS
    if threads_per_warp is None:
        stated = facts.lanes.value if facts.lanes else 0
        threads_per_warp = stated if stated in (32, 64) else to_target(target).lanes if target else None
    return num_warps, threads_per_warp


def _brief(spec: str) -> str:
    return spec if len(spec) <= 120 else spec[:117] + "..."


def _spelled(shape: Sequence) -> str:
    """A shape as the command line spells it: 96x128."""
    return "x".join(str(s) for s in shape)


def _check_tensor_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """The shape as a tuple of powers of two, rank 1 or more; otherwise a one-sentence error."""
    shape = tuple(shape)
    if not shape:
        raise LlgenError("shape [] has rank 0, but a layout needs a tensor of rank 1 or more.")
    if len(shape) > MAX_RANK:
        raise LlgenError(f"shape {_spelled(shape)} has rank {len(shape)}, over llgen's limit of {MAX_RANK}.")
    for s in shape:
        if not isinstance(s, int) or isinstance(s, bool) or s < 1 or s & (s - 1):
            raise LlgenError(f"shape {_spelled(shape)} holds {s}, which is not a power of two.")
    return check_tile(shape)


def _check_warps(enc, ctx: Context) -> None:
    """Warp size and warp count of an encoding against the requested ones."""
    inner = enc
    while isinstance(inner, (L.Slice, L.DotOperand)):
        inner = inner.parent
    if isinstance(inner, L.Blocked):
        lanes = math.prod(inner.threads_per_warp)
        if lanes != ctx.warp_size():
            raise LlgenError(
                f"threads_per_warp {list(inner.threads_per_warp)} holds {lanes} lanes, not the warp size {ctx.warp_size()}."
            )
    elif isinstance(inner, L.AmdMfma) and ctx.warp_size(64) != 64:
        raise LlgenError(f"mfma layouts need 64 threads per warp, not {ctx.tpw}.")
    elif isinstance(inner, (L.AmdWmma, L.NvidiaMma)) and ctx.warp_size() != 32:
        family = "wmma" if isinstance(inner, L.AmdWmma) else "nvidia_mma"
        raise LlgenError(f"{family} layouts need 32 threads per warp, not {ctx.tpw}.")
    wpc = getattr(inner, "warps_per_cta", None)
    if wpc is not None and math.prod(wpc) != ctx.num_warps:
        raise LlgenError(f"warps_per_cta {list(wpc)} holds {math.prod(wpc)} warps but {ctx.num_warps} were requested.")
    if isinstance(inner, L.Linear):
        warps = 1 << len(inner.warp)
        lanes = 1 << len(inner.lane)
        if warps != ctx.num_warps:
            raise LlgenError(f"the linear layout has {warps} warps but {ctx.num_warps} were requested.")
        if lanes != ctx.warp_size():
            raise LlgenError(f"the linear layout has {lanes} lanes per warp, not the warp size {ctx.warp_size()}.")
