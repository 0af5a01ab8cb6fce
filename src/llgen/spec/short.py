"""The short form ``kind[:key=value,...]``: ``blocked``, ``blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0``, ``mma``,
``mma:v=3,wpc=4x1,instr=16x128x16``, ``wgmma:n=128``, ``dot:op=0,k_width=2[,parent=(SPEC)]``, ``mfma:32``,
``wmma[:v=1]``, ``slice:dim=1,parent=(SPEC)``, ``swizzled:vec=8,per_phase=1,max_phase=8,order=1x0``,
``nvmma:128``, ``linear:register=[[0,1]],lane=[...],warp=[...]``. Values are ints, ``true``/``false``,
``AxB`` or ``[a, b]`` lists and ``(SPEC)`` parents; keys left out take the defaults of defaults.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from llgen import layouts as L
from llgen.core.errors import LlgenError
from llgen.core.limits import ascii_int
from llgen.layouts.common import check_order, check_pow2
from llgen.spec.context import Context
from llgen.spec.defaults import (
    accumulator_guess,
    coalesced_blocked,
    default_max_phase,
    default_mfma_instr_shape,
    default_mma_k_width,
    default_per_phase,
    default_swizzle_bytes,
    default_swizzled_vec,
    default_wgmma_instr_shape,
    default_wgmma_n,
    default_wmma_instr_shape,
    warps_per_tile,
    warps_per_tile_v3,
)
from llgen.spec.ttgir import AttrParser, Value, as_bool, as_int, bases, cga_bases, int_tuple, tiles_per_warp_or_ones

# builds a ``parent=(SPEC)``, short-form or TTGIR, over a shape in a context: llgen.spec.parse hands its entry point
ParseParent = Callable[[str, Sequence[int], Context], object]

_NUMBER = re.compile(r"-?[0-9]+")

_KEYS = {
    "spt": "size_per_thread",
    "size_per_thread": "size_per_thread",
    "sizePerThread": "size_per_thread",
    "tpw": "threads_per_warp",
    "threads_per_warp": "threads_per_warp",
    "threadsPerWarp": "threads_per_warp",
    "wpc": "warps_per_cta",
    "warps": "warps_per_cta",
    "warps_per_cta": "warps_per_cta",
    "warpsPerCTA": "warps_per_cta",
    "order": "order",
    "v": "version",
    "version": "version",
    "instr": "instr_shape",
    "instr_shape": "instr_shape",
    "op": "operand_index",
    "operand_index": "operand_index",
    "opIdx": "operand_index",
    "k_width": "k_width",
    "kw": "k_width",
    "kWidth": "k_width",
    "parent": "parent",
    "dim": "dim",
    "n": "n",
    "transposed": "transposed",
    "trans": "transposed",
    "tiles": "tiles_per_warp",
    "tiles_per_warp": "tiles_per_warp",
    "bits": "element_bitwidth",
    "element_bitwidth": "element_bitwidth",
    "vec": "vec",
    "per_phase": "per_phase",
    "max_phase": "max_phase",
    "swizzle": "swizzle_byte_width",
    "cga": "cga_layout",
    "cga_layout": "cga_layout",
    "ctas": "ctas_per_cga",
    "split": "cta_split_num",
    "cta_order": "cta_order",
    "register": "register",
    "lane": "lane",
    "warp": "warp",
    "block": "block",
}


def parse_short(spec: str) -> tuple[str, dict, Value | None]:
    """``kind[:k=v,...]`` -> (kind, {canonical key: value}, positional value or None): the syntax alone,
    without building anything. ``parent`` values stay spec strings."""
    kind, _, rest = spec.partition(":")
    kind = kind.strip()
    if kind not in _SHORT_KINDS:
        shown = kind if len(kind) <= 40 else kind[:37] + "..."
        raise LlgenError(f"unknown layout kind '{shown}' (known: {', '.join(sorted(_SHORT_KINDS))}).")
    args = _parse_short_args(rest, spec) if rest.strip() else {}
    pos = args.pop("_positional", None)
    return kind, args, pos


def encoding_from_short(spec: str, ctx: Context, parse_parent: ParseParent):
    """The encoding of a short-form spec in ``ctx``; ``parse_parent`` builds its ``parent=(SPEC)`` if it has one."""
    kind, args, pos = parse_short(spec)
    return _SHORT_KINDS[kind](args, pos, ctx, parse_parent)


def _parse_short_args(text: str, spec: str) -> dict:
    """``k=v,k=v`` with values ``AxB``, ints, true/false, ``[..]`` lists or ``(SPEC)`` parents; each key once."""
    out: dict = {}
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for part in parts:
        part = part.strip()
        if "=" not in part:
            if "_positional" in out or not part:
                raise LlgenError(f"'{part}' in layout '{spec}' is not of the form key=value.")
            out["_positional"] = _short_value(part, spec)
            continue
        key, _, val = part.partition("=")
        key = key.strip()
        if key not in _KEYS:
            raise LlgenError(f"unknown parameter '{key}' in layout '{spec}'.")
        if _KEYS[key] in out:
            raise LlgenError(f"parameter '{key}' in layout '{spec}' is given twice.")
        val = val.strip()
        if _KEYS[key] == "parent":
            if not (val.startswith("(") and val.endswith(")")):
                raise LlgenError(f"parent in layout '{spec}' must be a spec in parentheses, like parent=(mma).")
            out["parent"] = val[1:-1]
        else:
            out[_KEYS[key]] = _short_value(val, spec)
    return out


def _short_value(val: str, spec: str) -> Value:
    if val.startswith("["):
        return AttrParser(val).parse_value_all()
    if val in ("true", "false"):
        return val == "true"
    parts = val.split("x")
    if not all(_NUMBER.fullmatch(x) for x in parts):
        raise LlgenError(f"value '{val}' in layout '{spec}' is not a number, an AxB list or a [..] list.")
    nums = [ascii_int(x, "value") for x in parts]
    return nums if "x" in val else nums[0]


def _pow2_tuple(v, what: str) -> tuple[int, ...]:
    """A list of powers of two, checked before a default is computed from it."""
    return check_pow2(what, int_tuple(v, what))


def _short_blocked(a: dict, _pos, ctx: Context, _parse_parent: ParseParent):
    if not a:
        return coalesced_blocked(ctx.shape, ctx.num_warps, ctx.warp_size(), ctx.dtype_bytes)
    rank = len(ctx.shape)
    d = coalesced_blocked(ctx.shape, ctx.num_warps, ctx.warp_size(), ctx.dtype_bytes)
    return L.Blocked(
        int_tuple(a.get("size_per_thread", list(d.size_per_thread)), "size_per_thread"),
        int_tuple(a.get("threads_per_warp", list(d.threads_per_warp)), "threads_per_warp"),
        int_tuple(a.get("warps_per_cta", list(d.warps_per_cta)), "warps_per_cta"),
        int_tuple(a.get("order", list(range(rank - 1, -1, -1))), "order"),
        cga_bases(a, rank),
    )


def _short_mma(a: dict, pos, ctx: Context, parse_parent: ParseParent):
    version = as_int(a.get("version", pos if pos is not None else 2), "mma version")
    if version == 3:
        return _short_wgmma(a, None, ctx, parse_parent)
    wpc = a.get("warps_per_cta") or list(warps_per_tile(ctx.shape, ctx.num_warps, (16, 8)))
    instr = a.get("instr_shape", list(L.nvidia.default_instr_shape(2, len(ctx.shape))))
    return L.NvidiaMma(version, int_tuple(wpc, "warps_per_cta"), int_tuple(instr, "instr_shape"), cga_bases(a, len(ctx.shape)))


def _short_wgmma(a: dict, pos, ctx: Context, _parse_parent: ParseParent):
    instr = _pow2_tuple(a["instr_shape"], "instr_shape") if "instr_shape" in a else None
    if instr is not None and len(instr) != 3:
        raise LlgenError(f"wgmma instr_shape {list(instr)} must have 3 entries, like [16, 128, 16].")
    n = as_int(a.get("n", pos) or (instr[1] if instr else default_wgmma_n(ctx.shape)), "wgmma n")
    check_pow2("wgmma n", [n])
    instr = instr or default_wgmma_instr_shape(n, ctx.dtype_bytes)
    wpc = a.get("warps_per_cta") or list(warps_per_tile_v3(ctx.shape, ctx.num_warps, n))
    return L.NvidiaMma(3, int_tuple(wpc, "warps_per_cta"), tuple(instr), cga_bases(a, len(ctx.shape)))


def _short_dot(a: dict, pos, ctx: Context, parse_parent: ParseParent):
    op = as_int(a.get("operand_index", pos if pos is not None else 0), "dot operand index")
    if op not in (0, 1):
        raise LlgenError(f"dot operand index {op} must be 0 (A) or 1 (B).")
    parent = (
        parse_parent(a["parent"], ctx.shape, ctx)
        if "parent" in a
        else _short_mma({}, None, ctx.with_shape(accumulator_guess(ctx.shape, op)), parse_parent)
    )
    return L.DotOperand(op, parent, as_int(a.get("k_width", default_mma_k_width(ctx.dtype_bytes)), "k_width"))


def _short_mfma(a: dict, pos, ctx: Context, _parse_parent: ParseParent):
    non_k = as_int(a.get("n", pos) or 32, "mfma size")
    if "instr_shape" in a:
        instr = _pow2_tuple(a["instr_shape"], "instr_shape")
        if len(instr) != 3:
            raise LlgenError(f"mfma instr_shape {list(instr)} must have 3 entries, like [32, 32, 8].")
    else:
        check_pow2("mfma size", [non_k])
        instr = tuple(default_mfma_instr_shape(non_k, ctx.dtype_bytes))
    wpc = int_tuple(a.get("warps_per_cta") or list(warps_per_tile(ctx.shape, ctx.num_warps, instr[:2])), "warps_per_cta")
    return L.AmdMfma(
        wpc,
        tiles_per_warp_or_ones(a, wpc, "tiles_per_warp"),
        cga_bases(a, len(ctx.shape)),
        instr,
        as_bool(a.get("transposed", False), "transposed"),
        as_int(a.get("element_bitwidth", 32), "element_bitwidth"),
        as_int(a.get("version", 3), "mfma version"),
    )


def _short_wmma(a: dict, pos, ctx: Context, _parse_parent: ParseParent):
    version = as_int(a.get("version", pos if pos is not None else 2), "wmma version")
    wpc = int_tuple(a.get("warps_per_cta") or list(warps_per_tile(ctx.shape, ctx.num_warps, (16, 16))), "warps_per_cta")
    instr = a.get("instr_shape", default_wmma_instr_shape(version))
    return L.AmdWmma(
        wpc,
        tiles_per_warp_or_ones(a, wpc, "tiles_per_warp"),
        cga_bases(a, len(ctx.shape)),
        version,
        as_bool(a.get("transposed", False), "transposed"),
        int_tuple(instr, "instr_shape"),
    )


def _short_slice(a: dict, pos, ctx: Context, parse_parent: ParseParent):
    dim = a.get("dim", pos)
    if not isinstance(dim, int) or isinstance(dim, bool) or not 0 <= dim <= len(ctx.shape):
        raise LlgenError(f"slice dim {dim} must be an integer in 0..{len(ctx.shape)}.")
    parent_shape = list(ctx.shape)
    parent_shape.insert(dim, 1)
    pctx = ctx.with_shape(parent_shape)
    parent = parse_parent(a["parent"], parent_shape, ctx) if "parent" in a else _short_blocked({}, None, pctx, parse_parent)
    return L.Slice(dim, parent)


def _short_swizzled(a: dict, _pos, ctx: Context, _parse_parent: ParseParent):
    rank = len(ctx.shape)
    order = check_order(int_tuple(a.get("order", list(range(rank - 1, -1, -1))), "order"), rank)
    vec = as_int(a.get("vec", default_swizzled_vec(ctx.dtype_bytes)), "vec")
    per_phase = as_int(a.get("per_phase", default_per_phase(ctx.shape[order[0]], ctx.dtype_bytes)), "per_phase")
    check_pow2("per_phase", [per_phase])
    max_phase = as_int(a.get("max_phase", default_max_phase(per_phase)), "max_phase")
    return L.SwizzledShared(vec, per_phase, max_phase, order, cga_bases(a, rank))


def _short_nvmma(a: dict, pos, ctx: Context, _parse_parent: ParseParent):
    swz = a.get("swizzle_byte_width", pos if pos is not None else default_swizzle_bytes(ctx.shape, ctx.dtype_bytes))
    return L.NvmmaShared(
        as_int(swz, "swizzle"),
        as_int(a.get("element_bitwidth", 8 * ctx.dtype_bytes), "element_bitwidth"),
        as_bool(a.get("transposed", False), "transposed"),
        len(ctx.shape),
        cga_bases(a, len(ctx.shape)),
    )


def _short_linear(a: dict, _pos, _ctx: Context, _parse_parent: ParseParent):
    return L.Linear(*(bases(a.get(name, []), name) for name in ("register", "lane", "warp", "block")))


# kind -> builder(args, positional value, ctx, parse_parent); only dot and slice build a parent
_SHORT_KINDS = {
    "blocked": _short_blocked,
    "mma": _short_mma,
    "wgmma": _short_wgmma,
    "dot": _short_dot,
    "mfma": _short_mfma,
    "wmma": _short_wmma,
    "slice": _short_slice,
    "swizzled": _short_swizzled,
    "nvmma": _short_nvmma,
    "linear": _short_linear,
}
