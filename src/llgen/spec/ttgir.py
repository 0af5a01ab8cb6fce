"""Triton TTGIR layout attributes, exactly as Triton prints them (``#ttg.blocked<{...}>``,
``#ttg.nvidia_mma<{...}>``, ``#ttg.dot_op<{...}>``, ``#ttg.amd_mfma<{...}>``, ``#ttg.amd_wmma<{...}>``,
``#ttg.slice<{...}>``, ``#ttg.linear<{...}>``, ``#ttg.swizzled_shared<{...}>``, ``#ttg.nvmma_shared<{...}>``,
``#ttg.amd_rotating_shared<{...}>``, ``#ttg.shared_linear<{...}, alignment = 16>``,
``#ttg.padded_shared<[64:+8] {...}>`` whose ``interval:+padding`` pairs come before the fields),
with the optional cluster fields ``CGALayout`` (Triton 3.6) or ``CTAsPerCGA`` / ``CTASplitNum`` / ``CTAOrder``
(older Triton): the attribute parser (`AttrParser`, whose value grammar the short form's ``[..]`` lists
share), the encoding each attribute names (`encoding_from_attr`), and the field-value helpers both
forms use (`int_tuple`, `cga_bases`, `tiles_per_warp_or_ones`).

Every spelling Triton 3.0 to 3.5 printed reads as the layout Triton 3.6 prints for it (tests/data/legacy holds
text those versions printed): the ``#triton_gpu.`` prefix of Triton 3.0-3.2; 3.0-3.2's ``#triton_gpu.shared<{vec,
perPhase, maxPhase, order, hasLeadingOffset}>``, which is 3.3's swizzled_shared when hasLeadingOffset is false
and its nvmma_shared when true (see `_legacy_shared`); amd_mfma's ``versionMajor``/``versionMinor`` (3.0-3.4)
and two-entry ``instrShape = [M, N]`` (3.0-3.5; the K that 3.6 adds does not change the layout); amd_wmma
without ``version`` (3.0-3.1, RDNA3's version 1) or ``isTranspose`` (3.0-3.2); and a dot_op of a wgmma parent
without kWidth (3.0-3.2), which 3.3 prints with kWidth = 32 / element bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from llgen import layouts as L
from llgen.core.errors import LlgenError
from llgen.core.limits import MAX_DEPTH, ascii_int
from llgen.spec.context import Context
from llgen.spec.defaults import default_mfma_instr_shape, default_mma_k_width

Value = int | bool | str | list | dict


# ---------------------------------------------------------------------------------- field values
def int_tuple(v, what: str) -> tuple[int, ...]:
    """An int or a list of ints as a tuple; otherwise an error naming ``what``."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise LlgenError(f"{what} {_show(v)} must be a list of integers.")
    return tuple(v)


def as_int(v, what: str) -> int:
    """An integer field; otherwise an error naming ``what``."""
    if not isinstance(v, int) or isinstance(v, bool):
        raise LlgenError(f"{what} {_show(v)} must be an integer.")
    return v


def as_bool(v, what: str) -> bool:
    """A true/false field; otherwise an error naming ``what``."""
    if not isinstance(v, bool):
        raise LlgenError(f"{what} {_show(v)} must be true or false.")
    return v


def _show(v) -> str:
    if isinstance(v, tuple):
        return f"#{v[0]}<...>"
    return str(v).replace("True", "true").replace("False", "false")


def cga_bases(args: dict, rank: int) -> tuple:
    """The CGA layout of ``cga_layout`` bases or of ``ctas_per_cga``/``cta_split_num``/``cta_order``; () if neither."""
    if "cga_layout" in args:
        if not isinstance(args["cga_layout"], list):
            raise LlgenError(f"cga_layout {_show(args['cga_layout'])} must be a list of bases.")
        return tuple(tuple(int_tuple(v, "cga_layout basis")) for v in args["cga_layout"])
    if "ctas_per_cga" in args:
        ctas = int_tuple(args["ctas_per_cga"], "CTAsPerCGA")
        split = int_tuple(args.get("cta_split_num", list(ctas)), "CTASplitNum")
        order = int_tuple(args.get("cta_order", list(range(rank - 1, -1, -1))), "CTAOrder")
        return L.cga_from_split(ctas, split, order)
    return ()


def bases(v, name: str) -> tuple[tuple[int, ...], ...]:
    """A list of bases, each a list of integers."""
    if not isinstance(v, list):
        raise LlgenError(f"{name} bases {_show(v)} must be a list of bases.")
    return tuple(int_tuple(b, f"{name} basis") for b in v)


def tiles_per_warp_or_ones(a: dict, wpc: Sequence[int], what: str) -> tuple[int, ...]:
    """tilesPerWarp, or one tile per dim of warpsPerCTA: Triton prints it only when some entry is not 1."""
    return int_tuple(a.get("tiles_per_warp", [1] * len(wpc)), what)


# ---------------------------------------------------------------------------------- parser
class Alias(NamedTuple):
    """A TTGIR file's ``#name = ...`` line (llgen.spec.module): the parsed attribute and how deep it nests, or
    None and one sentence why llgen does not read it."""

    attr: tuple | None
    depth: int = 0
    why: str = ""


Aliases = dict[str, Alias]  # "#name" -> its Alias

PADDINGS = "[interval:+padding]"  # padded_shared's pairs among the fields (no field name can be spelled so)
_DIGITS = "0123456789"
_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$-")


class AttrParser:
    """Recursive descent over Triton's attribute syntax; errors name the character position (1-based).
    ``aliases`` resolves ``#name`` references (``parent = #mma``, or a whole spec ``#blocked``); brackets
    nest at most MAX_DEPTH deep, aliases included; numbers are ASCII digits of at most MAX_NUMBER; a
    field may appear once."""

    def __init__(self, text: str, aliases: Aliases | None = None):
        self.s, self.i, self.aliases = text, 0, aliases
        self.depth = self.max_depth = 0

    def fail(self, what: str):
        got = repr(self.s[self.i]) if self.i < len(self.s) else "the end"
        raise LlgenError(f"malformed layout attribute at character {self.i + 1}: expected {what}, found {got}.")

    def enter(self, extra: int = 1):
        self.depth += extra
        self.max_depth = max(self.max_depth, self.depth)
        if self.depth > MAX_DEPTH:
            raise LlgenError(f"the layout attribute nests more than {MAX_DEPTH} deep at character {self.i + 1}.")

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def eat(self, tok: str):
        self.ws()
        if not self.s.startswith(tok, self.i):
            self.fail(f"'{tok}'")
        self.i += len(tok)

    def peek(self, tok: str) -> bool:
        self.ws()
        return self.s.startswith(tok, self.i)

    def ident(self, chars=_NAME) -> str:
        self.ws()
        j = self.i
        while j < len(self.s) and self.s[j] in chars:
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
        """``#name<{fields}>``; ``#name<{fields}, key = value>`` (shared_linear's alignment); or
        ``#name<[a:+b, ...] {fields}>`` (padded_shared), whose pairs go in the field PADDINGS."""
        self.eat("#")
        at = self.i
        name = self.ident()
        if not self.peek("<"):
            return self.alias(name, at)
        self.eat("<")
        self.enter()
        fields: dict = {}
        if self.peek("["):
            fields[PADDINGS] = self.padding_pairs()
        self.eat("{")
        if not self.peek("}"):
            self.fields(name, fields)
        self.eat("}")
        if self.peek(","):
            self.eat(",")
            self.fields(name, fields)
        self.eat(">")
        self.depth -= 1
        return name, fields

    def fields(self, name: str, fields: dict):
        """``key = value`` pairs separated by commas, each key once."""
        while True:
            key = self.ident()
            if key in fields:
                raise LlgenError(f"field '{key}' appears twice in '#{name}'.")
            self.eat("=")
            fields[key] = self.value()
            if not self.peek(","):
                return
            self.eat(",")

    def padding_pairs(self) -> list[list[int]]:
        """``[interval:+padding, ...]`` as [[interval, padding], ...]."""
        self.eat("[")
        pairs = []
        while True:
            interval = self.value()
            self.eat(":")
            self.eat("+")
            pairs.append([interval, self.value()])
            if not self.peek(","):
                break
            self.eat(",")
        self.eat("]")
        return pairs

    def alias(self, name: str, at: int) -> tuple[str, dict]:
        """The attribute an alias ``#name`` stands for."""
        if self.aliases is None:
            raise LlgenError(f"'#{name}' is an alias: pass the TTGIR file that defines it with --ttgir.")
        if f"#{name}" not in self.aliases:
            known = ", ".join(sorted(self.aliases)[:8]) or "none"
            raise LlgenError(f"alias '#{name}' at character {at} is not defined in the TTGIR file (its aliases: {known}).")
        alias = self.aliases[f"#{name}"]
        if alias.attr is None:
            raise LlgenError(alias.why)
        self.enter(alias.depth)
        self.depth -= alias.depth
        return alias.attr

    def value(self) -> Value:
        self.ws()
        if self.peek("#"):
            return self.attr()
        if self.peek("["):
            self.eat("[")
            self.enter()
            items = []
            if not self.peek("]"):
                while True:
                    items.append(self.value())
                    if self.peek(","):
                        self.eat(",")
                        continue
                    break
            self.eat("]")
            self.depth -= 1
            return items
        j = self.i + (self.i < len(self.s) and self.s[self.i] == "-")
        k = j
        while k < len(self.s) and self.s[k] in _DIGITS:
            k += 1
        if k > j:
            text, self.i = self.s[self.i : k], k
            return ascii_int(text, "number")
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
    "offset": "offset",
    "shape": "shape",
    "alignment": "alignment",
    "hasLeadingOffset": "has_leading_offset",
    PADDINGS: "intervals",
}

_ATTR_REQUIRED = {
    "blocked": ("size_per_thread", "threads_per_warp", "warps_per_cta", "order"),
    "nvidia_mma": ("version", "warps_per_cta", "instr_shape"),
    "dot_op": ("operand_index", "parent"),
    "amd_mfma": ("warps_per_cta", "instr_shape"),
    "amd_wmma": ("warps_per_cta",),
    "slice": ("dim", "parent"),
    "linear": (),
    "swizzled_shared": ("vec", "per_phase", "max_phase", "order"),
    "nvmma_shared": ("swizzle_byte_width", "element_bitwidth"),
    "amd_rotating_shared": ("vec", "per_phase", "max_phase", "order"),
    "shared_linear": ("offset",),
    "padded_shared": ("intervals",),
    "shared": ("vec", "per_phase", "max_phase", "order"),  # Triton 3.0-3.2's, see _legacy_shared
}
_KNOWN = ", ".join(f"#ttg.{k}" for k in _ATTR_REQUIRED if k != "shared") + " and Triton 3.0-3.2's #triton_gpu.shared"
_LEADING_OFFSET_SWIZZLE = {(4, 2): 32, (2, 4): 64, (1, 8): 128, (1, 1): 0}  # (perPhase, maxPhase) -> swizzle bytes


def encoding_from_attr(attr: tuple[str, dict], ctx: Context, rank: int | None = None):
    """The encoding of a parsed attribute ``(name, fields)`` for a tensor of ``rank`` (None: the context's)."""
    name, raw = attr
    kind = name.removeprefix("ttg.").removeprefix("triton_gpu.")
    if kind not in _ATTR_REQUIRED:
        raise LlgenError(f"unknown layout attribute '#{name}' (known: {_KNOWN}).")
    a = {}
    for key, val in raw.items():
        if key not in _ATTR_KEYS or (key == "hasLeadingOffset" and kind != "shared"):
            raise LlgenError(f"unknown field '{key}' in '#{name}'.")
        if _ATTR_KEYS[key] in a:
            raise LlgenError(f"field '{key}' in '#{name}' repeats another field of the same meaning.")
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
            as_int(a["version"], "versionMajor"),
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
            _mfma_instr_shape(int_tuple(a["instr_shape"], "instrShape"), ctx),
            as_bool(a.get("transposed", False), "isTransposed"),
            as_int(a.get("element_bitwidth", 32), "elementBitWidth"),
            as_int(a.get("version", 3), "version"),
        )
    if kind == "amd_wmma":
        wpc = int_tuple(a["warps_per_cta"], "warpsPerCTA")
        return L.AmdWmma(
            wpc,
            tiles_per_warp_or_ones(a, wpc, "tilesPerWarp"),
            cga_bases(a, rank),
            as_int(a.get("version", 1), "version"),  # Triton 3.0-3.1 print none: RDNA3's version 1
            as_bool(a.get("transposed", False), "isTranspose"),
            int_tuple(a.get("instr_shape", [16, 16, 16]), "instrShape"),
        )
    if kind == "dot_op":
        parent = _parent(a["parent"], ctx, rank)
        if "k_width" not in a and isinstance(parent, L.NvidiaMma) and parent.version == 3:
            # Triton 3.0-3.2 print a wgmma operand without kWidth; 3.3 on print 32 / element bits for it
            return L.DotOperand(as_int(a["operand_index"], "opIdx"), parent, default_mma_k_width(ctx.dtype_bytes))
        if "k_width" not in a:
            family = {L.NvidiaMma: "nvidia_mma", L.AmdMfma: "amd_mfma", L.AmdWmma: "amd_wmma"}.get(type(parent), "mma")
            raise LlgenError(f"'#{name}' lacks kWidth, which its {family} parent needs.")
        return L.DotOperand(as_int(a["operand_index"], "opIdx"), parent, as_int(a["k_width"], "kWidth"))
    if kind == "slice":
        return L.Slice(as_int(a["dim"], "dim"), _parent(a["parent"], ctx, rank + 1))
    if kind == "linear":
        return L.Linear(*(bases(a.get(n, []), n) for n in ("register", "lane", "warp", "block")))
    if kind == "shared_linear":
        return L.SharedLinear(
            bases(a["offset"], "offset"), bases(a.get("block", []), "block"), as_int(a.get("alignment", 16), "alignment")
        )
    if kind == "padded_shared":
        return _padded(a, name)
    if kind == "shared":
        return _legacy_shared(a, name, rank, ctx)
    if kind in ("swizzled_shared", "amd_rotating_shared"):
        return (L.AmdRotatingShared if kind == "amd_rotating_shared" else L.SwizzledShared)(
            as_int(a["vec"], "vec"),
            as_int(a["per_phase"], "perPhase"),
            as_int(a["max_phase"], "maxPhase"),
            int_tuple(a["order"], "order"),
            cga_bases(a, rank),
        )
    return L.NvmmaShared(
        as_int(a["swizzle_byte_width"], "swizzlingByteWidth"),
        as_int(a["element_bitwidth"], "elementBitWidth"),
        as_bool(a.get("transposed", False), "transposed"),
        rank,
        cga_bases(a, rank),
    )


def _mfma_instr_shape(instr: tuple[int, ...], ctx: Context) -> tuple[int, ...]:
    """An mfma instrShape as Triton 3.6 prints it: Triton 3.0-3.5 print [M, N] alone, and 3.6 adds the K it picks
    for the element type (llgen's default for it here); K does not change the accumulator or operand layout."""
    if len(instr) != 2:
        return instr
    m, n = instr
    return (m, n, default_mfma_instr_shape(m if m == n else 4, ctx.dtype_bytes)[2])


def _legacy_shared(a: dict, name: str, rank: int, ctx: Context):
    """Triton 3.0-3.2's ``#triton_gpu.shared<{vec, perPhase, maxPhase, order, [CTAsPerCGA, CTASplitNum, CTAOrder,]
    hasLeadingOffset}>`` as the layout Triton 3.3 split it into. hasLeadingOffset = false: swizzled_shared of the
    same fields. hasLeadingOffset = true (the wgmma / TMA layout): nvmma_shared, whose swizzle width Triton 3.2's
    sharedToLinearLayoutLeadingOffset read from (perPhase, maxPhase): (4, 2) is 32 bytes, (2, 4) 64 and (1, 8) 128,
    and (1, 1) no swizzle (vec = perPhase = maxPhase = 1, what 3.3's nvmma_shared of width 0 reports); its element
    width is 128 / vec bits (3.2 built vec as 128 / element bits; 3.3 prints that elementBitWidth), the element
    type's for width 0; transposed when the contiguous dim (order[0]) is not the last. Both matched by compiling
    the same kernels with Triton 3.2 and 3.3 (tests/data/legacy)."""
    vec, per_phase, max_phase = (
        as_int(a[k], n) for k, n in (("vec", "vec"), ("per_phase", "perPhase"), ("max_phase", "maxPhase"))
    )
    order = int_tuple(a["order"], "order")
    if not as_bool(a.get("has_leading_offset", False), "hasLeadingOffset"):
        return L.SwizzledShared(vec, per_phase, max_phase, order, cga_bases(a, rank))
    swizzle = _LEADING_OFFSET_SWIZZLE.get((per_phase, max_phase))
    if swizzle is None:
        raise LlgenError(
            f"'#{name}' with hasLeadingOffset = true has (perPhase, maxPhase) = ({per_phase}, {max_phase}), "
            "but Triton built only (4, 2), (2, 4), (1, 8) or (1, 1) for it (a 32, 64, 128-byte or no swizzle)."
        )
    bits = 8 * ctx.dtype_bytes
    if swizzle:
        if vec not in (2, 4, 8, 16):
            raise LlgenError(
                f"'#{name}' with hasLeadingOffset = true has vec = {vec}, which is not 128 / the element bits of any "
                "element type (2, 4, 8 or 16)."
            )
        bits = 128 // vec
    if sorted(order) != list(range(len(order))) or len(order) < 2 or order[0] not in (len(order) - 1, len(order) - 2):
        raise LlgenError(
            f"'#{name}' with hasLeadingOffset = true has order {list(order)}, whose contiguous dim is neither of the last two."
        )
    return L.NvmmaShared(swizzle, bits, order[0] != len(order) - 1, len(order), cga_bases(a, len(order)))


def _padded(a: dict, name: str):
    """A padded_shared layout: its linear remap as ``offset``/``block`` bases or as ``order``/``shape``."""
    pairs = tuple(int_tuple(p, "interval:+padding pair") for p in a["intervals"])
    if "offset" in a or "block" in a:
        if "order" in a or "shape" in a:
            raise LlgenError(f"'#{name}' gives both offset/block bases and order/shape: it takes one of the two forms.")
        return L.PaddedShared.spanning(pairs, bases(a.get("offset", []), "offset"), bases(a.get("block", []), "block"))
    if "order" not in a or "shape" not in a:
        raise LlgenError(f"'#{name}' needs either offset and block bases or order and shape.")
    return L.PaddedShared.identity(pairs, int_tuple(a["order"], "order"), int_tuple(a["shape"], "shape"))


def _parent(val, ctx: Context, rank: int):
    if not isinstance(val, tuple):
        raise LlgenError(f"a parent must be a #ttg attribute, got {_show(val)}.")
    return encoding_from_attr(val, ctx, rank)
