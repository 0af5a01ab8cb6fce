"""Shared-memory layouts given by their bases (Triton's SharedLinearEncoding) and padded ones
(PaddedSharedEncoding): in-dims ``offset`` and ``block``, out-dims dim0, dim1, ... as in shared.py.

Neither is resized to another tensor shape (Triton asserts the shapes match): the layout's own
shape is the one its bases span. A padded layout is a linear remap plus a padding function: the
remap (`PaddedShared.to_linear`) sends an element offset to the tensor element stored there, and
the buffer inserts ``padding`` elements after every ``interval`` offsets (`padded_offset`), so the
offsets are not a bijection onto a power of two and the buffer is larger (`padded_elements`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.layouts.common import Shape, check_pow2, check_shape, dim_name, identity_nd

Bases = tuple[tuple[int, ...], ...]


def _bases_layout(offset: Bases, block: Bases, shape: Sequence[int]) -> LinearLayout:
    outs = [(dim_name(d), s) for d, s in enumerate(shape)]
    return LinearLayout.from_bases({"offset": [list(v) for v in offset], "block": [list(v) for v in block]}, outs)


def _span(offset: Bases, block: Bases, rank: int) -> tuple[int, ...]:
    """The smallest power-of-two shape that holds every basis (Triton's when it parses the bases)."""
    return tuple(1 << max((v[d] for v in offset + block), default=0).bit_length() for d in range(rank))


def _check_bases(what: str, offset: Bases, block: Bases) -> int:
    """The rank of the bases; an error unless there is an offset basis and every basis has that many
    non-negative coordinates."""
    if not offset:
        raise LlgenError(f"a {what} layout needs at least one offset basis.")
    rank = len(offset[0])
    for name, vecs in (("offset", offset), ("block", block)):
        for v in vecs:
            if len(v) != rank or any(c < 0 for c in v):
                raise LlgenError(f"{what} {name} basis {list(v)} must have {rank} non-negative coordinates.")
    return rank


def _check_shape_matches(what: str, own: Sequence[int], shape: Shape) -> tuple[int, ...]:
    shape = check_shape(shape, len(own))
    if tuple(shape) != tuple(own):
        raise LlgenError(
            f"the {what} layout covers shape {list(own)}, not the tensor's {list(shape)}: Triton does not resize it."
        )
    return shape


@dataclass(frozen=True)
class SharedLinear:
    """Triton's SharedLinearEncoding: explicit ``offset`` and ``block`` bases (any F2 map, swizzles
    included) and the buffer's ``alignment`` in bytes. Zero bases are allowed; the others must map
    the offsets one to one onto the shape they span (Triton's rule)."""

    offset: Bases
    block: Bases = ()
    alignment: int = 16

    def __post_init__(self):
        object.__setattr__(self, "offset", tuple(tuple(v) for v in self.offset))
        object.__setattr__(self, "block", tuple(tuple(v) for v in self.block))
        _check_bases("shared_linear", self.offset, self.block)
        check_pow2("shared_linear alignment", [self.alignment])
        lay = self.native()
        cols = [c for n in lay.in_names for c in lay.flat_cols(n) if c]
        if not lay.is_surjective() or len(cols) != lay.total_out_bits:
            raise LlgenError(
                f"the shared_linear bases {[list(v) for v in self.offset]} (block {[list(v) for v in self.block]}) "
                f"must map their non-zero bases one to one onto the shape {list(lay.shape)} they span."
            )

    @property
    def rank(self) -> int:
        return len(self.offset[0])

    @property
    def shape(self) -> tuple[int, ...]:
        return _span(self.offset, self.block, self.rank)

    def native(self) -> LinearLayout:
        return _bases_layout(self.offset, self.block, self.shape)

    def to_linear(self, shape: Shape) -> LinearLayout:
        _check_shape_matches("shared_linear", self.shape, shape)
        return self.native()


def shared_linear(offset: Bases, block: Bases, shape: Shape, alignment: int = 16) -> LinearLayout:
    """Triton's SharedLinearLayout over ``shape`` (its own; see `SharedLinear`)."""
    return SharedLinear(tuple(map(tuple, offset)), tuple(map(tuple, block)), alignment).to_linear(shape)


@dataclass(frozen=True)
class PaddedShared:
    """Triton's PaddedSharedEncoding: ``intervals`` of (interval, padding) pairs, powers of two with
    distinct intervals, and the linear remap's ``offset`` and ``block`` bases over ``shape``. Each
    basis moves along at most one dim by 0 or a power of two, and the remap is a bijection (Triton's
    rules: it reorders whole rows or chunks, it does not swizzle elements)."""

    intervals: tuple[tuple[int, int], ...]
    offset: Bases
    block: Bases
    shape: tuple[int, ...]

    def __post_init__(self):
        object.__setattr__(self, "intervals", tuple((int(i), int(p)) for i, p in self.intervals))
        object.__setattr__(self, "offset", tuple(tuple(v) for v in self.offset))
        object.__setattr__(self, "block", tuple(tuple(v) for v in self.block))
        object.__setattr__(self, "shape", check_pow2("padded_shared shape", tuple(self.shape)))
        if not self.intervals:
            raise LlgenError("a padded_shared layout needs at least one interval:+padding pair.")
        check_pow2("padded_shared intervals", [i for i, _ in self.intervals])
        check_pow2("padded_shared paddings", [p for _, p in self.intervals])
        if len({i for i, _ in self.intervals}) != len(self.intervals):
            raise LlgenError(f"padded_shared intervals {[i for i, _ in self.intervals]} repeat an interval.")
        for name, vecs in (("offset", self.offset), ("block", self.block)):
            for v in vecs:
                if len(v) != len(self.shape) or sum(1 for c in v if c) > 1 or any(c < 0 or c & (c - 1) for c in v):
                    raise LlgenError(
                        f"padded_shared {name} basis {list(v)} must have {len(self.shape)} coordinates, at most one "
                        "of them non-zero, a power of two."
                    )
        lay = self.native()
        if not (lay.is_surjective() and lay.is_injective()):
            raise LlgenError(
                f"the padded_shared bases {[list(v) for v in self.offset]} (block {[list(v) for v in self.block]}) "
                f"must map the offsets one to one onto the shape {list(self.shape)}."
            )

    @classmethod
    def spanning(cls, intervals: Sequence[Sequence[int]], offset: Bases, block: Bases) -> PaddedShared:
        """The ``offset = [..], block = [..]`` form: the shape is the one the bases span."""
        rank = _check_bases("padded_shared", tuple(map(tuple, offset)), tuple(map(tuple, block)))
        return cls(tuple(map(tuple, intervals)), offset, block, _span(tuple(offset), tuple(block), rank))

    @classmethod
    def identity(cls, intervals: Sequence[Sequence[int]], order: Sequence[int], shape: Shape) -> PaddedShared:
        """The ``order = [..], shape = [..]`` form: offsets walk the dims in ``order``, fastest first."""
        shape = check_shape(shape, len(shape))
        if sorted(order) != list(range(len(shape))):
            raise LlgenError(f"padded_shared order {list(order)} is not a permutation of 0..{len(shape) - 1}.")
        lay = identity_nd("offset", shape, order)
        offset = tuple(tuple(lay.basis("offset", i)) for i in range(lay.in_bits("offset")))
        names = [dim_name(d) for d in range(len(shape))]
        offset = tuple(tuple(dict(zip(lay.out_names, v, strict=True))[n] for n in names) for v in offset)
        return cls(tuple(map(tuple, intervals)), offset, (), tuple(shape))

    @property
    def rank(self) -> int:
        return len(self.shape)

    def order(self) -> list[int]:
        """Triton's getOrder: dims in the order the offset bases first move along them, then the
        others from the last to the first."""
        seen = [next(d for d, c in enumerate(v) if c) for v in self.offset if any(v)]
        out = list(dict.fromkeys(seen))
        return out + [d for d in range(self.rank - 1, -1, -1) if d not in out]

    def is_identity(self) -> bool:
        """Whether Triton prints the ``order = [..], shape = [..]`` form: no block bases, offsets in order."""
        return not self.block and self == PaddedShared.identity(self.intervals, self.order(), self.shape)

    def native(self) -> LinearLayout:
        return _bases_layout(self.offset, self.block, self.shape)

    def to_linear(self, shape: Shape) -> LinearLayout:
        """The linear remap: element offset (before padding) -> tensor element."""
        _check_shape_matches("padded_shared", self.shape, shape)
        return self.native()

    def padded_offset(self, offset: int) -> int:
        """Where element offset ``offset`` lies in the buffer (`pad_offset`)."""
        return pad_offset(offset, self.intervals)

    def padded_elements(self) -> int:
        """One CTA's buffer in elements (Triton's getPaddedSize): no padding after the last element."""
        n = 1 << len(self.offset)
        return n + sum((n // i) * p - (p if n % i == 0 else 0) for i, p in self.intervals)

    def padded_bytes(self, dtype_bytes: int) -> int:
        return self.padded_elements() * dtype_bytes


def pad_offset(offset: int, intervals: Sequence[Sequence[int]]) -> int:
    """Where element offset ``offset`` lies in a padded buffer: each (interval, padding) adds its padding once per
    whole interval before it."""
    return offset + sum((offset // i) * p for i, p in intervals)


def padded_shared(intervals: Sequence[Sequence[int]], offset: Bases, block: Bases, shape: Shape) -> LinearLayout:
    """The linear remap of Triton's PaddedSharedLayout over ``shape`` (see `PaddedShared`)."""
    enc = PaddedShared(tuple(map(tuple, intervals)), tuple(map(tuple, offset)), tuple(map(tuple, block)), tuple(shape))
    return enc.to_linear(shape)
