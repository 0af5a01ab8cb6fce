"""The F2 matrix of a layout: logical bits by hardware bits."""

from __future__ import annotations

from collections.abc import Sequence

from llgen.core.layout import LinearLayout
from llgen.core.view import hardware_bit_names, logical_bit_names
from llgen.show.cells import _cells
from llgen.show.figure import Panel, _compose
from llgen.show.grid import _spec_title
from llgen.show.text import AXIS_FONT, PANEL_FONT

_IN_COLOURS = {"register": "#4c72b0", "lane": "#dd8452", "warp": "#55a868", "block": "#8172b3", "offset": "#4c72b0"}


def _matrix_panel(layout: LinearLayout, title: str = "") -> Panel:
    rows, cols = logical_bit_names(layout), hardware_bit_names(layout)
    nr, nc = len(rows), len(cols)
    kinds = [n for n, k in layout.ins for _ in range(k)]
    cell = 0.22

    def draw(ax) -> None:
        ax.set_xlim(0, max(nc, 1))
        ax.set_ylim(max(nr, 1), 0)
        ax.set_xticks([])
        ax.set_yticks([])
        if title:
            ax.set_title(title, fontsize=PANEL_FONT, pad=16, loc="left")
        rects, colours = [], []
        for j, c in enumerate(layout.cols):
            for i in range(nr):
                if c >> i & 1:
                    rects.append((j, i, 1, 1))
                    colours.append(_IN_COLOURS.get(kinds[j], "#333333"))
        _cells(ax, rects, colours, gid="ones", lw=0.5)
        for x in range(1, nc):
            ax.axvline(x, color="#dddddd", lw=0.3, zorder=0)
        for y in range(1, nr):
            ax.axhline(y, color="#dddddd", lw=0.3, zorder=0)
        for i, r in enumerate(rows):
            ax.text(-0.3, i + 0.5, r, ha="right", va="center", fontsize=AXIS_FONT, gid=f"row-{r}")
        for j, c in enumerate(cols):
            ax.text(
                j + 0.5,
                -0.3,
                c,
                ha="center",
                va="bottom",
                fontsize=AXIS_FONT,
                gid=f"col-{c}",
                color=_IN_COLOURS.get(kinds[j], "black"),
            )

    return Panel(max(nc, 1) * cell, max(nr, 1) * cell, draw, (0.55, 0.2, 0.2, 0.55))


def matrix_figure(layout: LinearLayout, name: str = ""):
    """The F2 matrix: a filled cell where hardware bit (column) sets logical bit (row)."""
    return _compose([[_matrix_panel(layout)]], _spec_title(layout, name) + "  [rows: logical bits, columns: hardware bits]")


def matrices_figure(layouts: Sequence[tuple[str, LinearLayout]]):
    """Several matrices side by side (a conversion's source and destination)."""
    return _compose([[_matrix_panel(lay, name) for name, lay in layouts]])
