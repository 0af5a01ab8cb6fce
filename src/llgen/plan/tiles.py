"""Instruction tiles (docs/design.md §8): ldmatrix / stmatrix found by dividing a layout by the
instruction's own layout.

ldmatrix (non-transposed) moves 8x8 matrices of 16-bit values: a thread receives one 32-bit
word per matrix; the word's bits come from the low register bits (4 bytes of data), lane bits
0-1 walk the 16-byte row, lane bits 2-4 pick the row, and further register bits pick the
matrix (.x2/.x4). Each row's address comes from one lane: lane 8*m + i gives row i of matrix
m. The transposed form (.trans, 16-bit only) swaps the roles: lane bits 2-4 walk the row and
the word bit and lane bits 0-1 pick the row. stmatrix is the same tile for stores.
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core import f2
from llgen.plan.hw import Hw


@dataclass(frozen=True)
class Tile:
    trans: bool
    vec: tuple[int, ...]  # logical vectors of offset bits 0.. (16 bytes of one row)
    row_lanes: tuple[int, ...]  # logical vectors of the 8 rows (provider lane bits 0-2)
    reg_bits: tuple[int, ...]  # register bits inside one 32-bit word
    matrix_bits: tuple[int, ...]  # register bits that pick the matrix
    thread_lanes: tuple[tuple[str, int], ...]  # provider lane bit -> ("lane"|"reg"|"none", index)

    @property
    def matrices(self) -> int:
        return 1 << len(self.matrix_bits)


def ldmatrix_tile(side: Hw, other: Hw, elem_bytes: int, trans: bool) -> Tile | None:
    """The ldmatrix/stmatrix tile of ``side``, or None when the layout does not divide by it.
    ``other`` must hold the tile's 16-byte rows in registers, so it can move them in one vector."""
    if len(side.lane) != 5 or elem_bytes not in (1, 2, 4) or (trans and elem_bytes != 2):
        return None
    nz = [i for i, c in enumerate(side.reg) if c]
    nword = {1: 2, 2: 1, 4: 0}[elem_bytes]
    if len(nz) < nword:
        return None
    word = nz[:nword]
    if trans:
        vec = [side.lane[2], side.lane[3], side.lane[4]]
        rows = [side.reg[word[0]], side.lane[0], side.lane[1]]
        providers = [("reg", word[0]), ("lane", 0), ("lane", 1)]
    else:
        vec = [side.reg[i] for i in word] + [side.lane[0], side.lane[1]]
        rows = [side.lane[2], side.lane[3], side.lane[4]]
        providers = [("lane", 2), ("lane", 3), ("lane", 4)]
    if any(not c for c in vec) or f2.rank(vec) != len(vec):
        return None
    other_regs = set(other.reg)
    if any(c not in other_regs for c in vec):
        return None
    matrix = [i for i in nz if i not in word][:2]
    providers += [("reg", i) for i in matrix] + [("none", 0)] * (2 - len(matrix))
    return Tile(trans, tuple(vec), tuple(rows), tuple(word), tuple(matrix), tuple(providers))
