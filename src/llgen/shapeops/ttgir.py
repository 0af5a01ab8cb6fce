"""The shape ops of a TTGIR dump (llgen.spec.module.ShapeOp) checked against Triton 3.6's inference: for each, the
no-op result layout llgen.shapeops infers from the op's source layout and attributes, and whether the dump's
result layout is it (the same map over the result shape). Where it is not, the op moves data: `as_conversion` gives
the convert_layout from the no-op layout to the dump's result layout that `llgen plan --ttgir` plans for it.
``ttg.memdesc_trans`` and ``ttg.memdesc_reshape`` view a shared-memory buffer: no data moves, so the result's memory
layout must be the source's with its tensor dims permuted or re-split (the same offset -> element map); one that is
not is a dump whose layouts disagree, listed as such and never planned."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.shapeops import Op, TensorLayout
from llgen.spec.module import ConvertOp, Module, ShapeOp

NOOP, MOVES, UNCHECKED, DISAGREES = "noop", "moves", "unchecked", "disagrees"


@dataclass(frozen=True)
class Checked:
    op: ShapeOp
    status: str  # NOOP, MOVES or UNCHECKED
    shape_op: Op | None = None  # the op as llgen.shapeops takes it (trans=1,0, expand_dims=1, ...)
    noop: str = ""  # the no-op result layout as Triton prints it (MOVES and NOOP)
    why: str = ""  # UNCHECKED: one sentence why

    def line(self) -> str:
        """``line 43 (kernel.py:20:5) in @f: tt.trans (trans=1,0) tensor<64x32xf16, #blocked3> -> tensor<32x64xf16,
        #blocked>: no-op, the result is the layout Triton infers``."""
        o = self.op
        what = f"{o.name}{f' ({self.shape_op})' if self.shape_op is not None and self.shape_op.arg is not None else ''}"
        types = f"{_type(o, o.src)} -> {_type(o, o.dst)}" if o.src[1] else "?"
        head = f"{o.where()} in @{o.func or '?'}: {what} {types}: "
        if self.status == NOOP:
            return head + "no-op, the result is the layout Triton infers."
        if self.status == MOVES:
            return head + f"not the no-op layout {self.noop}: the op moves data, planned as a conversion from it."
        if self.status == DISAGREES:
            return (
                head
                + "not a view of the source: its memory layout maps offsets to other elements, and a memdesc op moves no data."
            )
        return head + f"not checked: {self.why}"


def check(module: Module, op: ShapeOp, warps: int, lanes: int | None) -> Checked:
    """The op's no-op result layout and whether the dump's result is it."""
    from llgen.spec import Where, parse_encoding

    if op.problem:
        return Checked(op, UNCHECKED, why=op.problem)
    try:
        sop = shape_op(op)
    except LlgenError as e:
        return Checked(op, UNCHECKED, why=str(e))
    if op.memdesc:
        return _check_view(module, op, sop, warps, lanes)
    if "allow_reorder" in op.flags:
        return Checked(op, UNCHECKED, sop, why="allow_reorder leaves the element order to Triton, so no one layout is the no-op.")
    try:
        src = parse_encoding(op.src[3], op.src[1], warps, lanes, where=Where(aliases=module.aliases))
        dst = parse_encoding(op.dst[3], op.dst[1], warps, lanes, where=Where(aliases=module.aliases))
        want = TensorLayout(src, op.src[1]).apply(sop)
        if want.shape != op.dst[1]:
            raise LlgenError(f"{sop} makes {'x'.join(map(str, want.shape))}, not the result's {op.dst[0]}.")
        same = want.layout == dst.to_linear(op.dst[1])
    except LlgenError as e:
        return Checked(op, UNCHECKED, sop, why=str(e))
    return Checked(op, NOOP if same else MOVES, sop, want.text)


def _check_view(module: Module, op: ShapeOp, sop: Op, warps: int, lanes: int | None) -> Checked:
    """A memdesc_trans / memdesc_reshape: the result's memory layout against the source's with its tensor dims
    permuted (trans) or re-split row-major (reshape), as maps from offset to element."""
    from llgen.core.dtypes import from_mlir
    from llgen.core.layout import LinearLayout
    from llgen.spec import Where, parse_layout

    try:
        width = from_mlir(op.src[2]).bytes
        src = parse_layout(op.src[3], op.src[1], warps, lanes, where=Where(width, module.aliases))
        dst = parse_layout(op.dst[3], op.dst[1], warps, lanes, where=Where(width, module.aliases))
        if sop.kind == "trans":
            moved = src.transpose_outs([f"dim{p}" for p in sop.arg])
            view = LinearLayout(moved.ins, tuple((f"dim{i}", k) for i, (_, k) in enumerate(moved.outs)), moved.cols)
        else:
            view = src.reshape_outs([(f"dim{i}", n) for i, n in enumerate(op.dst[1])])
    except LlgenError as e:
        return Checked(op, UNCHECKED, sop, why=str(e))
    return Checked(op, NOOP if view == dst else DISAGREES, sop)


def shape_op(op: ShapeOp) -> Op:
    """The llgen.shapeops op the dump's op is: its kind, and its order, axis or result shape."""
    kind = op.name.split(".", 1)[1].removeprefix("memdesc_")  # a memdesc view: the same op on the memory layout
    if kind == "trans":
        return Op("trans", op.order)
    if kind in ("reshape", "broadcast"):
        return Op(kind, op.dst[1])
    if kind in ("expand_dims", "fp4_to_fp"):
        return Op(kind, op.axis)
    return Op(kind)


def as_conversion(c: Checked) -> ConvertOp:
    """A MOVES op as the convert_layout it amounts to: no-op layout -> the dump's result layout, over the result."""
    o = c.op
    return ConvertOp(o.line, o.func, o.dst[1], o.dst[2], c.noop, o.dst[3], o.location, tensor=o.dst[0], name=o.name)


def check_module(module: Module, warps: int, lanes: int | None) -> list[Checked]:
    return [check(module, op, warps, lanes) for op in module.shape_ops]


def _type(op: ShapeOp, side) -> str:
    kind = "!ttg.memdesc" if op.memdesc else "tensor"
    return f"{kind}<{side[0]}, {side[3]}>"
