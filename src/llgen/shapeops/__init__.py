"""Shape operations on distributed layouts (the paper's §5.1): for trans, reshape, join, split, expand_dims,
broadcast and fp4_to_fp, the result layout that makes the op a no-op (every thread keeps its registers), inferred
exactly as Triton 3.6 infers it, legacy family where Triton keeps one, ``#ttg.linear`` otherwise; and, backward,
the source layout Triton's layout engine derives from a wanted result.

A `TensorLayout` is what a Triton tensor type carries: an encoding object (llgen.layouts: Blocked, Slice,
DotOperand, NvidiaMma, AmdMfma, AmdWmma, Linear) and a shape. Its methods return the result's TensorLayout::

    t = TensorLayout(Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32))
    t.trans((1, 0)).text   # '#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], ...}>'
    t.reshape((2048,)).layout   # the LinearLayout over 2048 elements

Modules: ``ops`` (the ops as values, their shapes and shape errors), ``forward`` and ``backward`` (Triton's
inference per op), ``legacy_reshape`` (the blocked reshape), ``linear`` (the ``#ttg.linear`` fallbacks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.shapeops.ops import KINDS, Op, parse_op, result_shapes

__all__ = ["KINDS", "Op", "TensorLayout", "apply_ops", "parse_op", "result_shapes", "source_of"]


@dataclass(frozen=True)
class TensorLayout:
    """A tensor's encoding over its shape. ``layout`` is the `LinearLayout` over the shape, ``text`` the encoding
    as Triton prints it, ``vector`` the longest run of row-major elements one thread holds in consecutive
    registers."""

    encoding: object
    shape: tuple[int, ...]

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(self.shape))
        if not hasattr(self.encoding, "to_linear"):
            raise LlgenError(f"a {type(self.encoding).__name__} is not a layout encoding.")
        rank = getattr(self.encoding, "rank", len(self.shape))
        if rank != len(self.shape):
            raise LlgenError(f"the layout has rank {rank} but the shape {_dims(self.shape)} has rank {len(self.shape)}.")

    @staticmethod
    def of(layout) -> TensorLayout:
        """A distributed `LinearLayout` as the ``#ttg.linear`` tensor it is, over its own shape."""
        from llgen.shapeops.linear import INS, bases_of, encoding

        if not set(layout.in_names) <= set(INS):
            raise LlgenError(
                f"shape ops take a distributed layout (register, lane, warp, block), not one over {list(layout.in_names)}."
            )
        return TensorLayout(encoding(bases_of(layout)), layout.shape)

    @property
    def layout(self):
        return self.encoding.to_linear(self.shape)

    @property
    def text(self) -> str:
        from llgen.spec.render import attribute

        return attribute(self.encoding)

    @property
    def vector(self) -> int:
        return self.layout.num_consecutive()

    def apply(self, op: Op | str) -> TensorLayout:
        """The result of one op (an `Op` or its text, e.g. ``"trans=1,0"``)."""
        from llgen.shapeops.forward import infer

        op = parse_op(op) if isinstance(op, str) else op
        enc, shape = infer(self.encoding, self.shape, op)
        return TensorLayout(enc, shape)

    def source(self, op: Op | str, shape: Sequence[int]) -> TensorLayout:
        """Backward: the layout of the op's source (of ``shape``) that Triton infers from this result layout."""
        from llgen.shapeops.backward import infer_source

        op = parse_op(op) if isinstance(op, str) else op
        want = op.result_shape(shape)
        if tuple(want) != self.shape:
            raise LlgenError(f"{op} makes {_dims(want)} from {_dims(shape)}, not this tensor's {_dims(self.shape)}.")
        return TensorLayout(infer_source(self.encoding, shape, op), tuple(shape))

    def trans(self, perm: Sequence[int]) -> TensorLayout:
        return self.apply(Op("trans", tuple(perm)))

    def reshape(self, shape: Sequence[int]) -> TensorLayout:
        return self.apply(Op("reshape", tuple(shape)))

    def join(self) -> TensorLayout:
        return self.apply(Op("join"))

    def split(self) -> TensorLayout:
        return self.apply(Op("split"))

    def expand_dims(self, axis: int) -> TensorLayout:
        return self.apply(Op("expand_dims", axis))

    def broadcast(self, shape: Sequence[int]) -> TensorLayout:
        return self.apply(Op("broadcast", tuple(shape)))

    def fp4_to_fp(self, axis: int) -> TensorLayout:
        return self.apply(Op("fp4_to_fp", axis))


def apply_ops(start: TensorLayout, ops: Sequence[Op | str]) -> list[TensorLayout]:
    """``start`` and the result of each op in turn (``len(ops) + 1`` entries)."""
    steps = [start]
    for op in ops:
        steps.append(steps[-1].apply(op))
    return steps


def source_of(result: TensorLayout, ops: Sequence[Op | str], shape: Sequence[int]) -> list[TensorLayout]:
    """Backward through a chain: the ops run forward from a tensor of ``shape`` and end in ``result``'s shape; the
    layouts before each op, ``[source, ..., result]``, as Triton infers them from the result."""
    ops = [parse_op(op) if isinstance(op, str) else op for op in ops]
    shapes = result_shapes(shape, ops)
    if shapes[-1] != result.shape:
        raise LlgenError(
            f"the ops make {_dims(shapes[-1])} from {_dims(shape)}, but the wanted layout is over {_dims(result.shape)}."
        )
    steps = [result]
    for op, src in zip(reversed(ops), reversed(shapes[:-1]), strict=True):
        steps.insert(0, steps[0].source(op, src))
    return steps


def _dims(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))
