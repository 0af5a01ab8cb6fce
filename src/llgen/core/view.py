"""Text views of a layout: the tensor as a grid of cells, and the F2 matrix with labelled rows
and columns.

Conventions: a distributed cell reads ``w<warp>.T<lane>:<reg>`` (the first replica: the lowest block,
warp, lane and register that hold the element); a shared cell is its element offset. The hardware view
turns the grid around: a line per thread, its registers in order, each with the element it holds, replicas
marked ``*``. Matrix rows are logical bits, the last dim's first (``n0..`` for dim1 and ``m0..`` for dim0 of
a 2-D tensor, ``dim<d>[i]`` otherwise), columns are hardware bits (``r0``, ``l0``, ``w0``, ``b0``, ``o0``).
"""

from __future__ import annotations

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout, unflatten

MAX_GRID_ROWS = 64
MAX_GRID_COLS = 32
MAX_HW_SLOTS_BITS = 20  # the hardware view lists every slot: 2**20 of them is some 15 MB of text
HW_PER_LINE = 8  # registers on one line of the hardware view; a thread with more continues below
_PREFIX = {"register": "r", "lane": "l", "warp": "w", "block": "b", "offset": "o"}


def logical_bit_names(layout: LinearLayout) -> list[str]:
    """Flat logical bit names, lowest first (the last out-dim's bits first)."""
    rank = len(layout.outs)
    names = []
    for d in range(rank - 1, -1, -1):
        name, k = layout.outs[d]
        label = {0: "m", 1: "n"}.get(d) if rank == 2 else None
        names += [f"{label}{i}" if label else f"{name}[{i}]" for i in range(k)]
    return names


def hardware_bit_names(layout: LinearLayout) -> list[str]:
    """Flat input bit names, lowest first: r0.. l0.. w0.. b0.. (o0.. for shared layouts)."""
    return [f"{_PREFIX.get(n, n)}{i}" for n, k in layout.ins for i in range(k)]


def matrix_text(layout: LinearLayout) -> str:
    """The F2 matrix: one row per logical bit, one column per hardware bit, 1 where the bit maps."""
    rows, cols = logical_bit_names(layout), hardware_bit_names(layout)
    width = max((len(c) for c in cols), default=1)
    pad = max((len(r) for r in rows), default=1)
    head = " " * pad + " | " + " ".join(c.rjust(width) for c in cols)
    lines = [head, "-" * len(head)]
    for i, r in enumerate(rows):
        bits = " ".join(("1" if c >> i & 1 else ".").rjust(width) for c in layout.cols)
        lines.append(f"{r.rjust(pad)} | {bits}")
    return "\n".join(lines)


def _first_owner(layout: LinearLayout) -> dict[int, int]:
    """flat logical index -> the lowest flat hardware index that holds it."""
    owner: dict[int, int] = {}
    for x in range(1 << layout.total_in_bits):
        y = layout.apply_flat(x)
        if y not in owner:
            owner[y] = x
    return owner


def _split_in(layout: LinearLayout, x: int) -> dict[str, int]:
    out = {}
    for n, k in layout.ins:
        out[n] = x & ((1 << k) - 1)
        x >>= k
    return out


def grid_text(layout: LinearLayout) -> str:
    """The tensor as a grid (2-D; 1-D as one row; higher ranks flattened into rows), elided past
    MAX_GRID_ROWS x MAX_GRID_COLS with a note."""
    shape = layout.shape
    cols = shape[-1] if shape else 1
    rows = (1 << layout.total_out_bits) // cols
    shared = "offset" in layout.in_names
    if layout.total_in_bits > 22:
        return f"(grid omitted: {1 << layout.total_in_bits} hardware slots)"
    owner = _first_owner(layout) if not shared else None
    inv = None
    if shared:
        inv = {layout.apply_flat(x): x for x in range(1 << layout.total_in_bits)}
    show_r, show_c = min(rows, MAX_GRID_ROWS), min(cols, MAX_GRID_COLS)
    cells = []
    for r in range(show_r):
        row = []
        for c in range(show_c):
            flat = r * cols + c
            if shared:
                h = _split_in(layout, inv.get(flat, 0))
                row.append(f"{h['offset']}" + (f"@b{h['block']}" if h.get("block") else ""))
            elif flat not in owner:
                row.append("-")
            else:
                h = _split_in(layout, owner[flat])
                cell = f"T{h.get('lane', 0)}:{h.get('register', 0)}"
                if layout.in_bits("warp"):
                    cell = f"w{h['warp']}.{cell}"
                if h.get("block"):
                    cell = f"b{h['block']}.{cell}"
                row.append(cell)
        cells.append(row)
    width = max(len(x) for row in cells for x in row)
    lines = [" ".join(x.rjust(width) for x in row) + (" ..." if show_c < cols else "") for row in cells]
    if show_r < rows:
        lines.append("...")
    if show_r < rows or show_c < cols:
        lines.append(f"(showing {show_r} of {rows} rows and {show_c} of {cols} columns)")
    return "\n".join(lines)


def hardware_text(layout: LinearLayout) -> str:
    """Per thread (``w<warp> t<lane>``, ``b<block>`` first where there are blocks), the element each of its
    registers holds, in register order, ``HW_PER_LINE`` to a line; ``*`` marks a replica, an element a lower
    (block, warp, lane, register) holds too."""
    if "offset" in layout.in_names:
        raise LlgenError("--hw lists the threads of a distributed layout, and this is a shared memory layout.")
    if layout.total_in_bits > MAX_HW_SLOTS_BITS:
        raise LlgenError(
            f"the layout has {1 << layout.total_in_bits} hardware slots, too many to list (at most {1 << MAX_HW_SLOTS_BITS})."
        )
    owner = _first_owner(layout)
    regs = layout.in_size("register")
    threads = [n for n in ("block", "warp", "lane") if n in layout.in_names and (n != "block" or layout.in_bits(n))]
    entries, heads = [], []
    for t in range(1 << sum(layout.in_bits(n) for n in threads)):
        ids, rest = {}, t
        for n in reversed(threads):
            ids[n], rest = rest & ((1 << layout.in_bits(n)) - 1), rest >> layout.in_bits(n)
        base = sum(v << layout.in_offset(n) for n, v in ids.items())
        row = []
        for r in range(regs):
            x = base | r << layout.in_offset("register") if "register" in layout.in_names else base
            y = layout.apply_flat(x)
            coord = "(" + ",".join(map(str, unflatten(y, layout.outs))) + ")"
            row.append(f"r{r} {coord}{'*' if owner[y] != x else ''}")
        entries.append(row)
        heads.append(" ".join(f"{_PREFIX[n]}{ids[n]}" if n != "lane" else f"t{ids[n]}" for n in threads) + ":")
    cell = max(len(e) for row in entries for e in row)
    pad = max(len(h) for h in heads)
    dims = ",".join(n for n, _ in layout.outs)
    copies = (1 << layout.total_in_bits) // len(owner)
    legend = f"hardware view: per thread, each register r<i> and the element ({dims}) it holds"
    if copies > 1:
        legend += f"; * marks a replica (each element is held {copies} times; the lowest warp, lane and register unmarked)"
    lines = [legend]
    for head, row in zip(heads, entries, strict=True):
        for k in range(0, len(row), HW_PER_LINE):
            chunk = " ".join(e.ljust(cell) for e in row[k : k + HW_PER_LINE]).rstrip()
            lines.append(f"{(head if k == 0 else '').ljust(pad)} {chunk}")
    return "\n".join(lines)


def layout_text(layout: LinearLayout, title: str = "", hw: bool = False) -> str:
    """Header, grid (``hw``: the hardware view instead) and matrix, as ``llgen layout`` prints them."""
    dims = " x ".join(str(s) for s in layout.shape)
    ins = ", ".join(f"{n} {1 << k}" for n, k in layout.ins)
    kind = "shared" if "offset" in layout.in_names else "distributed"
    head = f"{title}\n{kind} layout over {dims}: {ins}" if title else f"{kind} layout over {dims}: {ins}"
    legend = "cells: element offset" if kind == "shared" else "cells: w<warp>.T<lane>:<register> (lowest replica)"
    return "\n\n".join(
        [
            head,
            hardware_text(layout) if hw else legend + "\n" + grid_text(layout),
            "F2 matrix (rows: logical bits, columns: hardware bits)\n" + matrix_text(layout),
        ]
    )
