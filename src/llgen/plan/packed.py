"""4-bit types (i4, u4, e2m1), two elements to a byte, through conversions, shared-memory endpoints and gathers.

A thread holds its 4-bit registers packed: element 2i in the low nibble of byte i, element 2i + 1 in the high one.
So a layout's register bit 0 names the two elements a byte holds, and its basis v (one tensor bit) is the byte's
pairing. Two plans:

- **pairs**: both sides pair the same elements (the same v; a shared side's offset bit 0 is v too). Bytes then move
  whole: the plan is the byte plan of the quotient layouts, the 4-bit layouts with v's bit dropped from every basis
  and the register (or offset) bit 0 removed. A quotient is a layout of the packed tensor, so every byte path serves:
  registers, shuffles, shared memory, ldmatrix/stmatrix.
- **nibbles**: the sides pair different elements, so a byte's two nibbles go to different places. Each nibble is
  widened to a byte, the byte plan of the 4-bit layouts themselves moves them, and the destination packs them again.
  Shared-memory endpoints take pairs only: a store of lone nibbles would write half bytes. A gather, which picks
  single elements, takes nibbles always (llgen.plan.gather).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from llgen.core.dtypes import DType, dtype
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout

BYTES = dtype("i8")  # the byte plan's element: two packed 4-bit elements, or one widened


@dataclass(frozen=True)
class Pairing:
    """The tensor bit a byte's two elements differ in: bit ``bit`` of out-dim ``dim`` (its index)."""

    dim: int
    bit: int

    def describe(self, layout: LinearLayout) -> str:
        return f"{layout.out_names[self.dim]} bit {self.bit}"


def pairing(layout: LinearLayout, in_dim: str = "register") -> Pairing | None:
    """The pairing of a 4-bit layout's bytes: its ``in_dim`` bit 0 where that is one tensor bit that no other basis
    touches, so every low nibble holds the element with that bit clear; else None (a broadcast bit 0, a sum of tensor
    bits, or a bit other bases flip pairs no fixed two elements in a fixed order)."""
    if layout.in_bits(in_dim) == 0:
        return None
    nonzero = [(d, c) for d, c in enumerate(layout.basis(in_dim, 0)) if c]
    if len(nonzero) != 1 or nonzero[0][1] & (nonzero[0][1] - 1):
        return None
    p = Pairing(nonzero[0][0], nonzero[0][1].bit_length() - 1)
    for name in layout.in_names:
        for i in range(layout.in_bits(name)):
            if (name, i) != (in_dim, 0) and layout.basis(name, i)[p.dim] >> p.bit & 1:
                return None
    return p


def drop_bit(c, bit: int):
    """``c`` with bit ``bit`` taken out, the bits above it one lower (an int, or a NumPy array of them)."""
    return ((c >> (bit + 1)) << bit) | (c & ((1 << bit) - 1))


def quotient(layout: LinearLayout, p: Pairing, in_dim: str = "register") -> LinearLayout:
    """The byte layout of a 4-bit layout that pairs by ``p``: ``in_dim`` bit 0 removed, tensor bit ``p`` dropped."""
    bases = {}
    for name in layout.in_names:
        vecs = [layout.basis(name, i) for i in range(layout.in_bits(name))]
        if name == in_dim:
            vecs = vecs[1:]
        bases[name] = [[drop_bit(c, p.bit) if d == p.dim else c for d, c in enumerate(v)] for v in vecs]
    sizes = {n: (s // 2 if d == p.dim else s) for d, (n, s) in enumerate(zip(layout.out_names, layout.shape, strict=True))}
    return LinearLayout.from_bases(bases, sizes)


def _needs_pairs(layout: LinearLayout, side: str) -> None:
    if layout.in_bits("register") == 0:
        raise LlgenError(f"the {side} layout holds one element a thread; a 4-bit type needs two (a byte) or more.")


@dataclass(frozen=True)
class PackedPlan:
    """A 4-bit conversion or endpoint: the byte plan ``inner`` and how bytes relate to the 4-bit elements."""

    kind: ClassVar[str] = "packed"
    src: LinearLayout  # the 4-bit layouts (a shared side: its offset map)
    dst: LinearLayout
    dtype: DType
    form: str  # "pairs" (bytes move whole) or "nibbles" (nibbles widened to bytes, moved, packed)
    pair: Pairing | None  # pairs: the tensor bit each byte spans
    inner: object  # the byte plan: llgen.plan.Plan, llgen.plan.endpoint.EndpointPlan or llgen.plan.gather.GatherPlan

    @property
    def target(self):
        return self.inner.target

    @property
    def warps(self) -> int:
        return self.inner.warps

    @property
    def path(self) -> str:
        return self.inner.path

    @property
    def n_in(self) -> int:
        return self.src.in_size("register") if "register" in self.src.in_names else 0

    @property
    def n_out(self) -> int:
        return self.dst.in_size("register") if "register" in self.dst.in_names else 0

    @property
    def endpoint(self) -> bool:
        return self.inner.kind == "endpoint"

    def bytes_line(self) -> str:
        """One sentence: how this plan's bytes hold the 4-bit elements."""
        if self.form == "pairs":
            return (
                f"{self.dtype.name} is packed two to a byte; both sides pair elements along {self.pair.describe(self.src)}, "
                f"so whole bytes move: the 8-bit plan of the tensor with that bit dropped ({'x'.join(map(str, self.inner_shape))})."
            )
        return (
            f"{self.dtype.name} is packed two to a byte, but the sides pair different elements, so nibbles move: each "
            "is widened to a byte, moved by the 8-bit plan of the same layouts, and packed again."
        )

    @property
    def gather(self) -> bool:
        return self.inner.kind == "gather"

    @property
    def inner_shape(self) -> tuple[int, ...]:
        if self.gather:
            return tuple(self.inner.layout.shape)
        return tuple((self.inner.dist if self.endpoint else self.inner.src).shape)

    def explain(self) -> str:
        return f"{self.bytes_line()}\n{self.inner.explain()}"

    def to_json(self) -> dict:
        return {
            "dtype": self.dtype.name,
            "packing": {
                "form": self.form,
                "pairs_along": None
                if self.pair is None
                else {"dim": self.src.out_names[self.pair.dim], "axis": self.pair.dim, "bit": self.pair.bit},
                "shape": list(self.src.shape),
                "byte_shape": list(self.inner_shape),
            },
            "bytes": self.inner.to_json(),
        }


def plan_packed(a: LinearLayout, b: LinearLayout, dt: DType, plan_bytes) -> PackedPlan:
    """The 4-bit conversion a -> b, with ``plan_bytes(a, b)`` planning the byte conversion of whichever form."""
    for lay, side in ((a, "source"), (b, "destination")):
        _needs_pairs(lay, side)
    pa, pb = pairing(a), pairing(b)
    if pa is not None and pa == pb:
        return PackedPlan(a, b, dt, "pairs", pa, plan_bytes(quotient(a, pa), quotient(b, pa)))
    return PackedPlan(a, b, dt, "nibbles", None, plan_bytes(a, b))


def lift(layout: LinearLayout, p: Pairing, in_dim: str = "offset") -> LinearLayout:
    """The 4-bit layout whose quotient by ``p`` is ``layout``: ``in_dim`` bit 0 the pair's tensor bit, every other
    basis with that bit inserted (clear)."""
    bases = {}
    for name in layout.in_names:
        vecs = [
            [_insert(c, p.bit) if d == p.dim else c for d, c in enumerate(layout.basis(name, i))]
            for i in range(layout.in_bits(name))
        ]
        if name == in_dim:
            vecs = [[(1 << p.bit) if d == p.dim else 0 for d in range(len(layout.outs))], *vecs]
        bases[name] = vecs
    sizes = {n: (s * 2 if d == p.dim else s) for d, (n, s) in enumerate(zip(layout.out_names, layout.shape, strict=True))}
    return LinearLayout.from_bases(bases, sizes)


def _insert(c: int, bit: int) -> int:
    return ((c >> bit) << (bit + 1)) | (c & ((1 << bit) - 1))


def plan_packed_endpoint(direction: str, dist: LinearLayout, shared, dt: DType, plan_bytes) -> PackedPlan:
    """A 4-bit store (registers in ``dist`` -> ``shared``) or load, with ``plan_bytes(dist', shared')`` planning the
    byte endpoint. ``shared`` is an offset map over the 4-bit tensor in D's out-dim order (a LinearLayout, as
    llgen.plan.endpoint.shared_map returns it), or a shared encoding, which
    describes the packed bytes as Triton holds them: an i8 tensor, the registers' pairing dim halved."""
    _needs_pairs(dist, "register")
    pd = pairing(dist)
    if pd is None:
        raise LlgenError(
            "a 4-bit shared-memory endpoint moves whole bytes, so the registers' bit 0 must pair two elements along one "
            "tensor bit that no other register, lane or warp bit flips."
        )
    if isinstance(shared, LinearLayout):
        s = shared
        ps = pairing(s, "offset")
        if ps != pd:
            shared_where = "no single tensor bit" if ps is None else ps.describe(s)
            raise LlgenError(
                f"a 4-bit shared-memory endpoint moves whole bytes, so the registers' bit 0 ({pd.describe(dist)}) and the "
                f"shared layout's offset bit 0 ({shared_where}) must pair the same two elements."
            )
        shared = quotient(s, pd, "offset")
    elif pd.bit != 0:
        raise LlgenError(
            f"a shared encoding lays out a 4-bit tensor's bytes as Triton packs them, two neighbours along one dim, but the "
            f"registers pair along {pd.describe(dist)}."
        )
    inner = plan_bytes(quotient(dist, pd), shared)
    s4 = lift(inner.shared, pd)
    src, dst = (dist, s4) if direction == "store" else (s4, dist)
    return PackedPlan(src, dst, dt, "pairs", pd, inner)


def byte_plan(plan):
    """The plan whose instructions move the data: a 4-bit plan's byte plan (``inner``), else the plan itself."""
    return plan.inner if plan.kind == "packed" else plan
