"""Figures built from panels of fixed sizes in inches, grown to fit their text, and saved deterministically."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llgen.core.files import write_atomic
from llgen.show.inputs import check_output
from llgen.show.text import TITLE_FONT, TITLE_WIDTH, text_width, wrap

DPI = 100


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
