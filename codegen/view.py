"""Text views of a layout: the tensor as a grid of cells, and the F2 matrix with labelled rows
and columns.

Conventions: a distributed cell reads ``T<lane>:<reg>`` (the first replica, lowest warp/lane/
register), with the warp marked as ``w<warp>`` in a per-row margin when warps change inside a
row, else in the cell; a shared cell is its element offset. Matrix rows are logical bits, the
last dim's first (``n0..`` for dim1 and ``m0..`` for dim0 of a 2-D tensor, ``dim<d>[i]`` otherwise),
columns are hardware bits (``r0``, ``l0``, ``w0``, ``b0``, ``o0``).
"""

from __future__ import annotations

from .layout import LinearLayout

MAX_GRID_ROWS = 64
MAX_GRID_COLS = 32
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


def layout_text(layout: LinearLayout, title: str = "") -> str:
    """Header, grid and matrix, as ``llgen layout`` prints them."""
    dims = " x ".join(str(s) for s in layout.shape)
    ins = ", ".join(f"{n} {1 << k}" for n, k in layout.ins)
    kind = "shared" if "offset" in layout.in_names else "distributed"
    head = f"{title}\n{kind} layout over {dims}: {ins}" if title else f"{kind} layout over {dims}: {ins}"
    legend = "cells: element offset" if kind == "shared" else "cells: w<warp>.T<lane>:<register> (lowest replica)"
    return "\n\n".join(
        [
            head,
            legend + "\n" + grid_text(layout),
            "F2 matrix (rows: logical bits, columns: hardware bits)\n" + matrix_text(layout),
        ]
    )
