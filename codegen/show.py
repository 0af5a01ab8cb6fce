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

Large tensors: at most ``LABEL_CELLS`` cells carry labels (beyond that the cells are one raster
image and the picture says labels were omitted); more than ``MAX_CELLS`` cells need ``region``.

For counting (tests, tooling), SVG elements carry ids: ``cells`` (one path per drawn cell),
``cells-image`` (the raster when unlabelled), ``lbl-<row>-<col>`` (a cell label),
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

LABEL_CELLS = 1024  # cells drawn with labels; beyond: a raster image without labels
MAX_CELLS = 128 * 128  # cells drawn at all without --region
DPI = 100
FORMATS = (".svg", ".png")
BANK_MODEL = target("sm_90")  # banks, bank width and phases: the planner's model (the same 32 x 4 bytes on every target)
BANKS = BANK_MODEL.banks
BANK_BYTES = BANK_MODEL.bank_bytes
SEGMENT_BYTES = BANK_MODEL.wavefront_bytes
FONT = 6.0

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
@dataclass(frozen=True)
class Panel:
    """An axes of ``w`` x ``h`` inches with margins (left, bottom, right, top) around it."""

    w: float
    h: float
    draw: Callable
    margins: tuple[float, float, float, float] = (0.5, 0.3, 0.2, 0.5)

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
    from matplotlib.figure import Figure

    title_h = 0.35 if title else 0.0
    width, height = figure_size(rows)
    height += title_h
    fig = Figure(figsize=(width, height), dpi=DPI)
    fig.patch.set_facecolor("white")
    if title:
        fig.text(0.5 / width, 1 - 0.22 / height, title, fontsize=9, ha="left", va="center", gid="title")
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
    return fig


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


def _grid_axes(ax, region: Region, row_name: str = "row", col_name: str = "col") -> None:
    r0, r1, c0, c1 = region
    ax.set_xlim(c0, c1)
    ax.set_ylim(r1, r0)
    ax.set_aspect("auto")
    ax.xaxis.tick_top()
    for axis, lo, hi in ((ax.xaxis, c0, c1), (ax.yaxis, r0, r1)):
        n = hi - lo
        step = 1 if n <= 32 else 8 if n <= 128 else 32
        ticks = list(range(lo, hi, step))
        axis.set_ticks([t + 0.5 for t in ticks])
        axis.set_ticklabels([str(t) for t in ticks], fontsize=FONT)
    ax.tick_params(length=0, pad=2)
    ax.set_xlabel(col_name, fontsize=FONT + 1, labelpad=2)
    ax.xaxis.set_label_position("top")
    ax.set_ylabel(row_name, fontsize=FONT + 1, labelpad=2)
    for s in ax.spines.values():
        s.set_linewidth(0.5)


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


def _cell_size(rows: int, cols: int, labelled: bool, label_w: float = 0.46, label_h: float = 0.26) -> tuple[float, float]:
    if labelled:
        return label_w, label_h
    side = min(0.3, 9.0 / max(rows, cols))
    return side, side


# ---------------------------------------------------------------------- distributed layouts
@dataclass(frozen=True)
class Ownership:
    """Per flat logical index: the lowest hardware slot that holds it and how many do."""

    first: dict[int, int]
    copies: int  # slots per element (the same for every element of a linear layout's image)


def ownership(layout: LinearLayout) -> Ownership:
    import numpy as np

    n = layout.total_in_bits
    if n > 22:
        raise LlgenError(f"the layout has {1 << n} hardware slots, too many to draw.")
    x = np.arange(1 << n, dtype=np.int64)
    y = np.zeros_like(x)
    for j, c in enumerate(layout.cols):
        if c:
            y ^= ((x >> j) & 1) * c
    vals, idx = np.unique(y, return_index=True)
    first = dict(zip(vals.tolist(), idx.tolist(), strict=True))
    return Ownership(first, (1 << n) // len(vals))


def _split_in(layout: LinearLayout, x: int) -> dict[str, int]:
    out = {}
    for name, k in layout.ins:
        out[name] = x & ((1 << k) - 1)
        x >>= k
    return out


def _grid_panel(layout: LinearLayout, region: Region | None, title: str = "", ids: str = "") -> tuple[Panel, str]:
    """The tensor grid of a distributed layout as a panel, and a note on what was left out."""
    if is_memory(layout):
        raise LlgenError("this is a memory layout: draw it as a bank map (without --src/--dst), not as a thread grid.")
    rows, cols = _grid_dims(layout)
    reg = _clip_region(region, rows, cols, "tensor")
    r0, r1, c0, c1 = reg
    nr, nc = r1 - r0, c1 - c0
    labelled = nr * nc <= LABEL_CELLS
    own = ownership(layout)
    lanes, warps = layout.in_size("lane"), layout.in_size("warp")
    two_lines = warps > 1
    cw, ch = _cell_size(nr, nc, labelled, label_h=0.34 if two_lines else 0.26)
    note = "" if labelled else f"labels omitted beyond {LABEL_CELLS} cells: use --region for labels"
    if own.copies > 1:
        note = "; ".join(x for x in (note, f"each element is held by {own.copies} slots (+{own.copies - 1} replicas)") if x)

    def draw(ax) -> None:
        import numpy as np

        _grid_axes(ax, reg, "/".join(n for n, _ in layout.outs[:-1]) or "row", layout.outs[-1][0])
        if title:
            ax.set_title(title, fontsize=FONT + 2, pad=14, loc="left")
        if not labelled:
            img = np.ones((nr, nc, 3))
            for r in range(nr):
                for c in range(nc):
                    x = own.first.get((r0 + r) * cols + c0 + c)
                    if x is not None:
                        h = _split_in(layout, x)
                        img[r, c] = thread_colour(h.get("lane", 0), lanes, h.get("warp", 0), warps)
            im = ax.imshow(img, extent=(c0, c1, r1, r0), interpolation="nearest", aspect="auto")
            im.set_gid(f"{ids}cells-image")
            return
        rects, colours = [], []
        texts = []
        for r in range(r0, r1):
            for c in range(c0, c1):
                x = own.first.get(r * cols + c)
                if x is None:
                    continue
                h = _split_in(layout, x)
                rects.append((c, r, 1, 1))
                colours.append(thread_colour(h.get("lane", 0), lanes, h.get("warp", 0), warps))
                label = f"T{h.get('lane', 0)}:R{h.get('register', 0)}"
                if own.copies > 1:
                    label += f" +{own.copies - 1}"
                if two_lines:
                    label += f"\nW{h.get('warp', 0)}"
                texts.append((c, r, label))
        _cells(ax, rects, colours, gid=f"{ids}cells")
        size = FONT - (1.0 if own.copies > 1 else 0.0)
        for c, r, label in texts:
            ax.text(c + 0.5, r + 0.5, label, ha="center", va="center", fontsize=size, gid=f"{ids}lbl-{r}-{c}", linespacing=1.0)

    return Panel(nc * cw, nr * ch, draw), note


def _spec_title(layout: LinearLayout, name: str) -> str:
    dims = "x".join(str(s) for s in layout.shape)
    hw = ", ".join(f"{n} {1 << k}" for n, k in layout.ins if k)
    return f"{name + ': ' if name else ''}{dims} ({hw})"


def layout_figure(layout: LinearLayout, region: Region | None = None, name: str = ""):
    """The tensor grid of a distributed layout, cells coloured and labelled by thread."""
    panel, note = _grid_panel(layout, region)
    return _compose([[panel]], _spec_title(layout, name) + (f"  [{note}]" if note else ""))


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


def _bank_panels(
    memory: LinearLayout,
    elem_bytes: int,
    region: Region | None,
    acc: AccessStep | None,
    lanes: int,
    title: str = "",
    ids: str = "",
) -> tuple[list[list[Panel]], str]:
    n_off = 1 << memory.in_bits("offset")
    per_row = max(1, SEGMENT_BYTES // elem_bytes)
    rows = max(1, n_off // per_row)
    cols_units = BANKS  # columns are banks; a cell spans elem_bytes / 4 banks
    reg = _clip_region(region, rows, cols_units, "bank map")
    r0, r1, c0, c1 = reg
    cells_drawn = max(1, (r1 - r0) * (c1 - c0) * BANK_BYTES // elem_bytes)
    labelled = cells_drawn <= LABEL_CELLS
    ncols_units = c1 - c0
    cw = 0.46 if labelled else min(0.3, 9.0 / max(r1 - r0, ncols_units))
    cw *= max(1, BANK_BYTES // elem_bytes) if labelled else 1
    ch = (0.34 if acc else 0.24) if labelled else cw
    n_last = memory.outs[-1][1] if memory.outs else 0
    lane_of = {o: lane for lane, o in enumerate(acc.offsets) if o is not None} if acc else {}
    note = "" if labelled else f"labels omitted beyond {LABEL_CELLS} cells: use --region for labels"
    width_units = elem_bytes / BANK_BYTES

    def base_colour(flat: int) -> tuple[float, float, float]:
        col = flat & ((1 << n_last) - 1)
        return colorsys.hsv_to_rgb(col / (1 << n_last) if n_last else 0, 0.22, 0.99)

    def faded(rgb):
        return tuple(0.75 + 0.25 * c for c in rgb)

    def draw(ax) -> None:
        import numpy as np

        _grid_axes(ax, reg, "segment (128 B)", "bank")
        if title:
            ax.set_title(title, fontsize=FONT + 2, pad=14, loc="left")
        if not labelled:
            img = np.ones((r1 - r0, c1 - c0, 3))
            for o in range(n_off):
                seg, x = divmod(o * elem_bytes, SEGMENT_BYTES)
                if not r0 <= seg < r1:
                    continue
                colour = base_colour(memory.apply_flat(o))
                if acc:
                    colour = thread_colour(lane_of[o], lanes, 0, 1) if o in lane_of else faded(colour)
                for bank in range(x // BANK_BYTES, (x + max(elem_bytes, BANK_BYTES)) // BANK_BYTES):
                    if c0 <= bank < c1:
                        img[seg - r0, bank - c0] = colour
            im = ax.imshow(img, extent=(c0, c1, r1, r0), interpolation="nearest", aspect="auto")
            im.set_gid(f"{ids}cells-image")
            return
        rects, colours, edges, texts = [], [], [], []
        for o in range(n_off):
            seg, x = divmod(o * elem_bytes, SEGMENT_BYTES)
            xb = x / BANK_BYTES
            if not (r0 <= seg < r1 and c0 <= xb < c1):
                continue
            flat = memory.apply_flat(o)
            colour = base_colour(flat)
            edge = "white"
            label = _coord_label(flat, memory.outs)
            if acc:
                if o in lane_of:
                    colour = colorsys.hsv_to_rgb(lane_hue(lane_of[o], lanes), 0.75, 0.95)
                    edge = "black"
                    label += f"\nT{lane_of[o]}"
                else:
                    colour = faded(colour)
            rects.append((xb, seg, width_units, 1))
            colours.append(colour)
            edges.append(edge)
            texts.append((xb, seg, x // elem_bytes, label))
        _cells(ax, rects, colours, gid=f"{ids}cells", edges=edges, lw=0.4)
        for xb, seg, k, label in texts:
            ax.text(
                xb + width_units / 2,
                seg + 0.5,
                label,
                ha="center",
                va="center",
                fontsize=FONT - 1,
                gid=f"{ids}lbl-{seg}-{k}",
                linespacing=1.0,
            )
        for b in range(c0 + 1, c1):
            ax.axvline(b, color="#888888", lw=0.3)

    width = ncols_units * cw
    panels = [[Panel(width, (r1 - r0) * ch, draw)]]
    if acc:

        def draw_hits(ax) -> None:
            from matplotlib.patches import Rectangle

            top = max(acc.banks.values(), default=1)
            ax.set_xlim(c0, c1)
            ax.set_ylim(0, top + 0.8)
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
                    fontsize=FONT - 1,
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
                fontsize=FONT + 1,
                loc="left",
                pad=3,
                color="#d62728" if acc.wavefronts > 1 else "black",
            )

        panels.append([Panel(width, 0.7, draw_hits, (0.5, 0.1, 0.2, 0.25))])
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
            ax.set_title(title, fontsize=FONT + 2, pad=16, loc="left")
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
            ax.text(-0.3, i + 0.5, r, ha="right", va="center", fontsize=FONT + 1, gid=f"row-{r}")
        for j, c in enumerate(cols):
            ax.text(
                j + 0.5,
                -0.3,
                c,
                ha="center",
                va="bottom",
                fontsize=FONT + 1,
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
            ax.text(0, i + 0.5, text, ha="left", va="center", fontsize=FONT + 1, family="monospace", gid=gid)

    chars = max((len(t) for _, t in lines), default=0)
    return Panel(max(width, chars * (FONT + 1) * 0.62 / 72), 0.17 * max(1, len(lines)), draw, (0.5, 0.1, 0.2, 0.1))


def conversion_figure(plan, region: Region | None = None, src_name: str = "A", dst_name: str = "B"):
    """Source and destination grids side by side with the plan's path; then the shuffle rounds,
    or the swizzle's bank map with the load's first register step highlighted."""
    from .plan.explain import affine_text, bit_names, vec_name

    a, b = plan.src, plan.dst
    pa, note_a = _grid_panel(a, region, f"source {src_name}", "src-")
    pb, _ = _grid_panel(b, region, f"destination {dst_name}", "dst-")
    width = pa.outer[0] + pb.outer[0] - 0.7
    lines = [("path", f"path: {plan.path} ({plan.why})")]
    if plan.costs:
        lines.append(("costs", "cost model: " + ", ".join(f"{k} {v:.0f}" for k, v in plan.costs)))
    rows: list[list[Panel]] = [[pa, pb]]
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
            None if _bank_fits(memory, plan.dtype.bytes) else (0, 16, 0, -1),
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
    return _compose(rows, title + (f"  [{note_a}]" if note_a else ""))


def _bank_fits(memory: LinearLayout, elem_bytes: int) -> bool:
    return (1 << memory.in_bits("offset")) * elem_bytes // BANK_BYTES <= MAX_CELLS
