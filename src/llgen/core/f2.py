"""Linear algebra over F2 on Python ints.

Convention (stated once): a vector of F2^n is an ``int`` whose bit i is coordinate i.
Addition is XOR. A subspace is kept as a basis in reduced row-echelon form: a list of
vectors, each with a distinct pivot (its highest set bit), no vector holding another's
pivot, sorted by pivot ascending.
"""

from __future__ import annotations

from collections.abc import Iterable


def pivot(v: int) -> int:
    """Index of the highest set bit of v (v != 0)."""
    return v.bit_length() - 1


def _echelon(vectors: Iterable[int]) -> dict[int, int]:
    """pivot -> row: an echelon basis of span(vectors) (distinct pivots; bits below a pivot not yet cleared)."""
    rows: dict[int, int] = {}
    for v in vectors:
        while v:
            p = v.bit_length() - 1
            r = rows.get(p)
            if r is None:
                rows[p] = v
                break
            v ^= r
    return rows


def reduce(vectors: Iterable[int]) -> list[int]:
    """Reduced row-echelon basis of span(vectors), sorted by pivot ascending."""
    rows = _echelon(vectors)
    pivots = sorted(rows)
    for i, p in enumerate(pivots):  # clear pivot p from the rows above it (it is no bit of the rows below)
        r = rows[p]
        for q in pivots[i + 1 :]:
            if rows[q] >> p & 1:
                rows[q] ^= r
    return [rows[p] for p in pivots]


def residue(v: int, basis: list[int]) -> int:
    """v reduced modulo span(basis) (basis in echelon form): zero iff v is in the span."""
    for b in reversed(basis):
        if v >> (b.bit_length() - 1) & 1:
            v ^= b
    return v


def rank(vectors: Iterable[int]) -> int:
    return len(_echelon(vectors))


def contains(basis: list[int], v: int) -> bool:
    """Is v in span(basis)?  basis must be reduced."""
    return residue(v, basis) == 0


def combine(x: int, columns) -> int:
    """XOR of ``columns[i]`` over the set bits i of x: a matrix (given by its columns) applied to x."""
    y = 0
    i = 0
    while x:
        if x & 1:
            y ^= columns[i]
        x >>= 1
        i += 1
    return y


def units(positions) -> list[int]:
    """The unit vectors of ``positions``: combine(x, units(p)) scatters x's bits to those positions."""
    return [1 << p for p in positions]


def span(vectors: Iterable[int]) -> list[int]:
    """Every element of span(vectors), in the order of their coefficient index."""
    vs = [v for v in vectors]
    out = [0]
    for v in vs:
        out += [x ^ v for x in out]
    return out


def subspace_sum(a: Iterable[int], b: Iterable[int]) -> list[int]:
    return reduce(list(a) + list(b))


def intersection(a: Iterable[int], b: Iterable[int]) -> list[int]:
    """Reduced basis of span(a) ∩ span(b) (Zassenhaus)."""
    a, b = reduce(a), reduce(b)
    if not a or not b:
        return []
    shift = max(x.bit_length() for x in a + b)
    rows = [(x << shift) | x for x in a] + [y << shift for y in b]
    low = (1 << shift) - 1
    return reduce(r & low for r in reduce(rows) if not r >> shift)


def complement(basis: Iterable[int], n: int) -> list[int]:
    """Unit vectors e_i (lowest i first) completing span(basis) to F2^n."""
    rows = _echelon(basis)
    out = []
    for i in range(n):
        v = 1 << i
        while v:  # e_i modulo the rows so far; a new pivot means e_i is outside their span
            p = v.bit_length() - 1
            if p not in rows:
                rows[p] = v
                out.append(1 << i)
                break
            v ^= rows[p]
    return out


def solve(columns: list[int], target: int) -> int | None:
    """x with XOR_{i in x} columns[i] == target, free variables 0; None if none exists.

    Free variables are the columns that are combinations of earlier ones: the solution uses
    the lowest-index columns that span, so it is the minimum-norm choice of Def. 4.5.
    """
    return Solver(columns)(target)


def solve_each(columns: Iterable[int], targets: Iterable[int]) -> list[int | None]:
    """``solve(columns, t)`` for each t."""
    return list(map(Solver(columns), targets))


class Solver:
    """``solve(columns, t)`` for many targets t: the columns are eliminated once."""

    def __init__(self, columns: Iterable[int]):
        self.rows: dict[int, tuple[int, int]] = {}  # pivot -> (vector, combination of columns)
        for i, c in enumerate(columns):
            combo = 1 << i
            while c:
                p = c.bit_length() - 1
                if p not in self.rows:
                    self.rows[p] = (c, combo)
                    break
                c ^= self.rows[p][0]
                combo ^= self.rows[p][1]

    def __call__(self, t: int) -> int | None:
        x = 0
        while t:
            row = self.rows.get(t.bit_length() - 1)
            if row is None:
                return None
            t ^= row[0]
            x ^= row[1]
        return x


def least_squares(columns: list[int], target: int) -> tuple[int, int]:
    """(x, r): the x of the solvable part of target and the residue r = target - A x.

    Over F2 'least squares' means: solve for the part of target in the column space and
    report what is left over; free variables are 0.
    """
    basis = reduce(columns)
    r = residue(target, basis)
    x = solve(columns, target ^ r)
    assert x is not None
    return x, r
