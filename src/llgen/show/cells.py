"""Drawing on one panel: thread colours, ticks, cells, cell labels and the box of a window."""

from __future__ import annotations

import colorsys
from collections.abc import Callable, Sequence

from llgen.show.inputs import Region
from llgen.show.text import AXIS_FONT, FONT, PANEL_FONT, text_width


def lane_hue(lane: int, lanes: int) -> float:
    """A hue per lane: 13 * lane mod lanes spreads neighbouring lanes, and lanes 8 or 16 apart, far."""
    return (13 * lane % max(1, lanes)) / max(1, lanes)


def thread_colour(lane: int, lanes: int, warp: int, warps: int) -> tuple[float, float, float]:
    """Hue per lane (`lane_hue`), shade per warp (higher warps darker)."""
    h = lane_hue(lane, lanes)
    t = warp / (warps - 1) if warps > 1 else 0.0
    return colorsys.hsv_to_rgb(h, 0.30 + 0.35 * t, 0.98 - 0.38 * t)


def _ticks(lo: int, hi: int, cell: float, room: float) -> list[int]:
    """Ticks over cells ``lo..hi`` of ``cell`` inches: every one where each has ``room`` inches for its
    label, else every 2nd, 4th, ... (a power of two) so that each has."""
    step = 1
    while step * cell < room:
        step *= 2
    return list(range(lo, hi, step))


def _grid_axes(
    ax,
    region: Region,
    row_name: str,
    col_name: str,
    cell: tuple[float, float],
    rows: Sequence[int] | None = None,
) -> None:
    """Axes over ``region`` (rows top to bottom) of cells ``cell`` (width, height) inches, ticks on the top and
    left spaced to fit their labels; ``rows``: the row indices the panel shows one under another, when they
    are not the region's consecutive rows."""
    r0, r1, c0, c1 = region
    ax.set_xlim(c0, c1)
    ax.set_aspect("auto")
    ax.xaxis.tick_top()
    xs = _ticks(c0, c1, cell[0], text_width(str(c1), FONT) + 0.06)
    ax.xaxis.set_ticks([t + 0.5 for t in xs])
    ax.xaxis.set_ticklabels([str(t) for t in xs], fontsize=FONT)
    rows = list(range(r0, r1)) if rows is None else list(rows)
    ax.set_ylim(len(rows), 0)
    ys = _ticks(0, len(rows), cell[1], FONT * 1.3 / 72)
    ax.yaxis.set_ticks([i + 0.5 for i in ys])
    ax.yaxis.set_ticklabels([str(rows[i]) for i in ys], fontsize=FONT)
    ax.tick_params(length=0, pad=2)
    ax.set_xlabel(col_name, fontsize=AXIS_FONT, labelpad=3)
    ax.xaxis.set_label_position("top")
    ax.set_ylabel(row_name, fontsize=AXIS_FONT, labelpad=3)
    for s in ax.spines.values():
        s.set_linewidth(0.5)


def _panel_title(ax, title: str) -> None:
    if title:
        ax.set_title(title, fontsize=PANEL_FONT, pad=4, loc="left")


def _cells(
    ax,
    rects: list[tuple[float, float, float, float]],
    colours: list,
    gid: str = "cells",
    lw: float = 0.3,
    edges: list | None = None,
) -> None:
    """One path per cell (x, y, w, h) in a single collection (fast, and countable in SVG)."""
    from matplotlib.collections import PolyCollection

    verts = [((x, y), (x + w, y), (x + w, y + h), (x, y + h)) for x, y, w, h in rects]
    pc = PolyCollection(verts, facecolors=colours, edgecolors=edges if edges is not None else "white", linewidths=lw)
    pc.set_gid(gid)
    ax.add_collection(pc)


def _labels(ax, texts: list[tuple[float, float, str]], colours: Sequence, gid_of: Callable[[int], str]) -> None:
    """Cell labels centred at (x, y), ``FONT`` points, ids from their index; white on a dark cell colour."""
    for i, ((x, y, label), (r, g, b)) in enumerate(zip(texts, colours, strict=True)):
        ink = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
        ax.text(x, y, label, ha="center", va="center", fontsize=FONT, gid=gid_of(i), linespacing=1.0, color=ink)


def _overview_side(rows: int, cols: int) -> float:
    """The side in inches of a raster cell: the overview's longer side is about 9 inches."""
    return min(0.3, 9.0 / max(rows, cols))


def _window_box(ax, boxes: Sequence[tuple[float, float, float, float]], gid: str) -> None:
    """Outline (x, y, w, h) boxes on an overview: where its labelled window lies."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    pc = PatchCollection([Rectangle((x, y), w, h) for x, y, w, h in boxes], facecolor="none", edgecolor="black", linewidth=1.2)
    pc.set_gid(gid)
    ax.add_collection(pc)
