"""Pre-shuffled weights (paper §5.2): the global memory layout G in which every thread of an operand layout B loads
its registers as 16-byte vectors and each warp instruction reads whole 128-byte lines, and the K permutation that
does the same for a weight stored K-contiguous, with no repack, by permuting K in the other operand too.

G is B read in a new order: its offset bits are B's register bits that fill one 16-byte vector, then the lane bits,
then the remaining register bits, then the warp bits, then the bits that number the CTA tiles (K's first, so one
CTA's slab along K is one contiguous run). Broadcast bases (zero) address nothing and are skipped. Every G is a
permutation of the tensor's index bits when B is one, so it is a memory layout of the tensor.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from llgen.core import f2
from llgen.core.dtypes import DType
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout, unflatten
from llgen.plan.loader import Loader, _embed, _unit, vector_cap

DECODES = ("plain", "fast")  # fast: 4-bit elements in the order 0,2,4,6,1,3,5,7 within a word, i8 in the order 0,2,1,3
FAST_TYPES = ("i4", "u4", "e2m1", "i8")


def decodes_of(dt: str) -> tuple[str, ...]:
    """The decodes a pre-shuffle of ``dt`` offers."""
    return DECODES if dt in FAST_TYPES else ("plain",)


@dataclass(frozen=True)
class PreshufflePlan:
    """G for ``operand`` (B over one CTA tile) of a tensor of ``shape``, with the K permutation where B's bases each
    lie along K or across it."""

    kind: ClassVar[str] = "preshuffle"
    operand: LinearLayout
    shape: tuple[int, ...]
    dtype: DType
    k_dim: int | None
    decode: str = "plain"
    scale_block: int | None = None  # the values' e8m0 scales, one per this many along K (mx types): see ``scales``

    def __post_init__(self):
        if self.scale_block is not None and self.k_dim is None:
            raise LlgenError("scales need K: give the operand as a dot operand (#ttg.dot_op<...>).")
        if self.scale_block is not None and self.shape[self.k_dim] % self.scale_block:
            raise LlgenError(f"the scale block {self.scale_block} does not divide K = {self.shape[self.k_dim]}.")
        if self.decode not in DECODES:
            raise LlgenError(f"decode '{self.decode}' is not one of {', '.join(DECODES)}.")
        if self.decode == "fast" and self.dtype.name not in FAST_TYPES:
            raise LlgenError(
                f"the fast decode orders 4-bit and i8 elements within a word; {self.dtype.name} is neither "
                f"(one of {', '.join(FAST_TYPES)})."
            )
        nz = self.bases
        if f2.rank(list(nz)) != len(nz) or len(nz) != self.operand.total_out_bits:
            raise LlgenError(
                "the operand layout holds some element of its tile twice beyond a broadcast (or misses one): a "
                "pre-shuffled layout stores each element once."
            )

    @property
    def tile(self) -> tuple[int, ...]:
        return self.operand.shape

    @property
    def pair_bit(self) -> int:
        """The position bit, within a word, that tells the two elements of one 16-bit output pair apart."""
        if self.decode != "fast":
            return 0
        return 2 if self.dtype.sub_byte else 1

    @cached_property
    def bases(self) -> tuple[int, ...]:
        """B's non-zero bases (tile-flat) in G's order within a tile."""
        regs = [c for c in self.operand.flat_cols("register") if c]
        lanes = [c for c in self.operand.flat_cols("lane") if c]
        warps = [c for c in self.operand.flat_cols("warp") if c]
        cap = vector_cap(self.dtype)
        vec, rest = regs[:cap], regs[cap:]
        if self.decode == "fast" and self.dtype.sub_byte:  # nibbles 0,2,4,6,1,3,5,7: a pair 4 nibbles apart
            vec = [vec[1], vec[2], vec[0], *vec[3:]] if len(vec) >= 3 else vec
        elif self.decode == "fast":  # bytes 0,2,1,3: a pair in the low bytes of a word's two 16-bit halves
            vec = [vec[1], vec[0], *vec[2:]] if len(vec) >= 2 else vec
        return (*vec, *lanes, *rest, *warps)

    @cached_property
    def memory(self) -> LinearLayout:
        """G over the whole tensor: offset (elements) -> tensor coordinates."""
        cols = [_embed(c, self.tile, self.shape) for c in self.bases]
        dims = [self.k_dim] if self.k_dim is not None else []
        dims += [d for d in reversed(range(len(self.shape))) if d != self.k_dim]
        for d in dims:
            t, n = self.tile[d], self.shape[d]
            cols += [_unit(d, t << b, self.shape) for b in range((n // t).bit_length() - 1)]
        return _memory(cols, self.shape)

    @cached_property
    def loader(self) -> Loader:
        return Loader(self.operand, self.memory, self.dtype, self.pair_bit)

    # ------------------------------------------------------------------ the K permutation
    @cached_property
    def k_order(self) -> tuple[int, ...] | None:
        """The tile's K bits in the order a K-contiguous weight must hold them (register bits first), as bit indices
        of K; None where K is unknown or some basis of B mixes K with another dim."""
        if self.k_dim is None:
            return None
        kb = (self.tile[self.k_dim]).bit_length() - 1
        coords = [unflatten(c, self.operand.outs) for c in self.bases]
        if any(c[self.k_dim] and any(x for d, x in enumerate(c) if d != self.k_dim) for c in coords):
            return None
        along = [c[self.k_dim].bit_length() - 1 for c in coords if c[self.k_dim]]
        return tuple(along) if sorted(along) == list(range(kb)) else None

    def k_permutation(self) -> list[int] | None:
        """sigma over the tensor's K: hardware k reads the weight's row (or column) sigma[k] of a K-contiguous store;
        the other operand's K takes the same sigma. Bits above the tile's K stay."""
        order = self.k_order
        if order is None:
            return None
        n = self.shape[self.k_dim]
        out = []
        for k in range(n):
            j = k & ~((1 << len(order)) - 1)
            for i, b in enumerate(order):
                j |= ((k >> b) & 1) << i
            out.append(j)
        return out

    @cached_property
    def k_memory(self) -> LinearLayout | None:
        """The K-contiguous store as a memory layout of the hardware's tensor: offset bit i < log2(tile K) is the
        i-th K bit of k_order, then the other K bits, then the other dims (last dim fastest)."""
        order = self.k_order
        if order is None:
            return None
        d = self.k_dim
        cols = [_unit(d, 1 << b, self.shape) for b in order]
        cols += [_unit(d, 1 << b, self.shape) for b in range(len(order), self.shape[d].bit_length() - 1)]
        for o in reversed(range(len(self.shape))):
            if o != d:
                cols += [_unit(o, 1 << b, self.shape) for b in range(self.shape[o].bit_length() - 1)]
        return _memory(cols, self.shape)

    @cached_property
    def k_loader(self) -> Loader | None:
        mem = self.k_memory
        if mem is None:
            return None
        return _loader_or_none(Loader(self.operand, mem, self.dtype, self.pair_bit))

    @cached_property
    def row_major(self) -> Loader | None:
        """The plain load, from the tensor as it lies row-major: the baseline G and the K permutation improve on."""
        cols = [1 << b for b in range(sum(s.bit_length() - 1 for s in self.shape))]
        return _loader_or_none(Loader(self.operand, _memory(cols, self.shape), self.dtype))

    def to_json(self) -> dict:
        return self.memory.to_dict()

    # ------------------------------------------------------------------ the scales of mx types
    @cached_property
    def scales(self) -> PreshufflePlan | None:
        """The plan of the e8m0 scales these values take (one per ``scale_block`` along K): their own G."""
        if self.scale_block is None:
            return None
        layout = scale_layout(self.operand, self.k_dim, self.scale_block)
        shape = tuple(n // self.scale_block if d == self.k_dim else n for d, n in enumerate(self.shape))
        return PreshufflePlan(layout, shape, to_dtype("e8m0"), self.k_dim)

    def scale_of_pairs(self) -> list[int]:
        """For each 16-bit pair j of the upcast (registers 2j and 2j + 1), the scales' register holding its scale: the
        same in every lane and warp, since the scale layout's lane and warp bases are B's with K divided."""
        sl, k = self.scales.operand, self.k_dim
        at = {tuple(sl.apply({"register": r, "lane": 0, "warp": 0}).values()): r for r in range(sl.in_size("register"))}

        def scale_reg(r: int) -> int:
            c = list(self.operand.apply({"register": r, "lane": 0, "warp": 0}).values())
            c[k] //= self.scale_block
            return at[tuple(c)]

        out = [scale_reg(2 * j) for j in range(self.operand.in_size("register") // 2)]
        if any(scale_reg(2 * j + 1) != r for j, r in enumerate(out)):
            raise LlgenError("two elements of one 16-bit pair fall in different scale blocks: the scale block is too small.")
        return out


def _memory(cols: list[int], shape: tuple[int, ...]) -> LinearLayout:
    outs = tuple((f"dim{i}", s.bit_length() - 1) for i, s in enumerate(shape))
    bases = [list(unflatten(c, outs)) for c in cols]
    return LinearLayout.from_bases({"offset": bases, "block": []}, {f"dim{i}": s for i, s in enumerate(shape)})


def _loader_or_none(loader: Loader) -> Loader | None:
    """The loader, or None where its memory cannot feed whole bytes to a thread (4-bit pairs split)."""
    try:
        loader.vector  # noqa: B018 - checks the pairs
    except LlgenError:
        return None
    return loader


def scale_layout(operand: LinearLayout, k_dim: int, block: int = 32) -> LinearLayout:
    """The layout of the scales a thread of ``operand`` needs, one per ``block`` elements along K: B's bases with
    K divided by the block (the bits below it become broadcasts), each distinct scale once in a thread's registers
    (a register basis that only repeats one is dropped); lanes and warps that share a scale keep their zero bases."""
    from llgen.core.layout import log2_exact

    shift = log2_exact(block, "the scale block")
    shape = list(operand.shape)
    if shape[k_dim] < block:
        raise LlgenError(f"the tile's K ({shape[k_dim]}) is smaller than one scale block ({block}).")
    shape[k_dim] //= block

    def scaled(v):
        v = list(v)
        v[k_dim] >>= shift
        return v

    bases = {name: [scaled(operand.basis(name, i)) for i in range(k)] for name, k in operand.ins}
    bases["register"] = [v for v in bases["register"] if any(v)]
    return LinearLayout.from_bases(bases, {f"dim{i}": s for i, s in enumerate(shape)})
