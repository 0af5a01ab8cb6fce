"""Dot operands: the register layout of operand A (operand_index 0, dims M x K) or B
(operand_index 1, dims K x N) feeding the matrix instruction of a parent accumulator layout.

Convention: ``k_width`` is the number of consecutive K elements one thread holds per register
group (Triton's kWidth); it must be a power of two. The parent decides the fragment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout


@dataclass(frozen=True)
class DotOperand:
    """Triton's DotOperandEncoding(opIdx, parent, kWidth)."""

    operand_index: int
    parent: object  # an encoding with dot_operand_linear(operand_index, k_width, shape)
    k_width: int

    def __post_init__(self):
        if self.operand_index not in (0, 1):
            raise LlgenError(f"dot operand index {self.operand_index} must be 0 (A) or 1 (B).")
        if not hasattr(self.parent, "dot_operand_linear"):
            raise LlgenError(f"a {type(self.parent).__name__} layout cannot be the parent of a dot operand.")
        k = self.k_width
        if not isinstance(k, int) or k < 1 or k & (k - 1):
            raise LlgenError(f"k_width {k} is invalid for a {type(self.parent).__name__} parent: it must be a power of two.")

    @property
    def rank(self) -> int:
        return self.parent.rank

    def to_linear(self, shape: Sequence[int]) -> LinearLayout:
        return self.parent.dot_operand_linear(self.operand_index, self.k_width, shape)


def dot_operand(operand_index: int, parent, k_width: int, shape: Sequence[int]) -> LinearLayout:
    """Operand ``operand_index`` of the dot whose accumulator is ``parent`` (an encoding object
    such as `NvidiaMma`, `AmdMfma` or `AmdWmma`), over ``shape``."""
    return DotOperand(operand_index, parent, k_width).to_linear(shape)
