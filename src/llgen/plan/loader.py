"""A direct load from global memory into a distributed layout: every thread reads its own registers, as vectors,
from a tensor stored in memory layout M, with no shared memory and no conversion.

The algebra is one composition. Register, lane and warp bases of the operand layout B (over one CTA tile) map
through M⁻¹ to memory offsets; the low register bits that land on offset bits 0, 1, 2, ... make a vector, and
every other basis adds a constant (register bits) or a bit field of the lane, warp or tile index to the address.
M's offsets are XOR-combinations, so an address is the XOR of its terms (a sum where they are disjoint bits).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from llgen.core import f2
from llgen.core.dtypes import DType
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout

VECTOR_BYTES = 16  # the widest per-thread global load
SECTOR, LINE = 32, 128


def vector_cap(dtype: DType) -> int:
    """log2 of the elements of ``dtype`` one 16-byte load holds."""
    return (VECTOR_BYTES * 8 // dtype.bits).bit_length() - 1


@dataclass(frozen=True)
class Loader:
    """Loading ``operand`` (register/lane/warp -> a tile of ``tile`` shape) from a tensor of ``memory``'s shape
    stored in ``memory`` (offset -> tensor coordinates, element units), tile by tile."""

    operand: LinearLayout
    memory: LinearLayout
    dtype: DType
    pair_bit: int = 0  # the position bit of a 16-bit output's two elements: 2 for the fast nibble order, 1 for i8's

    def __post_init__(self):
        shape, tile = self.memory.shape, self.operand.shape
        if len(shape) != len(tile) or any(s % t for s, t in zip(shape, tile, strict=True)):
            raise LlgenError(f"the tile {list(tile)} does not tile the tensor {list(shape)}.")
        if any(self.operand.flat_cols("block")):
            raise LlgenError("a direct load is per CTA: the operand layout must have no block bases.")

    # ------------------------------------------------------------------ offsets of each basis
    @cached_property
    def _solver(self) -> f2.Solver:
        if not (self.memory.is_injective() and self.memory.is_surjective()):
            raise LlgenError("the memory layout must hold each element of the tensor once (an invertible map).")
        return f2.Solver(self.memory.flat_cols("offset"))

    def _offset(self, flat: int) -> int:
        """M⁻¹ of a flat row-major index of the whole tensor."""
        return self._solver(flat)

    def offset_of(self, tile_flat: int) -> int:
        """The memory offset of a tile-relative element (a flat row-major index over the tile) in tile 0."""
        return self._offset(_embed(tile_flat, self.operand.shape, self.memory.shape))

    def offsets(self, dim: str) -> tuple[int, ...]:
        """Each basis of the operand's in-dim ``dim`` as a memory offset (0 where the basis broadcasts)."""
        return tuple(self.offset_of(c) if c else 0 for c in self.operand.flat_cols(dim))

    def tile_offsets(self) -> tuple[tuple[int, ...], ...]:
        """Per tensor dim, each bit of the tile index along it (tile t covers rows t*tile ..) as a memory offset."""
        out = []
        for d, (n, t) in enumerate(zip(self.memory.shape, self.operand.shape, strict=True)):
            out.append(tuple(self._offset(_unit(d, t << b, self.memory.shape)) for b in range((n // t).bit_length() - 1)))
        return tuple(out)

    # ------------------------------------------------------------------ vectors
    @cached_property
    def vector(self) -> tuple[int, ...]:
        """The register bit each position bit of one load's vector holds: position bit i is the register basis whose
        offset is 2**i, up to 16 bytes. Below a 32-bit word the positions must be the registers' own order (a loaded
        word is a register word), except for 4-bit types: there only the pair that becomes one 16-bit register must
        share a byte, at position bit ``pair_bit`` (0, or 2 for the nibble order 0,2,4,6,1,3,5,7 that decodes fast);
        and for 8-bit types with ``pair_bit`` 1, the byte order 0,2,1,3: position bits 0 and 1 hold registers 1 and 0."""
        regs = self.offsets("register")
        cap = vector_cap(self.dtype)
        in_word = (32 // self.dtype.bits).bit_length() - 1
        out: list[int] = []
        for i in range(min(cap, len(regs))):
            if (1 << i) not in regs:
                break
            j = regs.index(1 << i)
            if self.dtype.sub_byte:
                if (i == self.pair_bit) != (j == 0):
                    break
            elif i < in_word and j != (i ^ 1 if self.pair_bit == 1 and i < 2 else i):
                break
            out.append(j)
        if self.dtype.sub_byte and (len(out) <= self.pair_bit or out[self.pair_bit] != 0):
            raise LlgenError(
                f"{self.dtype.name} packs two elements to a byte, but the elements of registers 0 and 1 are not "
                f"{'adjacent' if self.pair_bit == 0 else '4 apart'} in memory: a thread could not load them as one byte."
            )
        if self.dtype.sub_byte and self.pair_bit and len(out) < 3:
            raise LlgenError("the fast nibble order needs 8 elements of a thread in each 32-bit word.")
        if not self.dtype.sub_byte and self.pair_bit and len(out) < 2:
            raise LlgenError("the fast byte order needs 4 elements of a thread in each 32-bit word.")
        return tuple(out)

    @property
    def vector_bits(self) -> int:
        return len(self.vector)

    @property
    def vector_bytes(self) -> int:
        return (self.dtype.bits << self.vector_bits) // 8

    @property
    def registers(self) -> int:
        return 1 << len(self.operand.flat_cols("register"))

    @property
    def words(self) -> int:
        """32-bit registers a thread holds per tile (at least one)."""
        return max(1, self.registers * self.dtype.bits // 32)

    @cached_property
    def rest(self) -> tuple[int, ...]:
        """The register bits outside the vector: one load instruction each combination."""
        return tuple(j for j in range(len(self.offsets("register"))) if j not in self.vector)

    def load_offsets(self) -> list[int]:
        """The constant offset of each load instruction: the XOR of the register bases outside the vector."""
        regs = self.offsets("register")
        return [f2.combine(h, [regs[j] for j in self.rest]) for h in range(1 << len(self.rest))]

    def register_at(self, load: int, position: int) -> int:
        """The register whose element load ``load`` brings at vector position ``position``."""
        r = 0
        for i, j in enumerate(self.vector):
            r |= ((position >> i) & 1) << j
        for i, j in enumerate(self.rest):
            r |= ((load >> i) & 1) << j
        return r

    @property
    def tile_elements(self) -> int:
        return 1 << self.operand.total_out_bits

    # ------------------------------------------------------------------ what one warp instruction touches
    def lane_offset(self, lane: int, warp: int = 0) -> int:
        return f2.combine(lane, self.offsets("lane")) ^ f2.combine(warp, self.offsets("warp"))

    def traffic(self) -> dict:
        """Per load instruction of warp 0 (averaged over the instructions): 32-byte sectors and 128-byte lines touched,
        the sector floor of the bytes it brings, and the bytes a thread gets."""
        lanes = 1 << len(self.offsets("lane"))
        loads = self.load_offsets()
        sectors = lines = floor = 0
        for const in loads:
            spans = {(self.lane_offset(ln) ^ const) * self.dtype.bits // 8 for ln in range(lanes)}
            touched = {b // SECTOR for s in spans for b in range(s, s + self.vector_bytes)}
            sectors += len(touched)
            lines += len({b // LINE for s in spans for b in range(s, s + self.vector_bytes)})
            floor += -(-len(spans) * self.vector_bytes // SECTOR)
        n = len(loads)
        return {
            "loads_per_thread": n,
            "vector_bytes": self.vector_bytes,
            "sectors_per_load": sectors / n,
            "lines_per_load": lines / n,
            "floor_sectors_per_load": floor / n,
        }


def _embed(tile_flat: int, tile: tuple[int, ...], shape: tuple[int, ...]) -> int:
    """A tile-relative flat index as a flat index of the whole tensor (tile 0)."""
    out, shift_t, shift_s = 0, 0, 0
    for t, s in zip(reversed(tile), reversed(shape), strict=True):
        out |= ((tile_flat >> shift_t) & (t - 1)) << shift_s
        shift_t += t.bit_length() - 1
        shift_s += s.bit_length() - 1
    return out


def _unit(dim: int, value: int, shape: tuple[int, ...]) -> int:
    """The flat index of the coordinate that is ``value`` along ``dim`` and 0 elsewhere."""
    shift = sum(s.bit_length() - 1 for s in shape[dim + 1 :])
    return value << shift
