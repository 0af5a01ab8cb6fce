"""Triton TTGIR layout attributes, exactly as Triton prints them (``#ttg.blocked<{...}>``,
``#ttg.nvidia_mma<{...}>``, ``#ttg.dot_op<{...}>``, ``#ttg.amd_mfma<{...}>``, ``#ttg.amd_wmma<{...}>``,
``#ttg.slice<{...}>``, ``#ttg.linear<{...}>``, ``#ttg.swizzled_shared<{...}>``, ``#ttg.nvmma_shared<{...}>``),
with the optional cluster fields ``CGALayout`` (Triton 3.6) or ``CTAsPerCGA`` / ``CTASplitNum`` / ``CTAOrder``
(older Triton): the attribute parser (`AttrParser`, whose value grammar the short form's ``[..]`` lists
share), the encoding each attribute names (`encoding_from_attr`), and the field-value helpers both
forms use (`int_tuple`, `cga_bases`, `tiles_per_warp_or_ones`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import layouts as L
from ..errors import LlgenError

if TYPE_CHECKING:
    from . import Context

Value = int | bool | str | list | dict


# ---------------------------------------------------------------------------------- field values
def int_tuple(v, what: str) -> tuple[int, ...]:
    """An int or a list of ints as a tuple; otherwise an error naming ``what``."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise LlgenError(f"{what} {v} must be a list of integers.")
    return tuple(v)


def cga_bases(args: dict, rank: int) -> tuple:
    """The CGA layout of ``cga_layout`` bases or of ``ctas_per_cga``/``cta_split_num``/``cta_order``; () if neither."""
    if "cga_layout" in args:
        return tuple(tuple(int_tuple(v, "cga_layout basis")) for v in args["cga_layout"])
    if "ctas_per_cga" in args:
        ctas = int_tuple(args["ctas_per_cga"], "CTAsPerCGA")
        split = int_tuple(args.get("cta_split_num", list(ctas)), "CTASplitNum")
        order = int_tuple(args.get("cta_order", list(range(rank - 1, -1, -1))), "CTAOrder")
        return L.cga_from_split(ctas, split, order)
    return ()


def tiles_per_warp_or_ones(a: dict, wpc: Sequence[int], what: str) -> tuple[int, ...]:
    """tilesPerWarp, or one tile per dim of warpsPerCTA: Triton prints it only when some entry is not 1."""
    return int_tuple(a.get("tiles_per_warp", [1] * len(wpc)), what)


# ---------------------------------------------------------------------------------- parser
class AttrParser:
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
        name, self.i = self.s[self.i : j], j
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
            text, self.i = self.s[self.i : j], j
            return int(text)
        for word in ("true", "false"):
            if self.s.startswith(word, self.i):
                self.i += len(word)
                return word == "true"
        self.fail("a number, true/false, a [list] or a #attribute")


# ---------------------------------------------------------------------------------- encodings
_ATTR_KEYS = {
    "sizePerThread": "size_per_thread",
    "threadsPerWarp": "threads_per_warp",
    "warpsPerCTA": "warps_per_cta",
    "order": "order",
    "versionMajor": "version",
    "versionMinor": "version_minor",
    "version": "version",
    "instrShape": "instr_shape",
    "opIdx": "operand_index",
    "parent": "parent",
    "kWidth": "k_width",
    "dim": "dim",
    "isTransposed": "transposed",
    "isTranspose": "transposed",
    "transposed": "transposed",
    "tilesPerWarp": "tiles_per_warp",
    "elementBitWidth": "element_bitwidth",
    "vec": "vec",
    "perPhase": "per_phase",
    "maxPhase": "max_phase",
    "swizzlingByteWidth": "swizzle_byte_width",
    "CGALayout": "cga_layout",
    "CTAsPerCGA": "ctas_per_cga",
    "CTASplitNum": "cta_split_num",
    "CTAOrder": "cta_order",
    "register": "register",
    "lane": "lane",
    "warp": "warp",
    "block": "block",
    "fp4Padded": "fp4_padded",
    "rank": "rank",
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


def encoding_from_attr(attr: tuple[str, dict], ctx: Context, rank: int | None = None):
    """The encoding of a parsed attribute ``(name, fields)`` for a tensor of ``rank`` (None: the context's)."""
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
        return L.Blocked(
            int_tuple(a["size_per_thread"], "sizePerThread"),
            int_tuple(a["threads_per_warp"], "threadsPerWarp"),
            int_tuple(a["warps_per_cta"], "warpsPerCTA"),
            int_tuple(a["order"], "order"),
            cga_bases(a, rank),
        )
    if kind == "nvidia_mma":
        return L.NvidiaMma(
            a["version"],
            int_tuple(a["warps_per_cta"], "warpsPerCTA"),
            int_tuple(a["instr_shape"], "instrShape"),
            cga_bases(a, rank),
        )
    if kind == "amd_mfma":
        wpc = int_tuple(a["warps_per_cta"], "warpsPerCTA")
        return L.AmdMfma(
            wpc,
            tiles_per_warp_or_ones(a, wpc, "tilesPerWarp"),
            cga_bases(a, rank),
            int_tuple(a["instr_shape"], "instrShape"),
            bool(a.get("transposed", False)),
            a.get("element_bitwidth", 32),
            a.get("version", 3),
        )
    if kind == "amd_wmma":
        wpc = int_tuple(a["warps_per_cta"], "warpsPerCTA")
        return L.AmdWmma(
            wpc,
            tiles_per_warp_or_ones(a, wpc, "tilesPerWarp"),
            cga_bases(a, rank),
            a["version"],
            bool(a.get("transposed", False)),
            int_tuple(a.get("instr_shape", [16, 16, 16]), "instrShape"),
        )
    if kind == "dot_op":
        parent = _parent(a["parent"], ctx, rank)
        if "k_width" not in a:
            raise LlgenError(f"'#{name}' lacks kWidth, which its {type(parent).__name__} parent needs.")
        return L.DotOperand(a["operand_index"], parent, a["k_width"])
    if kind == "slice":
        return L.Slice(a["dim"], _parent(a["parent"], ctx, rank + 1))
    if kind == "linear":
        return L.Linear(*(tuple(int_tuple(v, f"{n} basis") for v in a.get(n, [])) for n in ("register", "lane", "warp", "block")))
    if kind == "swizzled_shared":
        return L.SwizzledShared(a["vec"], a["per_phase"], a["max_phase"], int_tuple(a["order"], "order"), cga_bases(a, rank))
    return L.NvmmaShared(
        a["swizzle_byte_width"], a["element_bitwidth"], bool(a.get("transposed", False)), rank, cga_bases(a, rank)
    )


def _parent(val, ctx: Context, rank: int):
    if not isinstance(val, tuple):
        raise LlgenError(f"a parent must be a #ttg attribute, got {val}.")
    return encoding_from_attr(val, ctx, rank)
