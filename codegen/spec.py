"""Parse a layout spec into a `LinearLayout`.

A spec is one of:

* a short form ``kind[:key=value,...]``: ``blocked``, ``blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0``, ``mma``,
  ``mma:v=3,wpc=4x1,instr=16x128x16``, ``wgmma:n=128``, ``dot:op=0,k_width=2[,parent=(SPEC)]``, ``mfma:32``,
  ``wmma[:v=1]``, ``slice:dim=1,parent=(SPEC)``, ``swizzled:vec=8,per_phase=1,max_phase=8,order=1x0``,
  ``nvmma:128``, ``linear:register=[[0,1]],lane=[...],warp=[...]``. Lists are ``AxB`` or ``[a, b]``.
* a Triton TTGIR attribute, exactly as Triton prints it (``#ttg.blocked<{...}>``, ``#ttg.nvidia_mma<{...}>``,
  ``#ttg.dot_op<{...}>``, ``#ttg.amd_mfma<{...}>``, ``#ttg.amd_wmma<{...}>``, ``#ttg.slice<{...}>``,
  ``#ttg.linear<{...}>``, ``#ttg.swizzled_shared<{...}>``, ``#ttg.nvmma_shared<{...}>``), with the optional cluster
  fields ``CGALayout`` (Triton 3.6) or ``CTAsPerCGA`` / ``CTASplitNum`` / ``CTAOrder`` (older Triton). Tensors
  of rank 1 to 3 are accepted wherever Triton builds the family (a batched mma v2 prints
  ``instrShape = [1, 16, 8]``, AMD layouts one ``tilesPerWarp`` entry per dim); a ``#ttg.linear`` over a tensor of
  another shape than its bases span is resized as Triton resizes it.
* ``@path.json``: a layout in `LinearLayout.to_dict` form.

Defaults for bare names are chosen the way Triton's passes choose them: each heuristic is a
named function below (coalesced_blocked, warps_per_tile, warps_per_tile_v3, ...). Every error is an `LlgenError`
with one sentence naming the bad value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from . import layouts as L
from .errors import LlgenError
from .layout import LinearLayout

Value = int | bool | str | list | dict


# ---------------------------------------------------------------------------------- entry point
def parse_layout(spec: str, shape: Sequence[int], num_warps: int = 4, threads_per_warp: int | None = None,
                 dtype_bytes: int = 2) -> LinearLayout:
    """The layout ``spec`` describes over ``shape``, for ``num_warps`` warps of ``threads_per_warp``
    lanes (None: the kind's own warp size, 64 for mfma, else 32) and elements of ``dtype_bytes``."""
    shape = _check_tensor_shape(shape)
    spec = spec.strip()
    if spec.startswith("@"):
        return _from_json_file(spec[1:], shape)
    enc = parse_encoding(spec, shape, num_warps, threads_per_warp, dtype_bytes)
    return enc.to_linear(shape)


def parse_encoding(spec: str, shape: Sequence[int], num_warps: int = 4, threads_per_warp: int | None = None,
                   dtype_bytes: int = 2):
    """The encoding object (e.g. `llgen.layouts.Blocked`) of a short-form or TTGIR spec, checked
    against ``shape``'s rank, the warp count and the warp size."""
    spec = spec.strip()
    ctx = _Context(_check_tensor_shape(shape), num_warps, threads_per_warp, dtype_bytes)
    if spec.startswith("#"):
        enc = _encoding_from_attr(_AttrParser(spec).parse_attr_all(), ctx)
    else:
        enc = _encoding_from_short(spec, ctx)
    if enc.rank != len(shape):
        raise LlgenError(f"layout '{spec}' has rank {enc.rank} but the shape {list(shape)} has rank {len(shape)}.")
    _check_warps(enc, ctx, spec)
    return enc


def _check_tensor_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """The shape as a tuple of powers of two, rank 1 or more; otherwise a one-sentence error."""
    shape = tuple(shape)
    if not shape:
        raise LlgenError("shape [] has rank 0, but a layout needs a tensor of rank 1 or more.")
    for s in shape:
        if not isinstance(s, int) or isinstance(s, bool) or s < 1 or s & (s - 1):
            raise LlgenError(f"shape {list(shape)} holds {s}, which is not a power of two.")
    return shape


class _Context:
    def __init__(self, shape, num_warps, threads_per_warp, dtype_bytes):
        if not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1):
            raise LlgenError(f"warp count {num_warps} is not a power of two.")
        if threads_per_warp not in (None, 32, 64):
            raise LlgenError(f"threads per warp {threads_per_warp} must be 32 or 64.")
        if dtype_bytes not in (1, 2, 4, 8):
            raise LlgenError(f"element size {dtype_bytes} bytes must be 1, 2, 4 or 8.")
        self.shape, self.num_warps, self.tpw, self.dtype_bytes = shape, num_warps, threads_per_warp, dtype_bytes

    def warp_size(self, kind_default: int = 32) -> int:
        return self.tpw or kind_default

    def with_shape(self, shape):
        return _Context(tuple(shape), self.num_warps, self.tpw, self.dtype_bytes)


def _check_warps(enc, ctx: _Context, spec: str) -> None:
    """Warp size and warp count of an encoding against the requested ones."""
    inner = enc
    while isinstance(inner, (L.Slice, L.DotOperand)):
        inner = inner.parent
    if isinstance(inner, L.Blocked):
        lanes = math.prod(inner.threads_per_warp)
        if lanes != ctx.warp_size():
            raise LlgenError(f"threads_per_warp {list(inner.threads_per_warp)} holds {lanes} lanes, not the warp size {ctx.warp_size()}.")
    elif isinstance(inner, L.AmdMfma) and ctx.warp_size(64) != 64:
        raise LlgenError(f"mfma layouts need 64 threads per warp, not {ctx.tpw}.")
    elif isinstance(inner, (L.AmdWmma, L.NvidiaMma)) and ctx.warp_size() != 32:
        raise LlgenError(f"{type(inner).__name__} layouts need 32 threads per warp, not {ctx.tpw}.")
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


def _from_json_file(path: str, shape) -> LinearLayout:
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise LlgenError(f"cannot read layout file '{path}': {e.strerror}.") from None
    except json.JSONDecodeError as e:
        raise LlgenError(f"layout file '{path}' is not JSON ({e.msg} at line {e.lineno} column {e.colno}).") from None
    lay = LinearLayout.from_dict(data)
    if lay.shape != tuple(shape):
        raise LlgenError(f"layout file '{path}' covers shape {list(lay.shape)}, not the requested {list(shape)}.")
    return lay


# ---------------------------------------------------------------------------------- defaults
def coalesced_blocked(shape: Sequence[int], num_warps: int, threads_per_warp: int, dtype_bytes: int) -> L.Blocked:
    """What Triton's coalesce pass picks for a contiguous row-major tensor: 16 bytes per thread
    along the last dim (fewer when the tensor has fewer elements than that per thread), then
    lanes and warps spread fastest dim first (BlockedEncodingAttr::get)."""
    rank = len(shape)
    order = list(range(rank - 1, -1, -1))
    per_thread = min(16 // dtype_bytes, shape[-1], max(1, math.prod(shape) // (num_warps * threads_per_warp)))
    spt = [1] * rank
    spt[-1] = per_thread
    tpw, wpc = [1] * rank, [1] * rank
    lanes, threads, warps, prev_lanes, prev_warps = threads_per_warp, num_warps * threads_per_warp, num_warps, 1, 1
    for i in order[:-1]:
        per_cta = min(max(threads, 1), max(1, shape[i] // spt[i]))
        tpw[i] = min(max(per_cta, 1), lanes)
        wpc[i] = min(max(per_cta // tpw[i], 1), warps)
        warps //= wpc[i]
        lanes //= tpw[i]
        threads //= per_cta
        prev_lanes *= tpw[i]
        prev_warps *= wpc[i]
    tpw[order[-1]] = threads_per_warp // prev_lanes
    wpc[order[-1]] = num_warps // prev_warps
    return L.Blocked(tuple(spt), tuple(tpw), tuple(wpc), tuple(order))


def warps_per_tile(shape: Sequence[int], num_warps: int, shape_per_warp: Sequence[int]) -> tuple[int, ...]:
    """Triton's warpsPerTile for mma v2 / mfma / wmma: every warp on the batch dim of a rank-3
    (batched) dot; otherwise double the M warps while M has more instruction tiles per warp than
    N has pairs of them, else double the N warps."""
    if len(shape) not in (2, 3):
        raise LlgenError(f"shape {list(shape)} has rank {len(shape)}, but a dot layout needs rank 2 or 3.")
    if len(shape) == 3:
        return (num_warps, 1, 1)
    m, n = shape[-2], shape[-1]
    pm, pn = shape_per_warp
    ret = [1, 1]
    while ret[0] * ret[1] < num_warps:
        if m // pm // ret[0] >= n // (pn * 2) // ret[1]:
            if ret[0] < m // pm:
                ret[0] *= 2
            else:
                ret[1] *= 2
        else:
            ret[1] *= 2
    return tuple(ret)


def warps_per_tile_v3(shape: Sequence[int], num_warps: int, n: int) -> tuple[int, int]:
    """Triton's warpsPerTileV3: a warpgroup of 4 along M, then double M while M is larger than
    the warps' rows, else N."""
    ret = [4, 1]
    while ret[0] * ret[1] < num_warps:
        if shape[0] > 16 * ret[0]:
            ret[0] *= 2
        else:
            ret[1] *= 2
    return tuple(ret)


def default_wgmma_n(shape: Sequence[int]) -> int:
    """The widest wgmma N (at most 256) that the tensor's N holds."""
    return min(256, shape[-1])


def accumulator_guess(shape: Sequence[int], operand_index: int) -> list[int]:
    """The accumulator shape a default dot parent is chosen for: square in the operand's non-K
    dim (M x M for A, N x N for B), since the operand's shape does not tell the other one."""
    if len(shape) not in (2, 3):
        raise LlgenError(f"shape {list(shape)} has rank {len(shape)}, but a dot operand needs rank 2 or 3.")
    non_k = shape[-2] if operand_index == 0 else shape[-1]
    return list(shape[:-2]) + [non_k, non_k]


def default_wmma_instr_shape(version: Value) -> list[int]:
    """Triton's default wmma instrShape is 16x16x16, which gfx1250 (v3) does not have; there the
    16-bit instruction is 16x16x32."""
    return [16, 16, 32] if version == 3 else [16, 16, 16]


def default_mma_k_width(dtype_bytes: int) -> int:
    """Consecutive K elements per 32-bit register: 2 for 16-bit types, 4 for 8-bit, 1 for 32-bit."""
    return max(1, 4 // dtype_bytes)


def default_swizzle_bytes(shape: Sequence[int], dtype_bytes: int) -> int:
    """The widest NVMMA swizzle (128, 64 or 32 bytes) a row of the tensor fills; 0 below 32 bytes."""
    row = shape[-1] * dtype_bytes
    for s in (128, 64, 32):
        if row >= s:
            return s
    return 0


# ---------------------------------------------------------------------------------- short forms
_KEYS = {
    "spt": "size_per_thread", "size_per_thread": "size_per_thread", "sizePerThread": "size_per_thread",
    "tpw": "threads_per_warp", "threads_per_warp": "threads_per_warp", "threadsPerWarp": "threads_per_warp",
    "wpc": "warps_per_cta", "warps": "warps_per_cta", "warps_per_cta": "warps_per_cta", "warpsPerCTA": "warps_per_cta",
    "order": "order", "v": "version", "version": "version", "instr": "instr_shape", "instr_shape": "instr_shape",
    "op": "operand_index", "operand_index": "operand_index", "opIdx": "operand_index",
    "k_width": "k_width", "kw": "k_width", "kWidth": "k_width", "parent": "parent", "dim": "dim", "n": "n",
    "transposed": "transposed", "trans": "transposed", "tiles": "tiles_per_warp", "tiles_per_warp": "tiles_per_warp",
    "bits": "element_bitwidth", "element_bitwidth": "element_bitwidth", "vec": "vec", "per_phase": "per_phase",
    "max_phase": "max_phase", "swizzle": "swizzle_byte_width", "cga": "cga_layout", "cga_layout": "cga_layout",
    "ctas": "ctas_per_cga", "split": "cta_split_num", "cta_order": "cta_order",
    "register": "register", "lane": "lane", "warp": "warp", "block": "block",
}


def _encoding_from_short(spec: str, ctx: _Context):
    kind, _, rest = spec.partition(":")
    kind = kind.strip()
    args = _parse_short_args(rest, spec) if rest.strip() else {}
    pos = args.pop("_positional", None)
    build = _SHORT_KINDS.get(kind)
    if build is None:
        raise LlgenError(f"unknown layout kind '{kind}' (known: {', '.join(sorted(_SHORT_KINDS))}).")
    return build(args, pos, ctx)


def _parse_short_args(text: str, spec: str) -> dict:
    """``k=v,k=v`` with values ``AxB``, ints, true/false, ``[..]`` lists or ``(SPEC)`` parents."""
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
        return _AttrParser(val).parse_value_all()
    if val in ("true", "false"):
        return val == "true"
    try:
        nums = [int(x) for x in val.split("x")]
    except ValueError:
        raise LlgenError(f"value '{val}' in layout '{spec}' is not a number, an AxB list or a [..] list.") from None
    return nums if "x" in val else nums[0]


def _as_list(v, what: str) -> tuple[int, ...]:
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise LlgenError(f"{what} {v} must be a list of integers.")
    return tuple(v)


def _cga(args: dict, rank: int) -> tuple:
    if "cga_layout" in args:
        return tuple(tuple(_as_list(v, "cga_layout basis")) for v in args["cga_layout"])
    if "ctas_per_cga" in args:
        ctas = _as_list(args["ctas_per_cga"], "CTAsPerCGA")
        split = _as_list(args.get("cta_split_num", list(ctas)), "CTASplitNum")
        order = _as_list(args.get("cta_order", list(range(rank - 1, -1, -1))), "CTAOrder")
        return L.cga_from_split(ctas, split, order)
    return ()


def _short_blocked(a: dict, pos, ctx: _Context):
    if not a:
        return coalesced_blocked(ctx.shape, ctx.num_warps, ctx.warp_size(), ctx.dtype_bytes)
    rank = len(ctx.shape)
    d = coalesced_blocked(ctx.shape, ctx.num_warps, ctx.warp_size(), ctx.dtype_bytes)
    return L.Blocked(_as_list(a.get("size_per_thread", list(d.size_per_thread)), "size_per_thread"),
                     _as_list(a.get("threads_per_warp", list(d.threads_per_warp)), "threads_per_warp"),
                     _as_list(a.get("warps_per_cta", list(d.warps_per_cta)), "warps_per_cta"),
                     _as_list(a.get("order", list(range(rank - 1, -1, -1))), "order"), _cga(a, rank))


def _short_mma(a: dict, pos, ctx: _Context):
    version = a.get("version", pos if pos is not None else 2)
    if version == 3:
        return _short_wgmma(a, None, ctx)
    wpc = a.get("warps_per_cta") or list(warps_per_tile(ctx.shape, ctx.num_warps, (16, 8)))
    instr = a.get("instr_shape", list(L.nvidia.default_instr_shape(2, len(ctx.shape))))
    return L.NvidiaMma(version, _as_list(wpc, "warps_per_cta"), _as_list(instr, "instr_shape"), _cga(a, len(ctx.shape)))


def _short_wgmma(a: dict, pos, ctx: _Context):
    instr = a.get("instr_shape")
    n = a.get("n", pos) or (instr[1] if instr else default_wgmma_n(ctx.shape))
    instr = instr or [16, n, 32 // ctx.dtype_bytes]
    wpc = a.get("warps_per_cta") or list(warps_per_tile_v3(ctx.shape, ctx.num_warps, n))
    return L.NvidiaMma(3, _as_list(wpc, "warps_per_cta"), _as_list(instr, "instr_shape"), _cga(a, len(ctx.shape)))


def _short_dot(a: dict, pos, ctx: _Context):
    op = a.get("operand_index", pos if pos is not None else 0)
    parent = parse_encoding(a["parent"], ctx.shape, ctx.num_warps, ctx.tpw, ctx.dtype_bytes) if "parent" in a \
        else _short_mma({}, None, ctx.with_shape(accumulator_guess(ctx.shape, op)))
    return L.DotOperand(op, parent, a.get("k_width", default_mma_k_width(ctx.dtype_bytes)))


def _short_mfma(a: dict, pos, ctx: _Context):
    non_k = a.get("n", pos) or 32
    instr = a.get("instr_shape") or [non_k, non_k, (8 if non_k == 32 else 16) * 2 // max(1, ctx.dtype_bytes)]
    wpc = _as_list(a.get("warps_per_cta") or list(warps_per_tile(ctx.shape, ctx.num_warps, instr[:2])), "warps_per_cta")
    return L.AmdMfma(wpc, _tiles_per_warp(a, wpc, "tiles_per_warp"), _cga(a, len(ctx.shape)), _as_list(instr, "instr_shape"),
                     bool(a.get("transposed", False)), a.get("element_bitwidth", 32), a.get("version", 3))


def _short_wmma(a: dict, pos, ctx: _Context):
    version = a.get("version", pos if pos is not None else 2)
    wpc = _as_list(a.get("warps_per_cta") or list(warps_per_tile(ctx.shape, ctx.num_warps, (16, 16))), "warps_per_cta")
    instr = a.get("instr_shape", default_wmma_instr_shape(version))
    return L.AmdWmma(wpc, _tiles_per_warp(a, wpc, "tiles_per_warp"), _cga(a, len(ctx.shape)), version,
                     bool(a.get("transposed", False)), _as_list(instr, "instr_shape"))


def _tiles_per_warp(a: dict, wpc: Sequence[int], what: str) -> tuple[int, ...]:
    """tilesPerWarp, or one tile per dim of warpsPerCTA: Triton prints it only when some entry is not 1."""
    return _as_list(a.get("tiles_per_warp", [1] * len(wpc)), what)


def _short_slice(a: dict, pos, ctx: _Context):
    dim = a.get("dim", pos)
    if not isinstance(dim, int) or not 0 <= dim <= len(ctx.shape):
        raise LlgenError(f"slice dim {dim} must be an integer in 0..{len(ctx.shape)}.")
    parent_shape = list(ctx.shape)
    parent_shape.insert(dim, 1)
    pctx = ctx.with_shape(parent_shape)
    parent = parse_encoding(a["parent"], parent_shape, ctx.num_warps, ctx.tpw, ctx.dtype_bytes) if "parent" in a \
        else _short_blocked({}, None, pctx)
    return L.Slice(dim, parent)


def _short_swizzled(a: dict, pos, ctx: _Context):
    rank = len(ctx.shape)
    order = _as_list(a.get("order", list(range(rank - 1, -1, -1))), "order")
    vec = a.get("vec", 16 // ctx.dtype_bytes)
    per_phase = a.get("per_phase", max(1, 128 // (ctx.shape[order[0]] * ctx.dtype_bytes)))
    max_phase = a.get("max_phase", max(1, 8 // per_phase))
    return L.SwizzledShared(vec, per_phase, max_phase, order, _cga(a, rank))


def _short_nvmma(a: dict, pos, ctx: _Context):
    swz = a.get("swizzle_byte_width", pos if pos is not None else default_swizzle_bytes(ctx.shape, ctx.dtype_bytes))
    return L.NvmmaShared(swz, a.get("element_bitwidth", 8 * ctx.dtype_bytes), bool(a.get("transposed", False)),
                         len(ctx.shape), _cga(a, len(ctx.shape)))


def _short_linear(a: dict, pos, ctx: _Context):
    def vecs(name):
        return tuple(_as_list(v, f"{name} basis") for v in a.get(name, []))
    return L.Linear(vecs("register"), vecs("lane"), vecs("warp"), vecs("block"))


_SHORT_KINDS = {
    "blocked": _short_blocked, "mma": _short_mma, "wgmma": _short_wgmma, "dot": _short_dot, "mfma": _short_mfma,
    "wmma": _short_wmma, "slice": _short_slice, "swizzled": _short_swizzled, "nvmma": _short_nvmma, "linear": _short_linear,
}


# ---------------------------------------------------------------------------------- TTGIR attributes
class _AttrParser:
    """Recursive descent over Triton's attribute syntax; errors name the character position (1-based)."""

    def __init__(self, text: str):
        self.s, self.i = text, 0

    def fail(self, what: str):
        got = repr(self.s[self.i]) if self.i < len(self.s) else "the end"
        raise LlgenError(f"malformed layout attribute at character {self.i + 1}: expected {what}, found {got}.")

    def ws(self):
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def eat(self, tok: str):
        self.ws()
        if not self.s.startswith(tok, self.i):
            self.fail(f"'{tok}'")
        self.i += len(tok)

    def peek(self, tok: str) -> bool:
        self.ws()
        return self.s.startswith(tok, self.i)

    def ident(self) -> str:
        self.ws()
        j = self.i
        while j < len(self.s) and (self.s[j].isalnum() or self.s[j] in "_."):
            j += 1
        if j == self.i:
            self.fail("a name")
        name, self.i = self.s[self.i:j], j
        return name

    def parse_attr_all(self) -> tuple[str, dict]:
        out = self.attr()
        self.end()
        return out

    def parse_value_all(self) -> Value:
        out = self.value()
        self.end()
        return out

    def end(self):
        self.ws()
        if self.i != len(self.s):
            self.fail("the end of the attribute")

    def attr(self) -> tuple[str, dict]:
        self.eat("#")
        name = self.ident()
        self.eat("<{")
        fields: dict = {}
        if not self.peek("}"):
            while True:
                key = self.ident()
                self.eat("=")
                fields[key] = self.value()
                if self.peek(","):
                    self.eat(",")
                    continue
                break
        self.eat("}>")
        return name, fields

    def value(self) -> Value:
        self.ws()
        if self.peek("#"):
            return self.attr()
        if self.peek("["):
            self.eat("[")
            items = []
            if not self.peek("]"):
                while True:
                    items.append(self.value())
                    if self.peek(","):
                        self.eat(",")
                        continue
                    break
            self.eat("]")
            return items
        j = self.i
        if j < len(self.s) and self.s[j] == "-":
            j += 1
        while j < len(self.s) and self.s[j].isdigit():
            j += 1
        if j > self.i:
            text, self.i = self.s[self.i:j], j
            return int(text)
        for word in ("true", "false"):
            if self.s.startswith(word, self.i):
                self.i += len(word)
                return word == "true"
        self.fail("a number, true/false, a [list] or a #attribute")


_ATTR_KEYS = {
    "sizePerThread": "size_per_thread", "threadsPerWarp": "threads_per_warp", "warpsPerCTA": "warps_per_cta",
    "order": "order", "versionMajor": "version", "versionMinor": "version_minor", "version": "version",
    "instrShape": "instr_shape", "opIdx": "operand_index", "parent": "parent", "kWidth": "k_width", "dim": "dim",
    "isTransposed": "transposed", "isTranspose": "transposed", "transposed": "transposed", "tilesPerWarp": "tiles_per_warp",
    "elementBitWidth": "element_bitwidth", "vec": "vec", "perPhase": "per_phase", "maxPhase": "max_phase",
    "swizzlingByteWidth": "swizzle_byte_width", "CGALayout": "cga_layout", "CTAsPerCGA": "ctas_per_cga",
    "CTASplitNum": "cta_split_num", "CTAOrder": "cta_order", "register": "register", "lane": "lane", "warp": "warp",
    "block": "block", "fp4Padded": "fp4_padded", "rank": "rank",
}

_ATTR_REQUIRED = {
    "blocked": ("size_per_thread", "threads_per_warp", "warps_per_cta", "order"),
    "nvidia_mma": ("version", "warps_per_cta", "instr_shape"),
    "dot_op": ("operand_index", "parent"),
    "amd_mfma": ("warps_per_cta", "instr_shape"),
    "amd_wmma": ("version", "warps_per_cta"),
    "slice": ("dim", "parent"),
    "linear": (),
    "swizzled_shared": ("vec", "per_phase", "max_phase", "order"),
    "nvmma_shared": ("swizzle_byte_width", "element_bitwidth"),
}


def _encoding_from_attr(attr: tuple[str, dict], ctx: _Context, rank: int | None = None):
    name, raw = attr
    kind = name.removeprefix("ttg.").removeprefix("triton_gpu.")
    if kind not in _ATTR_REQUIRED:
        raise LlgenError(f"unknown layout attribute '#{name}' (known: {', '.join('#ttg.' + k for k in _ATTR_REQUIRED)}).")
    a = {}
    for key, val in raw.items():
        if key not in _ATTR_KEYS:
            raise LlgenError(f"unknown field '{key}' in '#{name}'.")
        a[_ATTR_KEYS[key]] = val
    for key in _ATTR_REQUIRED[kind]:
        if key not in a:
            raise LlgenError(f"'#{name}' lacks its field '{next(k for k, v in _ATTR_KEYS.items() if v == key)}'.")
    rank = rank or len(ctx.shape)
    if kind == "blocked":
        return L.Blocked(_as_list(a["size_per_thread"], "sizePerThread"), _as_list(a["threads_per_warp"], "threadsPerWarp"),
                         _as_list(a["warps_per_cta"], "warpsPerCTA"), _as_list(a["order"], "order"), _cga(a, rank))
    if kind == "nvidia_mma":
        return L.NvidiaMma(a["version"], _as_list(a["warps_per_cta"], "warpsPerCTA"), _as_list(a["instr_shape"], "instrShape"),
                           _cga(a, rank))
    if kind == "amd_mfma":
        wpc = _as_list(a["warps_per_cta"], "warpsPerCTA")
        return L.AmdMfma(wpc, _tiles_per_warp(a, wpc, "tilesPerWarp"), _cga(a, rank), _as_list(a["instr_shape"], "instrShape"),
                         bool(a.get("transposed", False)), a.get("element_bitwidth", 32), a.get("version", 3))
    if kind == "amd_wmma":
        wpc = _as_list(a["warps_per_cta"], "warpsPerCTA")
        return L.AmdWmma(wpc, _tiles_per_warp(a, wpc, "tilesPerWarp"), _cga(a, rank), a["version"],
                         bool(a.get("transposed", False)), _as_list(a.get("instr_shape", [16, 16, 16]), "instrShape"))
    if kind == "dot_op":
        parent = _parent(a["parent"], ctx, rank)
        if "k_width" not in a:
            raise LlgenError(f"'#{name}' lacks kWidth, which its {type(parent).__name__} parent needs.")
        return L.DotOperand(a["operand_index"], parent, a["k_width"])
    if kind == "slice":
        return L.Slice(a["dim"], _parent(a["parent"], ctx, rank + 1))
    if kind == "linear":
        return L.Linear(*(tuple(_as_list(v, f"{n} basis") for v in a.get(n, [])) for n in ("register", "lane", "warp", "block")))
    if kind == "swizzled_shared":
        return L.SwizzledShared(a["vec"], a["per_phase"], a["max_phase"], _as_list(a["order"], "order"), _cga(a, rank))
    return L.NvmmaShared(a["swizzle_byte_width"], a["element_bitwidth"], bool(a.get("transposed", False)), rank, _cga(a, rank))


def _parent(val, ctx: _Context, rank: int):
    if not isinstance(val, tuple):
        raise LlgenError(f"a parent must be a #ttg attribute, got {val}.")
    return _encoding_from_attr(val, ctx, rank)
