"""Affine maps over F2 of a thread's id bits, as the generated code computes them.

Input bits are the lane bits (lowest first) followed by the warp bits. ``value(x)`` is
``const ^ XOR(cols[i] for set bits i of x)``: the emitter prints this as bit arithmetic on
``lane`` and ``warp`` computed once per thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llgen.core.f2 import combine, reduce, span


@dataclass(frozen=True)
class Affine:
    const: int
    cols: tuple[int, ...]

    def value(self, x: int) -> int:
        return self.const ^ combine(x, self.cols)

    def values(self, count: int) -> list[int]:
        """``[value(x) for x in range(count)]``, ``count`` a power of two up to ``2**len(cols)``: the span of the
        low columns lists them in that order, one XOR each."""
        return [self.const ^ v for v in span(self.cols[: count.bit_length() - 1])]

    def linear(self) -> Affine:
        return Affine(0, self.cols)

    def with_const(self, const: int) -> Affine:
        return Affine(const, self.cols)

    @property
    def is_constant(self) -> bool:
        return not any(self.cols)

    def image_basis(self) -> list[int]:
        return reduce(self.cols)

    @staticmethod
    def fit(fn: Callable[[int], int], nbits: int) -> Affine:
        """The affine map through fn's values at 0 and at each unit vector (fn must be affine)."""
        c = fn(0)
        return Affine(c, tuple(fn(1 << i) ^ c for i in range(nbits)))


def thread_bits(lanes: int, warps: int) -> tuple[int, int]:
    """(lane bits, warp bits) of a CTA."""
    return lanes.bit_length() - 1, warps.bit_length() - 1
