"""An encoding as Triton 3.6 prints it in TTGIR (``llgen layout`` shows what a short form resolved to): the
same fields in the same order, optional ones (CGALayout, tilesPerWarp, a 64-bit elementBitWidth, a wmma
instrShape other than 16x16x16) only where Triton prints them. tests/test_ttgir_render.py holds the text
to Triton's own for every family."""

from __future__ import annotations

from llgen import layouts as L
from llgen.core.layout import LinearLayout
from llgen.spec.ttgir import PADDINGS


def attribute(enc) -> str:
    """The ``#ttg.<name><{...}>`` text of an encoding object (llgen.layouts)."""
    name, fields = _fields(enc)
    return parsed_text((f"ttg.{name}", dict(fields)))


def linear_attribute(layout: LinearLayout) -> str:
    """A distributed `LinearLayout` (register, lane, warp, block) as ``#ttg.linear``."""
    bases = {n: [list(layout.basis(n, i)) for i in range(k)] for n, k in layout.ins}
    return attribute(L.Linear(*(tuple(map(tuple, bases.get(n, []))) for n in ("register", "lane", "warp", "block"))))


def parsed_text(attr: tuple[str, dict]) -> str:
    """A parsed attribute ``(name, fields)`` (llgen.spec.ttgir.AttrParser) as text, aliases written out:
    padded_shared's ``interval:+padding`` pairs before the fields, shared_linear's alignment after them."""
    name, fields = attr
    fields = dict(fields)
    pairs = fields.pop(PADDINGS, None)
    after = {"alignment": fields.pop("alignment")} if name.endswith("shared_linear") and "alignment" in fields else {}
    head = f"[{', '.join(f'{_value(i)}:+{_value(p)}' for i, p in pairs)}] " if pairs is not None else ""
    tail = "".join(f", {k} = {_value(v)}" for k, v in after.items())
    return f"#{name}<{head}{{{', '.join(f'{k} = {_value(v)}' for k, v in fields.items())}}}{tail}>"


def _fields(enc) -> tuple[str, list]:
    cga = [("CGALayout", enc.cga_layout)] if getattr(enc, "cga_layout", ()) else []
    if isinstance(enc, L.Blocked):
        return "blocked", [
            ("sizePerThread", enc.size_per_thread),
            ("threadsPerWarp", enc.threads_per_warp),
            ("warpsPerCTA", enc.warps_per_cta),
            ("order", enc.order),
            *cga,
        ]
    if isinstance(enc, L.NvidiaMma):
        return "nvidia_mma", [
            ("versionMajor", enc.version),
            ("versionMinor", 0),
            ("warpsPerCTA", enc.warps_per_cta),
            *cga,
            ("instrShape", enc.instr_shape),
        ]
    if isinstance(enc, L.AmdMfma):
        return "amd_mfma", [
            ("version", enc.version),
            ("warpsPerCTA", enc.warps_per_cta),
            ("instrShape", enc.instr_shape),
            ("isTransposed", enc.transposed),
            *cga,
            *_tiles(enc),
            *([("elementBitWidth", enc.element_bitwidth)] if enc.element_bitwidth != 32 else []),
        ]
    if isinstance(enc, L.AmdWmma):
        return "amd_wmma", [
            ("version", enc.version),
            ("isTranspose", enc.transposed),
            ("warpsPerCTA", enc.warps_per_cta),
            *cga,
            *_tiles(enc),
            *([("instrShape", enc.instr_shape)] if tuple(enc.instr_shape) != (16, 16, 16) else []),
        ]
    if isinstance(enc, L.DotOperand):
        return "dot_op", [("opIdx", enc.operand_index), ("parent", enc.parent), ("kWidth", enc.k_width)]
    if isinstance(enc, L.Slice):
        return "slice", [("dim", enc.dim), ("parent", enc.parent)]
    if isinstance(enc, L.Linear):
        return "linear", [(n, getattr(enc, n)) for n in ("register", "lane", "warp", "block")]
    if isinstance(enc, L.SharedLinear):
        block = [("block", enc.block)] if enc.block else []
        return "shared_linear", [("offset", enc.offset), *block, ("alignment", enc.alignment)]
    if isinstance(enc, L.PaddedShared):
        if enc.is_identity():
            return "padded_shared", [(PADDINGS, enc.intervals), ("order", enc.order()), ("shape", enc.shape)]
        return "padded_shared", [(PADDINGS, enc.intervals), ("offset", enc.offset), ("block", enc.block)]
    if isinstance(enc, L.SwizzledShared):
        return "amd_rotating_shared" if isinstance(enc, L.AmdRotatingShared) else "swizzled_shared", [
            ("vec", enc.vec),
            ("perPhase", enc.per_phase),
            ("maxPhase", enc.max_phase),
            ("order", enc.order),
            *cga,
        ]
    if isinstance(enc, L.NvmmaShared):
        return "nvmma_shared", [
            ("swizzlingByteWidth", enc.swizzle_byte_width),
            ("transposed", enc.transposed),
            ("elementBitWidth", enc.element_bitwidth),
            *cga,
        ]
    raise TypeError(f"no TTGIR spelling for {type(enc).__name__}")


def _tiles(enc) -> list:
    return [("tilesPerWarp", enc.tiles_per_warp)] if any(t != 1 for t in enc.tiles_per_warp) else []


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], dict):
        return parsed_text(v)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return attribute(v)
