"""A distributed layout seen as flat logical vectors per hardware bit.

``reg[i]`` is the flat tensor index (row-major, see layout.py) reached by register bit i,
likewise ``lane`` and ``warp``. A zero entry is a broadcast bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from llgen.core import f2
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout


@dataclass(frozen=True)
class Hw:
    reg: tuple[int, ...]
    lane: tuple[int, ...]
    warp: tuple[int, ...]
    nbits: int  # logical bits of the tile

    @staticmethod
    def of(layout: LinearLayout) -> Hw:
        extra = set(layout.in_names) - {"register", "lane", "warp", "block"}
        if extra:
            raise LlgenError(f"a distributed layout has in-dims register/lane/warp, not {sorted(extra)}.")
        if any(layout.flat_cols("block")):
            raise LlgenError("layouts with a non-trivial block (cluster) dim are converted per CTA; pass one CTA's layout.")
        return Hw(layout.flat_cols("register"), layout.flat_cols("lane"), layout.flat_cols("warp"), layout.total_out_bits)

    @cached_property
    def local(self) -> tuple[int, ...]:
        """Register columns then lane columns: the warp-local map."""
        return self.reg + self.lane

    @cached_property
    def local_span(self) -> list[int]:
        return f2.reduce(self.local)

    @cached_property
    def _local_solver(self) -> f2.Solver:
        return f2.Solver(self.local)

    def local_coords(self, x: int) -> tuple[int, int] | None:
        """(register index, lane index) holding x in warp 0's frame, lowest replica; None if absent."""
        sol = self._local_solver(x)
        if sol is None:
            return None
        return sol & ((1 << len(self.reg)) - 1), sol >> len(self.reg)

    def element(self, reg: int, lane: int, warp: int) -> int:
        return f2.combine(reg, self.reg) ^ f2.combine(lane, self.lane) ^ f2.combine(warp, self.warp)

    @property
    def warp_broadcast_mask(self) -> int:
        return sum(1 << i for i, c in enumerate(self.warp) if not c)

    @property
    def reg_broadcast_mask(self) -> int:
        return sum(1 << i for i, c in enumerate(self.reg) if not c)
