"""Which element each register of a distributed layout holds, as a shared-memory header's comments say it: the
coordinates of every register of lane 0 in warp 0 and the steps that lane and warp bits XOR in (the map is linear over
F2), and, where the layout is the fragment of an mma.sync operand or accumulator as PTX defines it, which fragment
element (a0, b1, c2, ...) of which instruction tile each register is.

The fragment conventions are PTX ISA's "Matrix Fragments for mma.m16n8k16 / m16n8k32 / m16n8k8" (lane = 4 * groupID +
threadID_in_group). A layout is said to be a fragment only when its lanes step exactly as the fragment's, every
register of lane 0 lies on one of the fragment's element positions of some instruction tile, and its warps move whole
tiles: then every (register, lane, warp) slot is that fragment element of that tile, by linearity.
"""

from __future__ import annotations

from dataclasses import dataclass

PER_LINE = 8  # register coordinates a comment line lists


@dataclass(frozen=True)
class Fragment:
    name: str  # the PTX operand: "m16n8k16 A"
    letter: str  # its element names: a0, a1, ...
    bits: tuple[int, ...]  # the element sizes it is defined for
    tile: tuple[int, int]  # (rows, columns) of one instruction's operand tile
    elems: tuple[tuple[int, int], ...]  # the (row, column) step of bit i of the element index, in lane 0
    lanes: tuple[tuple[int, int], ...]  # the (row, column) step of lane bit j
    rule: str  # the PTX formula, in words
    section: str  # the PTX ISA section that defines it

    def position(self, i: int) -> tuple[int, int]:
        r = c = 0
        for bit, (dr, dc) in enumerate(self.elems):
            if i >> bit & 1:
                r, c = r ^ dr, c ^ dc
        return r, c


_ROW_GROUP = ((1, 0), (2, 0), (4, 0))  # lane bits 2-4: groupID steps the rows (A, C) ...
_COL_GROUP = ((0, 1), (0, 2), (0, 4))  # ... or the columns (B's n)
FRAGMENTS = (
    Fragment(
        "m16n8k16 A",
        "a",
        (16,),
        (16, 16),
        ((0, 1), (8, 0), (0, 8)),
        ((0, 2), (0, 4), *_ROW_GROUP),
        "a0,a1 at (g, 2t..2t+1), a2,a3 at row g+8, a4..a7 as a0..a3 at column +8",
        "Matrix Fragments for mma.m16n8k16 with floating point type",
    ),
    Fragment(
        "m16n8k16 B",
        "b",
        (16,),
        (16, 8),
        ((1, 0), (8, 0)),
        ((2, 0), (4, 0), *_COL_GROUP),
        "b0,b1 at (2t..2t+1, g), b2,b3 at row +8 (rows are k)",
        "Matrix Fragments for mma.m16n8k16 with floating point type",
    ),
    Fragment(
        "m16n8k32 A",
        "a",
        (8,),
        (16, 32),
        ((0, 1), (0, 2), (8, 0), (0, 16)),
        ((0, 4), (0, 8), *_ROW_GROUP),
        "a0..a3 at (g, 4t..4t+3), a4..a7 at row g+8, a8..a15 as a0..a7 at column +16",
        "Matrix Fragments for mma.m16n8k32",
    ),
    Fragment(
        "m16n8k32 B",
        "b",
        (8,),
        (32, 8),
        ((1, 0), (2, 0), (16, 0)),
        ((4, 0), (8, 0), *_COL_GROUP),
        "b0..b3 at (4t..4t+3, g), b4..b7 at row +16 (rows are k)",
        "Matrix Fragments for mma.m16n8k32",
    ),
    Fragment(
        "m16n8k8 A",
        "a",
        (32,),
        (16, 8),
        ((8, 0), (0, 4)),
        ((0, 1), (0, 2), *_ROW_GROUP),
        "a0 at (g, t), a1 at row g+8, a2,a3 as a0,a1 at column +4 (tf32)",
        "Matrix Fragments for mma.m16n8k8 (.tf32)",
    ),
    Fragment(
        "m16n8k8 B",
        "b",
        (32,),
        (8, 8),
        ((4, 0),),
        ((1, 0), (2, 0), *_COL_GROUP),
        "b0 at (t, g), b1 at row t+4 (rows are k; tf32)",
        "Matrix Fragments for mma.m16n8k8 (.tf32)",
    ),
    Fragment(
        "m16n8 C/D",
        "c",
        (16, 32),
        (16, 8),
        ((0, 1), (8, 0)),
        ((0, 2), (0, 4), *_ROW_GROUP),
        "c0,c1 at (g, 2t..2t+1), c2,c3 at row g+8",
        "Matrix Fragments for mma.m16n8k16 with floating point type",
    ),
)


def _xor(bases: list[list[int]], k: int) -> list[int]:
    out = [0] * len(bases[0]) if bases else []
    for bit, b in enumerate(bases):
        if k >> bit & 1:
            out = [x ^ y for x, y in zip(out, b, strict=True)]
    return out


def _coord(c) -> str:
    return f"({', '.join(map(str, c))})"


def register_coords(layout) -> list[list[int]]:
    """The tensor coordinates of each register of lane 0 in warp 0."""
    regs = layout.to_dict()["bases"]["register"]
    rank = len(layout.shape)
    return [_xor(regs, r) if regs else [0] * rank for r in range(1 << len(regs))]


def fragments(layout, bits: int) -> list[tuple[Fragment, list[tuple[tuple[int, ...], int]]]]:
    """Each PTX fragment ``layout`` is, with each register's (tile origin, element index) in lane 0 of warp 0."""
    d = layout.to_dict()["bases"]
    shape, lanes, warps = layout.shape, d["lane"], d["warp"]
    if len(shape) < 2 or len(lanes) != 5:
        return []
    coords = register_coords(layout)
    found = []
    for f in FRAGMENTS:
        tm, tn = f.tile
        if bits not in f.bits or shape[-2] < tm or shape[-1] < tn:
            continue
        if any(any(b[:-2]) or (b[-2], b[-1]) != step for b, step in zip(lanes, f.lanes, strict=True)):
            continue
        if any(b[-2] % tm or b[-1] % tn for b in warps):
            continue
        where = {f.position(i): i for i in range(1 << len(f.elems))}
        each = []
        for c in coords:
            i = where.get((c[-2] % tm, c[-1] % tn))
            if i is None:
                break
            each.append(((*c[:-2], c[-2] - c[-2] % tm, c[-1] - c[-1] % tn), i))
        else:
            found.append((f, each))
    return found


def _elements(letter: str, idx: list[int]) -> str:
    if len(idx) > 2 and idx == list(range(idx[0], idx[0] + len(idx))):
        return f"{letter}{idx[0]}..{letter}{idx[-1]}"
    return ",".join(f"{letter}{i}" for i in idx)


def _regs(array: str, first: int, last: int) -> str:
    return f"{array}[{first}]" if first == last else f"{array}[{first}..{last}]"


def _wrap(items: list[str], indent: str, width: int = 116) -> list[str]:
    lines, line = [], ""
    for item in items:
        if line and len(indent) + len(line) + 2 + len(item) > width:
            lines.append(indent + line + ";")
            line = item
        else:
            line = f"{line}; {item}" if line else item
    return [*lines, indent + line] if line else lines


def fragment_lines(layout, bits: int, array: str) -> list[str]:
    """Comment lines naming the fragment element of each register of ``array``: in full for the first fragment the
    layout is (the largest tile), in a line for any other (an A fragment of 16-bit elements is two C tiles too)."""
    out = []
    for n, (f, each) in enumerate(sorted(fragments(layout, bits), key=lambda x: -x[0].tile[0] * x[0].tile[1])):
        groups: list[tuple[int, int, tuple[int, ...], list[int]]] = []
        for r, (origin, i) in enumerate(each):
            if groups and groups[-1][2] == origin and groups[-1][1] == r - 1:
                first, _, _, idx = groups[-1]
                groups[-1] = (first, r, origin, [*idx, i])
            else:
                groups.append((r, r, origin, [i]))
        items = [f"{_regs(array, a, b)}: {_elements(f.letter, idx)} at {_coord(origin)}" for a, b, origin, idx in groups]
        if n:
            more = "; ..." if len(items) > 2 else ""
            out.append(
                f"{array}[] is also mma.sync's {f.name} fragment, {f.tile[0]}x{f.tile[1]} tiles: {'; '.join(items[:2])}{more}"
            )
            continue
        out.append(f'{array}[] is mma.sync\'s {f.name} fragment (PTX ISA, "{f.section}"),')
        out.append(f"  lane 4g + t (g = groupID, t = threadID_in_group): {f.rule};")
        out.append(f"  its {f.tile[0]}x{f.tile[1]} tiles, in lane 0 of warp 0:")
        out += _wrap(items, "    ")
    return out


def register_lines(layout, bits: int, array: str) -> list[str]:
    """Comment lines: the element of every register of ``array`` in lane 0 of warp 0, the steps of lane and warp bits,
    and the PTX fragments the layout is (fragment_lines)."""
    coords = register_coords(layout)
    d = layout.to_dict()["bases"]
    out = []
    for k in range(0, len(coords), PER_LINE):
        last = min(k + PER_LINE, len(coords)) - 1
        out.append(f"  {_regs(array, k, last) + ':':<14} {' '.join(_coord(c) for c in coords[k : last + 1])}")
    steps = [f"{name} bits 0..{len(d[name]) - 1}: {' '.join(_coord(b) for b in d[name])}" for name in ("lane", "warp") if d[name]]
    if steps:
        out.append(f"  {'; '.join(steps)}")
    return out + fragment_lines(layout, bits, array)
