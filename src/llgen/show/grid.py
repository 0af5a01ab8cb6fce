"""Distributed layouts as the tensor grid: which thread and register owns each cell."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.show.cells import _cells, _grid_axes, _labels, _overview_side, _panel_title, _window_box, thread_colour
from llgen.show.figure import PLAIN, TITLED, Panel, _compose
from llgen.show.inputs import LABEL_CELLS, WINDOW, Region, _clip_region, _grid_dims, is_memory
from llgen.show.text import label_cell


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
