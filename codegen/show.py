"""Pictures of layouts and conversions (``llgen show``), drawn with matplotlib.

matplotlib is an extra (``pip install '.[show]'`` in llgen's clone) and is imported only inside the functions
here, so ``import llgen`` and the other commands never pay for it.

Four kinds of picture, each a `Figure` built from panels placed at fixed sizes in inches (so a
PNG's pixel size is known in advance: ``figure_size_px``):

* ``layout_figure``: a distributed layout as the tensor grid. A cell's colour is its owning
  thread (hue per lane, bit-reversed so neighbouring lanes differ; darker for higher warps) and
  its label ``T<lane>:R<reg>`` (second line ``W<warp>`` when there are warps) names the lowest
  (register, lane, warp) that holds it; ``+k`` says k more threads or registers hold a replica.
* ``bank_map_figure``: a memory layout as shared memory: rows are 128-byte segments, columns the
  32 banks (4 bytes each), each cell one element labelled with its logical coordinate. An
  access (a distributed layout, one register step of warp 0) is highlighted and the threads
  per bank are drawn under the map; a bank holding more than one distinct word is red.
* ``matrix_figure``: the F2 matrix, rows the logical bits (``n0..`` for the last dim, ``m0..``
  for the first), columns the hardware bits (``r``/``l``/``w`` or ``o``).
* ``conversion_figure``: source and destination grids side by side with the plan's path, then
  the shuffle rounds or the swizzle's bank map.

Text stays readable at any size: every label, tick and title is 7 points or more (``FONT``), cells are sized
to fit their labels, long titles wrap, and `_fit_canvas` grows the canvas over anything that would stick out.
A tensor or bank map of more than ``LABEL_CELLS`` cells is drawn in two panels: the whole of it as one raster
image (colours only; a box marks the window below) and a labelled ``WINDOW`` of it, its top-left corner or,
for a bank map with an access, the segments the access touches (``--region`` picks another window).

For counting (tests, tooling), SVG elements carry ids: ``cells`` (one path per drawn cell),
``cells-image`` (the raster of a large tensor or map), ``window`` (its box), ``lbl-<row>-<col>`` (a cell label),
``ones`` (the matrix's set bits), ``row-<bit>``/``col-<bit>`` (matrix labels),
``hits-<bank>`` (a bar) and ``hitcount-<bank>`` (its number), ``round-<i>`` (a shuffle round);
in a conversion the grids' and the bank map's ids start with ``src-``, ``dst-`` and ``smem-``.
Output is deterministic: fixed hash salt, no date, text kept as SVG text.
"""

from __future__ import annotations

import colorsys
import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import LlgenError
from .files import write_atomic
from .layout import LinearLayout
from .target import Target, target
from .view import hardware_bit_names, logical_bit_names

LABEL_CELLS = 1024  # cells one panel labels; a larger tensor or map gets an overview and a labelled window
WINDOW = (16, 32)  # rows and columns of the labelled window of a large tensor (bank maps: segments, all banks)
MAX_CELLS = 1 << 20  # cells drawn at all without --region (the overview is one raster image)
DPI = 100
FORMATS = (".svg", ".png")
BANK_MODEL = target("sm_90")  # banks, bank width and phases: the planner's model (the same 32 x 4 bytes on every target)
BANKS = BANK_MODEL.banks
BANK_BYTES = BANK_MODEL.bank_bytes
SEGMENT_BYTES = BANK_MODEL.wavefront_bytes
FONT = 7.0  # points: cell labels, ticks, notes; the smallest text in a picture
AXIS_FONT = 8.0  # axis names, matrix bit names, text lines
PANEL_FONT = 9.0  # panel titles
TITLE_FONT = 10.0  # the figure's title
CHAR_EM = 0.62  # the mean advance of a DejaVu Sans character (digits, letters, punctuation), in ems
TITLE_WIDTH = 6.0  # inches: a title wraps at the figure's width, or at this where the figure is narrower

Region = tuple[int, int, int, int]  # r0, r1, c0, c1 (half-open)


# ---------------------------------------------------------------------- input checks
def check_output(path: str | os.PathLike) -> str:
    """The output format ('svg' or 'png') of ``path``, or one sentence why it cannot be written."""
    p = Path(path)
    ext = p.suffix.lower()
    if ext not in FORMATS:
        raise LlgenError(f"cannot draw to '{p}': the extension must be .svg or .png, not '{ext or '(none)'}'.")
    if not p.parent.is_dir():
        raise LlgenError(f"cannot write '{p}': its directory does not exist.")
    return ext[1:]


def parse_region(text: str | None) -> Region | None:
    """``r0:r1,c0:c1`` -> (r0, r1, c0, c1); either half may be ``:`` (everything)."""
    if text is None:
        return None
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        vals = []
        for part in parts:
            lo, hi = part.split(":")
            vals += [int(lo) if lo.strip() else 0, int(hi) if hi.strip() else -1]
    except ValueError:
        raise LlgenError(f"region '{text}' is not of the form r0:r1,c0:c1 (e.g. 0:32,0:32).") from None
    return tuple(vals)  # type: ignore[return-value]


def _clip_region(region: Region | None, rows: int, cols: int, what: str) -> Region:
    if region is None:
        r = (0, rows, 0, cols)
    else:
        r0, r1, c0, c1 = region
        r = (r0, rows if r1 == -1 else r1, c0, cols if c1 == -1 else c1)
        if not (0 <= r[0] < r[1] <= rows and 0 <= r[2] < r[3] <= cols):
            raise LlgenError(f"region {r[0]}:{r[1]},{r[2]}:{r[3]} lies outside the {rows} x {cols} {what}.")
    n = (r[1] - r[0]) * (r[3] - r[2])
    if n > MAX_CELLS:
        raise LlgenError(
            f"the {what} has {n} cells, too many to draw (at most {MAX_CELLS}): pick a part with --region r0:r1,c0:c1."
        )
    return r


def _grid_dims(layout: LinearLayout) -> tuple[int, int]:
    """(rows, cols) of the 2-D picture of a tensor: the last dim across, the others down."""
    cols = layout.shape[-1] if layout.shape else 1
    return (1 << layout.total_out_bits) // cols, cols


def is_memory(layout: LinearLayout) -> bool:
    return "offset" in layout.in_names


# ---------------------------------------------------------------------- colours
def lane_hue(lane: int, lanes: int) -> float:
    """A hue per lane: 13 * lane mod lanes spreads neighbouring lanes, and lanes 8 or 16 apart, far."""
    return (13 * lane % max(1, lanes)) / max(1, lanes)


def thread_colour(lane: int, lanes: int, warp: int, warps: int) -> tuple[float, float, float]:
    """Hue per lane (`lane_hue`), shade per warp (higher warps darker)."""
    h = lane_hue(lane, lanes)
    t = warp / (warps - 1) if warps > 1 else 0.0
    return colorsys.hsv_to_rgb(h, 0.30 + 0.35 * t, 0.98 - 0.38 * t)


# ---------------------------------------------------------------------- panels and figures
TITLED = (0.55, 0.3, 0.25, 0.75)  # margins of a panel with a title over its top ticks
PLAIN = (0.55, 0.3, 0.25, 0.5)


@dataclass(frozen=True)
class Panel:
    """An axes of ``w`` x ``h`` inches with margins (left, bottom, right, top) around it."""

    w: float
    h: float
    draw: Callable
    margins: tuple[float, float, float, float] = PLAIN

    @property
    def outer(self) -> tuple[float, float]:
        lm, bm, rm, tm = self.margins
        return self.w + lm + rm, self.h + bm + tm


def figure_size(rows: Sequence[Sequence[Panel]]) -> tuple[float, float]:
    """Figure size in inches of panel rows stacked top to bottom."""
    width = max(sum(p.outer[0] for p in row) for row in rows)
    height = sum(max(p.outer[1] for p in row) for row in rows)
    return width, height


def figure_size_px(fig) -> tuple[int, int]:
    """Pixel size of ``fig`` saved as PNG at ``DPI``."""
    w, h = fig.get_size_inches()
    return round(w * DPI), round(h * DPI)


def text_width(text: str, font: float, em: float = CHAR_EM) -> float:
    """The width in inches of one line of ``text`` at ``font`` points (``em``: mean advance per character)."""
    return len(text) * font * em / 72


def wrap(text: str, width: float, font: float) -> list[str]:
    """``text`` in lines of at most ``width`` inches at ``font`` points, broken at spaces (inside a word too long
    for a line)."""
    import textwrap

    per_line = max(16, int(width * 72 / (font * CHAR_EM)))
    return textwrap.wrap(text, per_line, break_on_hyphens=False) or [""]


def _compose(rows: Sequence[Sequence[Panel]], title: str = ""):
    """The panels, row under row, under ``title`` (wrapped to the figure's width); then `_fit_canvas`."""
    from matplotlib.figure import Figure

    width, height = figure_size(rows)
    lines = wrap(title, max(width, TITLE_WIDTH) - 0.6, TITLE_FONT) if title else []
    width = max(width, max((text_width(line, TITLE_FONT) for line in lines), default=0) + 0.6)
    title_h = 0.2 + len(lines) * TITLE_FONT * 1.3 / 72 if title else 0.0
    height += title_h
    fig = Figure(figsize=(width, height), dpi=DPI)
    fig.patch.set_facecolor("white")
    if title:
        fig.text(
            0.3 / width,
            1 - 0.12 / height,
            "\n".join(lines),
            fontsize=TITLE_FONT,
            ha="left",
            va="top",
            gid="title",
            linespacing=1.3,
        )
    top = height - title_h
    for row in rows:
        row_h = max(p.outer[1] for p in row)
        x = 0.0
        for p in row:
            lm, _bm, _rm, tm = p.margins
            ax = fig.add_axes(((x + lm) / width, (top - tm - p.h) / height, p.w / width, p.h / height))
            p.draw(ax)
            x += p.outer[0]
        top -= row_h
    _fit_canvas(fig)
    return fig


def _fit_canvas(fig, pad: float = 0.1) -> None:
    """Grow the canvas over every title, axis decoration and text outside the axes that would stick out of it
    (cell labels are inside their cells and not measured), moving everything by what grows on the left and
    the bottom: nothing is ever clipped."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    renderer = FigureCanvasAgg(fig).get_renderer()
    boxes = [t.get_window_extent(renderer) for t in fig.texts]
    for ax in fig.axes:
        outside = [t for t in ax.texts if "lbl-" not in (t.get_gid() or "")]
        boxes.append(ax.get_tightbbox(renderer, bbox_extra_artists=outside))
    box = Bbox.union([b for b in boxes if b is not None and b.width > 0])
    w, h = fig.get_size_inches()
    left, bottom = max(0.0, pad - box.x0 / DPI), max(0.0, pad - box.y0 / DPI)
    right, top = max(0.0, box.x1 / DPI + pad - w), max(0.0, box.y1 / DPI + pad - h)
    if not any((left, bottom, right, top)):
        return
    nw, nh = w + left + right, h + bottom + top
    for ax in fig.axes:
        p = ax.get_position()
        ax.set_position(((p.x0 * w + left) / nw, (p.y0 * h + bottom) / nh, p.width * w / nw, p.height * h / nh))
    for t in fig.texts:
        x, y = t.get_position()
        t.set_position(((x * w + left) / nw, (y * h + bottom) / nh))
    fig.set_size_inches(nw, nh)


def save(fig, path: str | os.PathLike) -> None:
    """Write ``fig`` as SVG or PNG (by extension) through a temporary file and rename: no
    partial file is ever left. SVG output is byte-for-byte deterministic."""
    import matplotlib

    fmt = check_output(path)
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "llgen", "svg.fonttype": "none"}):
        if fmt == "svg":
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "llgen show"})
        else:
            fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": "llgen show"})
    write_atomic(path, buf.getvalue())


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


def label_cell(labels: Sequence[str], font: float = FONT) -> tuple[float, float]:
    """Width and height in inches of a cell that holds each of ``labels`` (lines split at newlines)."""
    lines = [line for label in labels for line in label.split("\n")] or [""]
    rows = max((label.count("\n") + 1 for label in labels), default=1)
    return max(0.3, max(text_width(line, font) for line in lines) + 0.1), rows * font * 1.2 / 72 + 0.1


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


# ---------------------------------------------------------------------- distributed layouts
@dataclass(frozen=True)
class Ownership:
    """Per flat logical index: the lowest hardware slot that holds it (-1: none) and how many do."""

    slot: object  # numpy int64 array over the flat logical indices
    copies: int  # slots per element (the same for every element of a linear layout's image)


def images(layout: LinearLayout):
    """The flat logical index of every flat hardware index, as a numpy array."""
    import numpy as np

    x = np.arange(1 << layout.total_in_bits, dtype=np.int64)
    y = np.zeros_like(x)
    for j, c in enumerate(layout.cols):
        if c:
            y ^= ((x >> j) & 1) * c
    return y


def ownership(layout: LinearLayout) -> Ownership:
    import numpy as np

    n = layout.total_in_bits
    if n > 22:
        raise LlgenError(f"the layout has {1 << n} hardware slots, too many to draw.")
    vals, idx = np.unique(images(layout), return_index=True)
    slot = np.full(1 << layout.total_out_bits, -1, dtype=np.int64)
    slot[vals] = idx
    return Ownership(slot, (1 << n) // len(vals))


def _split_in(layout: LinearLayout, x: int) -> dict[str, int]:
    out = {}
    for name, k in layout.ins:
        out[name] = x & ((1 << k) - 1)
        x >>= k
    return out


def _field(layout: LinearLayout, slots, name: str):
    """In-dim ``name``'s index in each of the flat hardware indices ``slots`` (0 where the layout lacks it)."""
    if name not in layout.in_names:
        return slots * 0
    return (slots >> layout.in_offset(name)) & (layout.in_size(name) - 1)


def _grid_panels(layout: LinearLayout, region: Region | None, title: str = "", ids: str = "") -> tuple[list[Panel], str]:
    """The tensor grid of a distributed layout as panels (one labelled panel, or an overview and its labelled
    window, one under the other) and a note on replicas and what the labels cover."""
    if is_memory(layout):
        raise LlgenError("this is a memory layout: draw it as a bank map (without --src/--dst), not as a thread grid.")
    rows, cols = _grid_dims(layout)
    reg = _clip_region(region, rows, cols, "tensor")
    r0, r1, c0, c1 = reg
    own = ownership(layout)
    notes = [f"each element is held by {own.copies} slots (+{own.copies - 1} replicas)"] if own.copies > 1 else []
    if (r1 - r0) * (c1 - c0) <= LABEL_CELLS:
        return [_labelled_grid(layout, own, reg, title, ids)], "; ".join(notes)
    wc = min(c1 - c0, WINDOW[1])
    win = (r0, min(r1, r0 + max(WINDOW[0], LABEL_CELLS // 2 // wc)), c0, c0 + wc)
    notes.append(f"labelled: rows {win[0]}:{win[1]}, columns {win[2]}:{win[3]} (--region r0:r1,c0:c1 for another part)")
    where = f"rows {win[0]}:{win[1]}, columns {win[2]}:{win[3]}"
    overview = _overview_grid(
        layout, own, reg, win, f"{title + ': ' if title else ''}the whole tile (box: the labels below)", ids
    )
    return [overview, _labelled_grid(layout, own, win, where, ids)], "; ".join(notes)


def _axis_names(layout: LinearLayout) -> tuple[str, str]:
    return "/".join(n for n, _ in layout.outs[:-1]) or "row", layout.outs[-1][0]


def _labelled_grid(layout: LinearLayout, own: Ownership, reg: Region, title: str, ids: str) -> Panel:
    """Every cell of ``reg`` coloured by its owning thread and labelled ``T<lane>:R<reg>`` (``+k`` replicas,
    ``W<warp>`` on a second line where there are warps)."""
    r0, r1, c0, c1 = reg
    cols = _grid_dims(layout)[1]
    lanes, warps = layout.in_size("lane"), layout.in_size("warp")
    rects, colours, texts, where = [], [], [], []
    for r in range(r0, r1):
        for c in range(c0, c1):
            x = int(own.slot[r * cols + c])
            if x < 0:
                continue
            h = _split_in(layout, x)
            label = f"T{h.get('lane', 0)}:R{h.get('register', 0)}" + (f" +{own.copies - 1}" if own.copies > 1 else "")
            rects.append((c, r - r0, 1, 1))
            colours.append(thread_colour(h.get("lane", 0), lanes, h.get("warp", 0), warps))
            texts.append((c + 0.5, r - r0 + 0.5, label + (f"\nW{h.get('warp', 0)}" if warps > 1 else "")))
            where.append((r, c))
    cw, ch = label_cell([t for *_, t in texts])

    def draw(ax) -> None:
        _grid_axes(ax, reg, *_axis_names(layout), (cw, ch))
        _panel_title(ax, title)
        _cells(ax, rects, colours, gid=f"{ids}cells")
        _labels(ax, texts, colours, lambda i: f"{ids}lbl-{where[i][0]}-{where[i][1]}")

    return Panel((c1 - c0) * cw, (r1 - r0) * ch, draw, TITLED if title else PLAIN)


def _overview_grid(layout: LinearLayout, own: Ownership, reg: Region, win: Region, title: str, ids: str) -> Panel:
    """The whole of ``reg`` as one raster image coloured by thread, with a box around the labelled window."""
    import numpy as np

    r0, r1, c0, c1 = reg
    cols = _grid_dims(layout)[1]
    lanes, warps = layout.in_size("lane"), layout.in_size("warp")
    palette = np.array([[thread_colour(la, lanes, w, warps) for la in range(lanes)] for w in range(warps)])
    slots = own.slot[np.arange(r0, r1)[:, None] * cols + np.arange(c0, c1)[None, :]]
    img = palette[_field(layout, slots, "warp"), _field(layout, slots, "lane")]
    img[slots < 0] = 1.0
    side = _overview_side(r1 - r0, c1 - c0)

    def draw(ax) -> None:
        _grid_axes(ax, reg, *_axis_names(layout), (side, side))
        _panel_title(ax, title)
        im = ax.imshow(img, extent=(c0, c1, r1 - r0, 0), interpolation="nearest", aspect="auto")
        im.set_gid(f"{ids}cells-image")
        _window_box(ax, [(win[2], win[0] - r0, win[3] - win[2], win[1] - win[0])], f"{ids}window")

    return Panel((c1 - c0) * side, (r1 - r0) * side, draw, TITLED)


def _spec_title(layout: LinearLayout, name: str) -> str:
    dims = "x".join(str(s) for s in layout.shape)
    hw = ", ".join(f"{n} {1 << k}" for n, k in layout.ins if k)
    return f"{name + ': ' if name else ''}{dims} ({hw})"


def layout_figure(layout: LinearLayout, region: Region | None = None, name: str = ""):
    """The tensor grid of a distributed layout, cells coloured and labelled by thread (a large one: the whole
    tile unlabelled above a labelled window of it)."""
    panels, note = _grid_panels(layout, region)
    return _compose([[p] for p in panels], _spec_title(layout, name) + (f"  [{note}]" if note else ""))


# ---------------------------------------------------------------------- memory layouts
@dataclass(frozen=True)
class AccessStep:
    """One warp access into a memory layout: per lane its element offset (None: not stored)."""

    offsets: tuple[int | None, ...]
    banks: dict[int, int]  # bank -> threads landing on it
    words: dict[int, int]  # bank -> distinct 4-byte words touched in it
    wavefronts: int  # the most distinct words in one bank


def memory_from_swizzle(shared_plan, outs) -> LinearLayout:
    """The memory layout (offset -> element) of a shared plan's scratch in round 0."""
    columns = shared_plan.offset_vectors()
    return LinearLayout((("offset", len(columns)),), tuple(outs), tuple(columns))


def access_step(memory: LinearLayout, access: LinearLayout, step: int, elem_bytes: int, tgt: Target = BANK_MODEL) -> AccessStep:
    """Warp 0 of ``access`` at register ``step``: which offsets each lane touches, threads per bank and distinct
    words per bank over the warp, and the wavefronts the planner's model gives the access: lanes go in the target's
    phases (``Target.phase_lanes``), each phase as many wavefronts as its busiest bank has distinct words."""
    if access.outs != memory.outs:
        raise LlgenError(
            f"the access layout covers { {n: 1 << k for n, k in access.outs} } but the memory layout "
            f"{ {n: 1 << k for n, k in memory.outs} }."
        )
    if not access.is_surjective() or is_memory(access):
        raise LlgenError("the access must be a distributed layout that holds every element.")
    regs = access.in_size("register")
    if not 0 <= step < regs:
        raise LlgenError(f"--step {step} is outside the access layout's {regs} register(s).")
    where = {memory.apply_flat(o): o for o in range(1 << memory.in_bits("offset"))}
    offsets, banks, words = [], {}, {}
    word_sets: dict[int, set[int]] = {}
    per_phase: dict[tuple[int, int], set[int]] = {}  # (phase, bank) -> words
    phase_lanes = tgt.phase_lanes(elem_bytes)
    for lane in range(access.in_size("lane")):
        elem = access.apply_flat(step | lane << access.in_offset("lane"))
        off = where.get(elem)
        offsets.append(off)
        if off is None:
            continue
        first = off * elem_bytes // tgt.bank_bytes
        for wd in range(first, first + max(1, elem_bytes // tgt.bank_bytes)):
            b = wd % tgt.banks
            banks[b] = banks.get(b, 0) + 1
            word_sets.setdefault(b, set()).add(wd)
            per_phase.setdefault((lane // phase_lanes, b), set()).add(wd)
    words = {b: len(s) for b, s in word_sets.items()}
    busiest: dict[int, int] = {}
    for (phase, _), s in per_phase.items():
        busiest[phase] = max(busiest.get(phase, 0), len(s))
    return AccessStep(tuple(offsets), banks, words, sum(busiest.values()))


def _coord_label(flat: int, outs) -> str:
    from .layout import unflatten

    return ",".join(str(v) for v in unflatten(flat, outs))


def _bank_colours(flat, n_last: int):
    """The pale colour of each element (numpy array of flat indices) by its last-dim coordinate."""
    import numpy as np
    from matplotlib.colors import hsv_to_rgb

    hue = (flat & ((1 << n_last) - 1)) / (1 << n_last) if n_last else flat * 0.0
    return hsv_to_rgb(np.stack([hue, np.full(hue.shape, 0.22), np.full(hue.shape, 0.99)], axis=-1))


def _faded(rgb):
    return 0.75 + 0.25 * rgb


def _bank_panels(
    memory: LinearLayout,
    elem_bytes: int,
    region: Region | None,
    acc: AccessStep | None,
    lanes: int,
    title: str = "",
    ids: str = "",
) -> tuple[list[list[Panel]], str]:
    """The bank map (segments down, banks across) as panel rows: labelled, or when it has more than
    ``LABEL_CELLS`` elements an overview with a labelled window of it (the segments an access touches, else
    the first ones); under it, with an access, the threads per bank."""
    import numpy as np

    n_off = 1 << memory.in_bits("offset")
    per_bank = max(1, BANK_BYTES // elem_bytes)  # elements in a bank word
    rows = max(1, n_off * elem_bytes // SEGMENT_BYTES)
    reg = _clip_region(region, rows, BANKS, "bank map")
    r0, r1, c0, c1 = reg
    per_segment = max(1, (c1 - c0) * BANK_BYTES // elem_bytes)  # elements a segment shows
    lane_of = {o: lane for lane, o in enumerate(acc.offsets) if o is not None} if acc else {}
    elems = images(memory)
    n_last = memory.outs[-1][1] if memory.outs else 0
    segs, note = list(range(r0, r1)), ""
    if (r1 - r0) * per_segment > LABEL_CELLS:
        most = max(1, LABEL_CELLS // per_segment)
        touched = sorted({o * elem_bytes // SEGMENT_BYTES for o in lane_of} & set(segs))
        segs = touched[:most] if touched else segs[:most]
        if not touched:
            note = f"labelled: segments {segs[0]}:{segs[-1] + 1} (--region r0:r1,c0:c1 for another part)"
        elif len(segs) < len(touched):
            note = f"labelled: the first {len(segs)} of the {len(touched)} segments the access touches"
        else:
            note = f"labelled: the {len(segs)} segments the access touches"

    rects, colours, edges, texts, where = [], [], [], [], []
    for i, seg in enumerate(segs):
        for o in range(seg * SEGMENT_BYTES // elem_bytes, (seg + 1) * SEGMENT_BYTES // elem_bytes):
            xb = (o * elem_bytes % SEGMENT_BYTES) / BANK_BYTES
            if not (o < n_off and c0 <= xb < c1):
                continue
            flat = int(elems[o])
            colour = colorsys.hsv_to_rgb((flat & ((1 << n_last) - 1)) / (1 << n_last), 0.22, 0.99)
            edge, label = "white", _coord_label(flat, memory.outs)
            if acc:
                if o in lane_of:
                    colour = colorsys.hsv_to_rgb(lane_hue(lane_of[o], lanes), 0.75, 0.95)
                    edge = "black"
                    label += f"\nT{lane_of[o]}"
                else:
                    colour = tuple(_faded(np.array(colour)).tolist())
            rects.append((xb, i, elem_bytes / BANK_BYTES, 1))
            colours.append(colour)
            edges.append(edge)
            texts.append((xb + elem_bytes / BANK_BYTES / 2, i + 0.5, label))
            where.append((seg, o * elem_bytes % SEGMENT_BYTES // elem_bytes))
    cw, ch = label_cell([t for *_, t in texts])
    consecutive = segs == list(range(segs[0], segs[0] + len(segs)))

    def draw(ax) -> None:
        _grid_axes(
            ax, (segs[0], segs[0] + len(segs), c0, c1), "segment (128 B)", "bank", (cw * BANK_BYTES / elem_bytes, ch), segs
        )
        _panel_title(ax, title if not note else f"{title + ': ' if title else ''}the labelled segments")
        _cells(ax, rects, colours, gid=f"{ids}cells", edges=edges, lw=0.4)
        _labels(ax, texts, colours, lambda i: f"{ids}lbl-{where[i][0]}-{where[i][1]}")
        for b in range(c0 + 1, c1):
            ax.axvline(b, color="#888888", lw=0.3)

    width = (c1 - c0) * cw * BANK_BYTES / elem_bytes  # a cell is one element, elem_bytes / 4 banks wide
    panels = [[Panel(width, len(segs) * ch, draw, TITLED)]]
    if note:
        cell = (np.arange(r0, r1)[:, None] * SEGMENT_BYTES + np.arange(c0, c1)[None, :] * BANK_BYTES) // elem_bytes
        img = _bank_colours(elems[cell], n_last)
        if acc:
            lit = np.full(n_off + per_bank, -1)
            for o, lane in lane_of.items():
                lit[o] = lane
            hit = np.max([lit[cell + k] for k in range(per_bank)], axis=0)
            lane_rgb = np.array([colorsys.hsv_to_rgb(lane_hue(la, lanes), 0.75, 0.95) for la in range(lanes)])
            img = np.where(hit[..., None] >= 0, lane_rgb[np.maximum(hit, 0)], _faded(img))
        side = _overview_side(r1 - r0, c1 - c0)
        bank_side = max(side, 0.15)  # 32 banks across stay 4.8 inches wide however many segments run down
        boxes = [(c0, s - r0, c1 - c0, 1) for s in segs] if not consecutive else [(c0, segs[0] - r0, c1 - c0, len(segs))]

        def draw_overview(ax) -> None:
            _grid_axes(ax, reg, "segment (128 B)", "bank", (bank_side, side))
            _panel_title(ax, f"{title + ': ' if title else ''}the whole map (boxes: the segments labelled below)")
            im = ax.imshow(img, extent=(c0, c1, r1 - r0, 0), interpolation="nearest", aspect="auto")
            im.set_gid(f"{ids}cells-image")
            _window_box(ax, boxes, f"{ids}window")

        panels.insert(0, [Panel((c1 - c0) * bank_side, (r1 - r0) * side, draw_overview, TITLED)])
    if acc:

        def draw_hits(ax) -> None:
            from matplotlib.patches import Rectangle

            top = max(acc.banks.values(), default=1)
            ax.set_xlim(c0, c1)
            ax.set_ylim(0, top * 1.3 + 0.5)
            for b in range(c0, c1):
                hits = acc.banks.get(b, 0)
                conflict = acc.words.get(b, 0) > 1
                colour = "#d62728" if conflict else "#4c72b0"
                rect = Rectangle((b + 0.1, 0), 0.8, hits, facecolor=colour, edgecolor="none", gid=f"{ids}hits-{b}")
                ax.add_patch(rect)
                ax.text(
                    b + 0.5,
                    hits + 0.1,
                    str(hits),
                    ha="center",
                    va="bottom",
                    fontsize=FONT,
                    gid=f"{ids}hitcount-{b}",
                    color=colour if hits else "#999999",
                )
            ax.set_xticks([])
            ax.set_yticks([])
            for s in ("top", "right", "left"):
                ax.spines[s].set_visible(False)
            ax.set_ylabel("threads", fontsize=FONT)
            verdict = "conflict-free" if acc.wavefronts <= 1 else f"{acc.wavefronts}-way conflict (red: banks with several words)"
            ax.set_title(
                f"threads per bank, one element per thread: {acc.wavefronts} wavefront(s), {verdict}",
                fontsize=AXIS_FONT,
                loc="left",
                pad=3,
                color="#d62728" if acc.wavefronts > 1 else "black",
            )

        panels.append([Panel(width, 0.8, draw_hits, (0.55, 0.1, 0.25, 0.3))])
    return panels, note


def bank_map_figure(
    memory: LinearLayout,
    elem_bytes: int,
    access: LinearLayout | None = None,
    step: int = 0,
    region: Region | None = None,
    name: str = "",
    tgt: Target = BANK_MODEL,
):
    """The bank map of a memory layout; with ``access``, one warp access at register ``step``
    highlighted and the threads per bank drawn under it (wavefronts by ``tgt``'s model)."""
    if not is_memory(memory):
        raise LlgenError("a bank map needs a memory layout (in-dim 'offset'), and this is a distributed layout.")
    acc = access_step(memory, access, step, elem_bytes, tgt) if access is not None else None
    lanes = access.in_size("lane") if access is not None else 32
    panels, note = _bank_panels(memory, elem_bytes, region, acc, lanes)
    title = f"{name + ': ' if name else ''}{1 << memory.in_bits('offset')} elements of {elem_bytes} B in {BANKS} banks"
    if acc:
        title += f"; access at register step {step}"
    return _compose(panels, title + (f"  [{note}]" if note else ""))


# ---------------------------------------------------------------------- the matrix
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


# ---------------------------------------------------------------------- conversions
def _text_panel(lines: Sequence[tuple[str, str]], width: float) -> Panel:
    """Monospace lines, each with an id."""

    def draw(ax) -> None:
        ax.set_axis_off()
        ax.set_xlim(0, 1)
        ax.set_ylim(len(lines), 0)
        for i, (gid, text) in enumerate(lines):
            ax.text(0, i + 0.5, text, ha="left", va="center", fontsize=AXIS_FONT, family="monospace", gid=gid)

    widest = max((text_width(t, AXIS_FONT, 0.61) for _, t in lines), default=0.0)  # DejaVu Sans Mono: 0.6 em
    return Panel(max(width, widest), AXIS_FONT * 1.5 / 72 * max(1, len(lines)), draw, (0.5, 0.1, 0.25, 0.1))


def _aligned(rows: list[list[Panel]]) -> list[list[Panel]]:
    """Rows of panels whose columns line up: each panel's right margin widened to its column's widest."""
    from dataclasses import replace

    widths = [max(row[j].outer[0] for row in rows) for j in range(len(rows[0]))]
    return [
        [replace(p, margins=(*p.margins[:2], p.margins[2] + widths[j] - p.outer[0], p.margins[3])) for j, p in enumerate(row)]
        for row in rows
    ]


def conversion_figure(plan, region: Region | None = None, src_name: str = "A", dst_name: str = "B"):
    """Source and destination grids side by side with the plan's path; then the shuffle rounds,
    or the swizzle's bank map with the load's first register step highlighted."""
    from .plan.explain import affine_text, bit_names, vec_name

    a, b = plan.src, plan.dst
    pa, note_a = _grid_panels(a, region, f"source {src_name}", "src-")
    pb, note_b = _grid_panels(b, region, f"destination {dst_name}", "dst-")
    rows: list[list[Panel]] = _aligned([list(pair) for pair in zip(pa, pb, strict=True)])
    width = sum(p.outer[0] for p in rows[-1]) - 0.75
    lines = [("path", f"path: {plan.path} ({plan.why})")]
    if plan.costs:
        lines.append(("costs", "cost model: " + ", ".join(f"{k} {v:.0f}" for k, v in plan.costs)))
    d = plan.detail
    names = bit_names(a)
    if plan.path in ("noop", "registers"):
        lines.append(("perm", f"registers: out[j] = in[perm[j]], perm = {list(d.perm)}"))
        rows.append([_text_panel(lines, width)])
    elif plan.path == "shuffle":
        lines.append(("rounds", f"shuffle: {d.num_rounds} round(s), {d.shuffles} SHFL per thread"))
        lb = plan.target.lane_bits
        for r in d.rounds:
            lines.append(
                (
                    f"round-{r.index}",
                    (
                        f"round {r.index}: {r.op:<5} src_lane = {affine_text(r.src_lane, lb)}; "
                        f"send in[{affine_text(r.send_reg, lb)}]; recv out[{affine_text(r.recv_reg, lb)}]"
                    ),
                )
            )
        rows.append([_text_panel(lines, width)])
    else:
        sw = d.swizzle
        lines.append(
            (
                "swizzle",
                f"shared: swizzle {sw.name}, offset bit -> element: "
                + ", ".join(f"o{i}={vec_name(x, names)}" for i, x in enumerate(sw.columns)),
            )
        )
        lines.append(
            (
                "wavefronts",
                (
                    f"wavefronts: store {d.predicted_store_wavefronts} ({d.store.op}), "
                    f"load {d.predicted_load_wavefronts} ({d.load.op}); floor {d.floor_wavefronts}"
                ),
            )
        )
        rows.append([_text_panel(lines, width)])
        memory = memory_from_swizzle(d, a.outs)
        acc = access_step(memory, b, 0, plan.dtype.bytes, plan.target)
        bank_rows, _ = _bank_panels(
            memory,
            plan.dtype.bytes,
            None,
            acc,
            b.in_size("lane"),
            "shared memory (destination's register 0 highlighted)",
            "smem-",
        )
        rows += bank_rows
    title = (
        f"{src_name} -> {dst_name}: {'x'.join(map(str, a.shape))} {plan.dtype.name}, {plan.warps} warp(s) x "
        f"{plan.lanes} lanes, {plan.target.name}"
    )
    notes = [f"{side}: {note}" for side, note in ((src_name, note_a), (dst_name, note_b)) if note]
    return _compose(rows, title + (f"  [{'; '.join(notes)}]" if notes else ""))
