"""Shared-memory layouts for a conversion: the optimal swizzle (docs/design.md §6), the
unswizzled and classic layouts it is compared with, and the exact wavefront model.

A swizzle here is a list ``S`` of logical vectors, one per offset bit (lowest first):
the element at offset o is the logical index XOR(S[i] for set bits i of o). Offsets are in
elements; offset bits are [Vec | Bank | Seg] from low to high.
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core import f2


@dataclass(frozen=True)
class Swizzle:
    """A memory layout and how it was built. ``lower_bound_extra`` is Lemma 9.5's minimum
    number of doubling factors of wavefronts (0 = conflict-free is possible)."""

    name: str
    columns: tuple[int, ...]  # offset bit -> logical vector
    vec: int = 0
    bank: int = 0
    seg: int = 0
    sets: tuple[tuple[str, tuple[int, ...]], ...] = ()  # I, E, F, H, C for the explanation
    lower_bound_extra: int = 0

    def inverse_cols(self) -> list[int]:
        """Per logical bit, its offset (the inverse map, as columns)."""
        n = len(self.columns)
        return f2.solve_each(list(self.columns), [1 << i for i in range(n)])


def _in_basis_mod(vectors: list[int], modulo: list[int]) -> list[int]:
    """The vectors reduced modulo span(modulo), dropping those that vanish or repeat."""
    base = f2.reduce(modulo)
    out: list[int] = []
    span: list[int] = []
    for v in vectors:
        r = f2.residue(v, base)
        if r and not f2.contains(span, r):
            out.append(r)
            span = f2.reduce(span + [r])
    return out


def optimal_swizzle(
    vec: list[int], a_bank: list[int], b_bank: list[int], nbits: int, bank_bits: int, word_fill: int = 0
) -> Swizzle:
    """docs/design.md §6, steps 4-6: Vec given, Seg from H ∪ C (padded fairly if short), Bank by unit completion.

    ``word_fill`` > 0 for accesses narrower than a 4-byte word: the Lemma 9.4 count is only a
    lower bound there (two lanes on different bytes of one word share it, but a lane whose
    offset differs from another's by a byte bit plus a Seg vector conflicts). So the access is
    widened to 32 bits first: ``word_fill`` more vectors W go right above Vec, inside the word,
    chosen greedily to keep max(dim span(Vec ∪ W ∪ A_bank), dim span(Vec ∪ W ∪ B_bank)) small
    (common lane vectors first, then one side's), and the construction runs on Vec ∪ W with
    word-sized banks. Then the model is exact again (its count is in words)."""
    v = len(vec)
    b = min(bank_bits, nbits - v)
    seg_bits = nbits - v - b
    a_red0 = _in_basis_mod(a_bank, vec)
    b_red0 = _in_basis_mod(b_bank, vec)
    # Lemma 9.5 on the byte-level problem: the bound reported next to the achieved count
    bound = max(0, seg_bits - (nbits - max(v + len(a_red0), v + len(b_red0))))
    fill: list[int] = []
    for _ in range(min(word_fill, b)):
        inter0 = f2.intersection(a_red0, b_red0)
        cands = inter0 + a_red0 + b_red0 + f2.complement(vec + fill + a_red0 + b_red0, nbits) + [1 << i for i in range(nbits)]
        held = f2.reduce(vec + fill)
        # dim span(vec + fill + [x] + bank): that without x, plus one where x is outside it
        spans = [(len(s), s) for s in (f2.reduce(vec + fill + a_bank), f2.reduce(vec + fill + b_bank))]
        best = None
        for x in cands:
            if f2.contains(held, x):
                continue
            du, dv = (n + (f2.residue(x, s) != 0) for n, s in spans)
            key = (max(du, dv), du + dv)
            if best is None or key < best[0]:
                best = (key, x)
        if best is None:
            break
        fill.append(best[1])
    if fill:
        sw = optimal_swizzle(vec + fill, a_bank, b_bank, nbits, bank_bits - len(fill))
        return Swizzle("optimal", sw.columns, v, sw.bank + len(fill), sw.seg, sw.sets + (("W", tuple(fill)),), bound)
    a_red, b_red = a_red0, b_red0
    inter = f2.intersection(a_red, b_red)
    e = _in_basis_mod(a_red, inter)
    f = _in_basis_mod(b_red, inter)
    h = [x ^ y for x, y in zip(e, f, strict=False)]
    c = f2.complement(vec + a_red + b_red, nbits)
    seg: list[int] = []
    held = f2.reduce(vec)  # span(vec + seg)
    for x in h + c:
        if len(seg) < seg_bits and not f2.contains(held, x):
            seg.append(x)
            held = f2.reduce(held + [x])
    if len(seg) < seg_bits:
        # unavoidable conflicts: alternate between store-side and load-side vectors
        a_left = e[len(h) :] + e[: len(h)] + inter
        b_left = f[len(h) :] + f[: len(h)]
        order = [x for pair in _zip_longest(a_left, b_left) for x in pair if x is not None]
        for x in order:
            if len(seg) < seg_bits and not f2.contains(held, x):
                seg.append(x)
                held = f2.reduce(held + [x])
    bank = [u for u in f2.complement(vec + seg, nbits)][:b]
    cols = tuple(vec + bank + seg)
    sets = (("I", tuple(inter)), ("E", tuple(e)), ("F", tuple(f)), ("H", tuple(h)), ("C", tuple(c)))
    return Swizzle("optimal", cols, v, len(bank), len(seg), sets, bound)


def _zip_longest(a: list[int], b: list[int]) -> list[tuple[int | None, int | None]]:
    n = max(len(a), len(b))
    return [(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(n)]


def unswizzled(nbits: int) -> Swizzle:
    """Row-major storage: offset = flat logical index."""
    return Swizzle("unswizzled", tuple(1 << i for i in range(nbits)))


def classic(rows_bits: int, col_bits: int, elem_bytes: int, vec: int) -> Swizzle:
    """Triton's legacy swizzle chosen the textbook way for a row-major [rows, cols] tile:
    vec elements stay together, per_phase = max(1, 128 / row bytes) rows share a phase,
    max_phase = 128 / (vec * bytes) / per_phase phases; row r XORs its column by
    vec * ((r / per_phase) mod max_phase). (Same rule as swizzled_shared's bases.)"""
    cols = 1 << col_bits
    per_phase = max(1, 128 // (cols * elem_bytes))
    max_phase = max(1, 128 // (vec * elem_bytes) // per_phase)
    columns = [1 << i for i in range(col_bits)]
    for i in range(rows_bits):
        r = 1 << i
        swz = (vec * ((r // per_phase) % max_phase)) % cols
        columns.append((r << col_bits) | swz)
    return Swizzle(f"classic(vec={vec},per_phase={per_phase},max_phase={max_phase})", tuple(columns))


@dataclass(frozen=True)
class Access:
    """How one side touches shared memory in one instruction, in element offsets:
    ``lanes``: the offsets of the lane bits that vary within one phase; ``vec_elems``: the
    contiguous elements each thread (or matrix row) moves; ``phases``: phases per instruction."""

    lanes: tuple[int, ...]
    vec_elems: int
    phases: int


def wavefronts_per_phase(acc: Access, elem_bytes: int, banks: int = 32, bank_bytes: int = 4) -> int:
    """Exact for linear address maps: the words a phase touches form an affine subspace W;
    each bank in the image gets |W| / |bank(W)| distinct words, one wavefront each."""
    shift = (bank_bytes // elem_bytes).bit_length() - 1 if elem_bytes < bank_bytes else 0
    grow = (elem_bytes // bank_bytes).bit_length() - 1 if elem_bytes > bank_bytes else 0
    words = [(o << grow) >> shift for o in acc.lanes]
    vec_words = max(1, acc.vec_elems * elem_bytes // bank_bytes)
    words += [1 << i for i in range(vec_words.bit_length() - 1)]
    dim_w = f2.rank(words)
    dim_b = f2.rank(w & (banks - 1) for w in words)
    return 1 << (dim_w - dim_b)
