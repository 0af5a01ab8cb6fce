"""`LinearLayout`: a linear map over F2 from labelled hardware dims to labelled tensor dims.

Conventions, stated once for the whole project:

* In-dims (``register``, ``lane``, ``warp``, ``block`` for distributed layouts; ``offset`` for
  memory layouts) each have ``2**k`` values and ``k`` basis vectors. ``bases[dim][i]`` is the
  image of the i-th unit vector of that dim, written as one coordinate per out-dim, in out-dim
  order: exactly Triton's form. L(x) is the XOR of the bases of the set bits of x.
* Out-dims (``dim0``, ``dim1``, ...) have power-of-two sizes; ``dim0`` is the outermost index.
* Flattening (for matrix algebra): the out coordinates are concatenated row-major, the LAST
  out-dim in the lowest bits; the in-dims are concatenated in their order, the FIRST in-dim
  (``register``) in the lowest bits. Internally a layout stores one flat int per input bit.
* Products and reshapes keep these orders: ``A * B`` puts A's bits below B's in every dim the
  two share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from llgen.core import f2
from llgen.core.errors import LlgenError

Dims = tuple[tuple[str, int], ...]  # (name, log2 size) per dim


def log2_exact(n: int, what: str) -> int:
    """log2 of a positive power of two; otherwise a one-sentence LlgenError naming it."""
    if not isinstance(n, int) or n < 1 or n & (n - 1):
        raise LlgenError(f"{what} must be a power of two, got {n}.")
    return n.bit_length() - 1


@dataclass(frozen=True)
class LinearLayout:
    """An immutable linear layout. Build it with ``LinearLayout.from_bases`` or ``from_dict``.

    ``ins``/``outs`` are (name, log2 size) pairs; ``cols[j]`` is the flat image of flat
    input bit j (see the module docstring for both flattenings).
    """

    ins: Dims
    outs: Dims
    cols: tuple[int, ...]

    # ------------------------------------------------------------------ construction
    @staticmethod
    def from_bases(
        bases: Mapping[str, Sequence[Sequence[int]]], out_dims: Mapping[str, int] | Sequence[tuple[str, int]]
    ) -> LinearLayout:
        """Triton form: ``bases[in_dim] = [[c_out0, c_out1, ...], ...]``; ``out_dims`` name -> size."""
        outs_items = list(out_dims.items()) if isinstance(out_dims, Mapping) else list(out_dims)
        outs = tuple((name, log2_exact(size, f"the size of {name}")) for name, size in outs_items)
        ins = []
        cols = []
        for name, vecs in bases.items():
            ins.append((name, len(vecs)))
            for v in vecs:
                if len(v) != len(outs):
                    raise LlgenError(
                        f"basis {list(v)} of {name} has {len(v)} coordinates but the layout has {len(outs)} out-dims."
                    )
                cols.append(_flatten(v, outs))
        return LinearLayout(tuple(ins), outs, tuple(cols))

    def to_dict(self) -> dict:
        """Triton's bases form: ``{"bases": {in: [[...], ...]}, "out_dims": {out: size}}``."""
        return {
            "bases": {name: [list(v) for v in vecs] for name, vecs in self._bases.items()},
            "out_dims": {name: 1 << k for name, k in self.outs},
        }

    @staticmethod
    def from_dict(d: Mapping) -> LinearLayout:
        """Inverse of ``to_dict``; a malformed dict raises LlgenError."""
        if not isinstance(d, Mapping) or not isinstance(d.get("bases"), Mapping) or not isinstance(d.get("out_dims"), Mapping):
            raise LlgenError("a JSON layout must be an object with 'bases' and 'out_dims' objects.")
        for name, vecs in d["bases"].items():
            if not isinstance(vecs, list) or not all(
                isinstance(v, list) and all(isinstance(c, int) and c >= 0 for c in v) for v in vecs
            ):
                raise LlgenError(f"bases of '{name}' must be a list of lists of non-negative integers.")
        lay = LinearLayout.from_bases(d["bases"], d["out_dims"])
        for name, vecs in d["bases"].items():
            for v in vecs:
                for (o, k), c in zip(lay.outs, v, strict=True):
                    if c >= 1 << k:
                        raise LlgenError(f"basis {v} of '{name}' points past the size {1 << k} of {o}.")
        return lay

    # ------------------------------------------------------------------ dims
    @cached_property
    def in_names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.ins)

    @cached_property
    def out_names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.outs)

    @cached_property
    def _in_dims(self) -> dict[str, int]:
        return dict(self.ins)

    @cached_property
    def _out_dims(self) -> dict[str, int]:
        return dict(self.outs)

    def in_bits(self, name: str) -> int:
        """log2 of the size of in-dim ``name`` (0 for a dim the layout lacks)."""
        return self._in_dims.get(name, 0)

    def out_bits(self, name: str) -> int:
        return self._out_dims.get(name, 0)

    def in_size(self, name: str) -> int:
        return 1 << self.in_bits(name)

    def out_size(self, name: str) -> int:
        return 1 << self.out_bits(name)

    @property
    def total_in_bits(self) -> int:
        return len(self.cols)

    @property
    def total_out_bits(self) -> int:
        return sum(k for _, k in self.outs)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(1 << k for _, k in self.outs)

    def in_offset(self, name: str) -> int:
        """Flat position of in-dim ``name``'s lowest bit."""
        pos = 0
        for n, k in self.ins:
            if n == name:
                return pos
            pos += k
        raise LlgenError(f"the layout has no in-dim '{name}'.")

    def out_offset(self, name: str) -> int:
        """Flat position of out-dim ``name``'s lowest bit (the last out-dim sits at 0)."""
        pos = 0
        for n, k in reversed(self.outs):
            if n == name:
                return pos
            pos += k
        raise LlgenError(f"the layout has no out-dim '{name}'.")

    @cached_property
    def _cols_by_dim(self) -> dict[str, tuple[int, ...]]:
        """Each in-dim's slice of ``cols``, sliced once: the planner's loops ask for them over and over."""
        return {name: self.cols[self.in_offset(name) : self.in_offset(name) + k] for name, k in self.ins}

    def flat_cols(self, name: str) -> tuple[int, ...]:
        """Flat images of in-dim ``name``'s basis vectors."""
        return self._cols_by_dim.get(name, ())

    @cached_property
    def _bases(self) -> dict[str, tuple[tuple[int, ...], ...]]:
        """Each in-dim's bases in Triton form, unflattened once: JSON and the planner's checks read them often."""
        return {name: tuple(unflatten(c, self.outs) for c in self.flat_cols(name)) for name, _ in self.ins}

    def basis(self, name: str, i: int) -> tuple[int, ...]:
        """``bases[name][i]`` in Triton form (one coordinate per out-dim)."""
        return self._bases.get(name, ())[i]

    # ------------------------------------------------------------------ evaluation
    def apply_flat(self, x: int) -> int:
        """L(x) on flat ints."""
        return f2.combine(x, self.cols)

    def apply(self, inputs: Mapping[str, int]) -> dict[str, int]:
        """L at the given in-dim values (missing dims are 0); returns out-dim coordinates."""
        x = 0
        for name, v in inputs.items():
            k = self.in_bits(name)
            if name not in self.in_names or not 0 <= v < 1 << k:
                raise LlgenError(f"{name}={v} is outside the layout's in-dims {dict(self.ins)}.")
            x |= v << self.in_offset(name)
        return dict(zip(self.out_names, unflatten(self.apply_flat(x), self.outs), strict=True))

    __call__ = apply

    def flatten_out(self, coords: Mapping[str, int] | Sequence[int]) -> int:
        """Row-major flat index of a tensor coordinate."""
        vals = list(coords.values()) if isinstance(coords, Mapping) else list(coords)
        return _flatten(vals, self.outs)

    # ------------------------------------------------------------------ algebra
    def compose(self, inner: LinearLayout) -> LinearLayout:
        """self ∘ inner: apply ``inner`` first. inner's out-dims must be self's in-dims, in order,
        each no larger than self's."""
        if inner.out_names != self.in_names:
            raise LlgenError(f"cannot compose: inner out-dims {inner.out_names} differ from outer in-dims {self.in_names}.")
        for (n, k), (_, k2) in zip(inner.outs, self.ins, strict=True):
            if k > k2:
                raise LlgenError(f"cannot compose: inner {n} has size {1 << k}, larger than the outer's {1 << k2}.")
        # inner's flat out index is row-major; re-express it in self's flat in index
        m = _out_to_in_map(inner.outs, self.ins)
        cols = tuple(self.apply_flat(_permute_bits(c, m)) for c in inner.cols)
        return LinearLayout(inner.ins, self.outs, cols)

    def __mul__(self, other: LinearLayout) -> LinearLayout:
        """Block-diagonal product: dims of the same name are concatenated, self's bits low.
        The result's dims list self's dims first, then other's new ones."""
        ins = _merge_dims(self.ins, other.ins)
        outs = _merge_dims(self.outs, other.outs)
        factors = ((self, _out_bits_into(self.outs, outs, lambda _: 0)), (other, _out_bits_into(other.outs, outs, self.out_bits)))
        cols = tuple(_permute_bits(c, m) for n, _ in ins for lay, m in factors for c in lay.flat_cols(n))
        return LinearLayout(ins, outs, cols)

    def divide_left(self, left: LinearLayout) -> LinearLayout | None:
        """M2 with self == left * M2, or None. Used to test whether an instruction tile
        ``left`` covers the low bits of self (docs/design.md §8)."""
        for n, k in left.ins:
            if k > self.in_bits(n):
                return None
        for n, k in left.outs:
            if k > self.out_bits(n):
                return None
        res: dict[str, list[tuple[int, ...]]] = {}
        for n, k in self.ins:
            kl = left.in_bits(n)
            vecs = []
            for i in range(k):
                v = dict(zip(self.out_names, self.basis(n, i), strict=True))
                low = {o: v[o] & ((1 << left.out_bits(o)) - 1) for o in self.out_names}
                if i < kl:
                    want = dict(zip(left.out_names, left.basis(n, i), strict=True))
                    if any(v[o] != want.get(o, 0) for o in self.out_names):
                        return None
                    continue
                if any(low.values()):
                    return None
                vecs.append(tuple(v[o] >> left.out_bits(o) for o in self.out_names))
            res[n] = vecs
        outs = [(o, 1 << (k - left.out_bits(o))) for o, k in self.outs]
        return LinearLayout.from_bases(res, outs)

    def divide_right(self, right: LinearLayout) -> LinearLayout | None:
        """M1 with self == M1 * right, or None."""
        for n, k in right.ins:
            if k > self.in_bits(n):
                return None
        for n, k in right.outs:
            if k > self.out_bits(n):
                return None
        low_bits = {o: k - right.out_bits(o) for o, k in self.outs}
        res: dict[str, list[tuple[int, ...]]] = {}
        for n, k in self.ins:
            kr = right.in_bits(n)
            vecs = []
            for i in range(k):
                v = dict(zip(self.out_names, self.basis(n, i), strict=True))
                if i >= k - kr:
                    want = dict(zip(right.out_names, right.basis(n, i - (k - kr)), strict=True))
                    if any(v[o] != want.get(o, 0) << low_bits[o] for o in self.out_names):
                        return None
                    continue
                if any(v[o] >> low_bits[o] for o in self.out_names):
                    return None
                vecs.append(tuple(v[o] for o in self.out_names))
            res[n] = vecs
        return LinearLayout.from_bases(res, [(o, 1 << low_bits[o]) for o, _ in self.outs])

    def right_inverse(self) -> LinearLayout:
        """X with self ∘ X = id on the out-dims, for a surjective layout. Free variables are 0
        (the minimum-norm solution), so a broadcast element maps to its lowest-index replica."""
        if not self.is_surjective():
            raise LlgenError("the layout is not surjective, so it has no right inverse.")
        m = _in_to_out_map(self.ins)
        sols = f2.solve_each(list(self.cols), [1 << (self.out_offset(n) + i) for n, k in self.outs for i in range(k)])
        cols = tuple(_permute_bits(x, m) for x in sols)
        return LinearLayout(self.outs, self.ins, cols)

    def invert(self) -> LinearLayout:
        """The inverse of a bijective layout."""
        if not self.is_injective() or not self.is_surjective():
            raise LlgenError("the layout is not invertible (it is not a bijection).")
        return self.right_inverse()

    def invert_and_compose(self, other: LinearLayout) -> LinearLayout:
        """other⁻¹ ∘ self: self's in-dims -> other's in-dims, for layouts over the same tensor.

        Where other replicates, the inverse is not unique: an input bit whose basis vector is
        the same in both layouts (same in-dim, same index) maps to itself; every other bit takes
        the minimum-norm preimage. So a conversion never looks like it moves data it need not.
        """
        if self.outs != other.outs:
            raise LlgenError(f"layouts cover different tensors: {dict(self.outs)} vs {dict(other.outs)}.")
        cols = []
        for n, k in self.ins:
            mine, theirs = self.flat_cols(n), other.flat_cols(n)
            for i in range(k):
                c = mine[i]
                if i < len(theirs) and theirs[i] == c:
                    x = 1 << (other.in_offset(n) + i)
                else:
                    x = f2.solve(list(other.cols), c)
                    if x is None:
                        raise LlgenError(
                            f"element {unflatten(c, self.outs)} of the source is not held by the destination layout."
                        )
                cols.append(x)
        # re-express x (other's flat in index) as flat out of the result, whose outs are other's ins
        m = _in_to_out_map(other.ins)
        return LinearLayout(self.ins, other.ins, tuple(_permute_bits(x, m) for x in cols))

    # ------------------------------------------------------------------ reshaping
    def flatten_ins(self, name: str = "flat") -> LinearLayout:
        return LinearLayout(((name, self.total_in_bits),), self.outs, self.cols)

    def flatten_outs(self, name: str = "flat") -> LinearLayout:
        return LinearLayout(self.ins, ((name, self.total_out_bits),), self.cols)

    def reshape_ins(self, dims: Sequence[tuple[str, int]]) -> LinearLayout:
        """Re-split the flat input index (first in-dim lowest) into ``dims`` (name, size)."""
        ins = tuple((n, log2_exact(s, f"the size of {n}")) for n, s in dims)
        if sum(k for _, k in ins) != self.total_in_bits:
            raise LlgenError(f"cannot reshape in-dims of {1 << self.total_in_bits} values into {dict(dims)}.")
        return LinearLayout(ins, self.outs, self.cols)

    def reshape_outs(self, dims: Sequence[tuple[str, int]]) -> LinearLayout:
        """Re-split the flat row-major output index into ``dims`` (name, size), like numpy's reshape."""
        outs = tuple((n, log2_exact(s, f"the size of {n}")) for n, s in dims)
        if sum(k for _, k in outs) != self.total_out_bits:
            raise LlgenError(f"cannot reshape a tensor of {1 << self.total_out_bits} elements into {dict(dims)}.")
        return LinearLayout(self.ins, outs, self.cols)

    def transpose_ins(self, order: Sequence[str]) -> LinearLayout:
        """The same map with in-dims listed in ``order``."""
        if sorted(order) != sorted(self.in_names):
            raise LlgenError(f"transpose order {list(order)} is not a permutation of {list(self.in_names)}.")
        cols = tuple(c for n in order for c in self.flat_cols(n))
        return LinearLayout(tuple((n, self.in_bits(n)) for n in order), self.outs, cols)

    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """The same map with out-dims listed in ``order`` (this changes the flattening)."""
        if sorted(order) != sorted(self.out_names):
            raise LlgenError(f"transpose order {list(order)} is not a permutation of {list(self.out_names)}.")
        outs = tuple((n, self.out_bits(n)) for n in order)
        return LinearLayout(self.ins, outs, tuple(_reflatten(c, self.outs, outs) for c in self.cols))

    def sublayout(self, in_names: Sequence[str], out_names: Sequence[str]) -> LinearLayout:
        """Restrict to the given in-dims and project onto the given out-dims (dims keep self's order)."""
        ins = tuple(d for d in self.ins if d[0] in in_names)
        outs = tuple(d for d in self.outs if d[0] in out_names)
        cols = tuple(_reflatten(c, self.outs, outs) for n, _ in ins for c in self.flat_cols(n))
        return LinearLayout(ins, outs, cols)

    def remove_out_dim(self, name: str) -> LinearLayout:
        """Drop out-dim ``name`` (a Triton slice): bases keep their other coordinates."""
        return self.sublayout(self.in_names, [n for n in self.out_names if n != name])

    def resize_in(self, name: str, size: int) -> LinearLayout:
        """Set in-dim ``name`` to ``size`` values: new high bits get zero bases (broadcast),
        or the top bits are dropped. A missing dim is appended."""
        k = log2_exact(size, f"the size of {name}")
        bases = {n: [self.basis(n, i) for i in range(b)] for n, b in self.ins}
        vecs = bases.setdefault(name, [])
        zero = tuple(0 for _ in self.outs)
        bases[name] = (vecs + [zero] * k)[:k]
        return LinearLayout.from_bases(bases, [(n, 1 << b) for n, b in self.outs])

    def with_out_dims(self, outs: Mapping[str, int]) -> LinearLayout:
        """The same bases over a larger tensor: each out-dim grows to ``outs[name]``."""
        new = tuple((n, log2_exact(outs.get(n, 1 << k), f"the size of {n}")) for n, k in self.outs)
        if any(k2 < k for (_, k), (_, k2) in zip(self.outs, new, strict=True)):
            raise LlgenError("with_out_dims only grows out-dims.")
        return LinearLayout(self.ins, new, tuple(_reflatten(c, self.outs, new) for c in self.cols))

    # ------------------------------------------------------------------ properties
    def free_variable_masks(self) -> dict[str, int]:
        """Per in-dim, the mask of bits whose basis is a combination of earlier bits (in flat
        input order): flipping such a bit reaches an element some lower index already holds.
        For a distributed layout these are exactly the zero (broadcast) bases."""
        basis: list[int] = []
        out = {}
        for n, _ in self.ins:
            mask = 0
            for i, c in enumerate(self.flat_cols(n)):
                if f2.contains(basis, c):
                    mask |= 1 << i
                else:
                    basis = f2.reduce(basis + [c])
            out[n] = mask
        return out

    def num_consecutive(self) -> int:
        """Contiguity (docs/design.md §1): 2**k for the largest k with register basis i equal to the
        flat out bit i for all i < k, so each thread holds 2**k consecutive row-major elements."""
        k = 0
        regs = self.flat_cols("register")
        while k < len(regs) and regs[k] == 1 << k:
            k += 1
        return 1 << k

    def is_surjective(self) -> bool:
        return f2.rank(self.cols) == self.total_out_bits

    def is_injective(self) -> bool:
        return f2.rank(self.cols) == self.total_in_bits

    def is_distributed(self) -> bool:
        """Def. 4.10: surjective, every basis zero or a single bit, no two non-zero ones equal."""
        nz = [c for c in self.cols if c]
        return self.is_surjective() and all(c & (c - 1) == 0 for c in nz) and len(set(nz)) == len(nz)

    def is_memory_layout(self) -> bool:
        """Def. 4.14: invertible, every basis with one or two set bits."""
        return self.is_injective() and self.is_surjective() and all(1 <= c.bit_count() <= 2 for c in self.cols)

    def __repr__(self) -> str:
        bases = {n: [list(self.basis(n, i)) for i in range(k)] for n, k in self.ins}
        return f"LinearLayout({bases}, out_dims={ {n: 1 << k for n, k in self.outs} })"


# ---------------------------------------------------------------------- flat helpers
def _flatten(coords: Sequence[int], outs: Dims) -> int:
    flat = 0
    for c, (_, k) in zip(coords, outs, strict=True):
        flat = (flat << k) | c
    return flat


def unflatten(flat: int, outs: Dims) -> tuple[int, ...]:
    """The coordinates (one per out-dim) of a flat row-major index: the inverse of the flattening."""
    out = []
    for _, k in reversed(outs):
        out.append(flat & ((1 << k) - 1))
        flat >>= k
    return tuple(reversed(out))


def _reflatten(flat: int, outs: Dims, new: Dims) -> int:
    """Re-express a flat out vector under another out-dim list (same names, maybe other
    order or sizes); coordinates of dropped dims are discarded."""
    vals = dict(zip((n for n, _ in outs), unflatten(flat, outs), strict=True))
    return _flatten([vals.get(n, 0) for n, _ in new], new)


def _merge_dims(a: Dims, b: Dims) -> Dims:
    sizes = dict(a)
    order = [n for n, _ in a]
    for n, k in b:
        if n in sizes:
            sizes[n] += k
        else:
            sizes[n] = k
            order.append(n)
    return tuple((n, sizes[n]) for n in order)


def _out_bits_into(outs: Dims, new: Dims, shift) -> list[int]:
    """For each flat out bit of ``outs``, its flat position in ``new`` (the same dims or more, each as large or
    larger), dim n's bits moved up by ``shift(n)`` inside it."""
    low, pos = {}, 0
    for n, k in reversed(new):
        low[n] = pos
        pos += k
    return [low[n] + shift(n) + i for n, k in reversed(outs) for i in range(k)]


def _permute_bits(x: int, m: list[int]) -> int:
    y = 0
    for i, j in enumerate(m):
        if x >> i & 1:
            y |= 1 << j
    return y


def _out_to_in_map(outs: Dims, ins: Dims) -> list[int]:
    """For each flat out bit of ``outs`` (row-major), its flat position in ``ins`` (first dim low)."""
    in_pos = {}
    pos = 0
    for n, k in ins:
        in_pos[n] = pos
        pos += k
    m = []
    for n, k in reversed(outs):
        m += [in_pos[n] + i for i in range(k)]
    return m


def _in_to_out_map(ins: Dims) -> list[int]:
    """For each flat in bit of ``ins`` (first dim low), its flat position when the same dims
    are used as out-dims (row-major, last dim low)."""
    out_pos = {}
    pos = 0
    for n, k in reversed(ins):
        out_pos[n] = pos
        pos += k
    return [out_pos[n] + i for n, k in ins for i in range(k)]
