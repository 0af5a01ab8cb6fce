"""Memory layouts as shared memory banks, with one warp access highlighted."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.target import Target, target
from llgen.show.cells import _cells, _grid_axes, _labels, _overview_side, _panel_title, _window_box, lane_hue
from llgen.show.figure import TITLED, Panel, _compose
from llgen.show.grid import images
from llgen.show.inputs import LABEL_CELLS, Region, _clip_region, is_memory
from llgen.show.text import AXIS_FONT, FONT, label_cell

BANK_MODEL = target("sm_90")  # banks, bank width and phases: the planner's model (the same 32 x 4 bytes on every target)
BANKS = BANK_MODEL.banks
BANK_BYTES = BANK_MODEL.bank_bytes
SEGMENT_BYTES = BANK_MODEL.wavefront_bytes
PAD_COLOUR = (0.85, 0.85, 0.85)  # a padded buffer's padding


@dataclass(frozen=True)
class AccessStep:
    """One warp access into a memory layout: per lane its element offset (None: not stored)."""

    offsets: tuple[int | None, ...]
    banks: dict[int, int]  # bank -> threads landing on it
    words: dict[int, int]  # bank -> distinct 4-byte words touched in it (in one phase, where there are several)
    wavefronts: int  # the most distinct words in one bank, summed over the phases
    moved: tuple[tuple[int, int], ...] = ()  # (offset, lane) of every element, where a lane moves several (a vector)
    unit: str = "one element per thread"  # what a thread moves, for the bars' title
    phases: int = 1  # the wavefronts a conflict-free access takes

    def lane_of(self) -> dict[int, int]:
        """Element offset -> the lane that moves it."""
        if self.moved:
            return dict(self.moved)
        return {o: lane for lane, o in enumerate(self.offsets) if o is not None}


@dataclass(frozen=True)
class WarpAccess:
    """One warp access a bank map highlights: warp 0 of the distributed ``layout`` at register ``step``, its
    wavefronts counted by ``target``'s model (its phases of lanes)."""

    layout: LinearLayout
    step: int = 0
    target: Target = BANK_MODEL


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
    from llgen.core.layout import unflatten

    return ",".join(str(v) for v in unflatten(flat, outs))


def _bank_colours(flat, n_last: int):
    """The pale colour of each element (numpy array of flat indices) by its last-dim coordinate."""
    import numpy as np
    from matplotlib.colors import hsv_to_rgb

    hue = (flat & ((1 << n_last) - 1)) / (1 << n_last) if n_last else flat * 0.0
    return hsv_to_rgb(np.stack([hue, np.full(hue.shape, 0.22), np.full(hue.shape, 0.99)], axis=-1))


def _faded(rgb):
    return 0.75 + 0.25 * rgb


@dataclass(frozen=True)
class BankBuffer:
    """A buffer as a bank map draws it: its memory layout, its element size and, for a padded buffer, ``slots``: the
    flat element at each element slot of the buffer, -1 for padding (None: the memory layout's own offsets)."""

    memory: LinearLayout
    elem_bytes: int
    slots: object = None


def _bank_panels(
    buf: BankBuffer, region: Region | None, acc: AccessStep | None, lanes: int, title: str = "", ids: str = ""
) -> tuple[list[list[Panel]], str]:
    """The bank map of ``buf`` (segments down, banks across) as panel rows: labelled, or when it has more than
    ``LABEL_CELLS`` elements an overview with a labelled window of it (the segments an access touches, else
    the first ones); under it, with an access, the threads per bank."""
    import numpy as np

    memory, elem_bytes, slots = buf.memory, buf.elem_bytes, buf.slots
    elems = images(memory) if slots is None else slots
    n_off = len(elems)
    per_bank = max(1, BANK_BYTES // elem_bytes)  # elements in a bank word
    rows = max(1, -(-n_off * elem_bytes // SEGMENT_BYTES))
    elems = np.concatenate([elems, np.full(rows * SEGMENT_BYTES // elem_bytes - n_off, -1, dtype=np.int64)])
    reg = _clip_region(region, rows, BANKS, "bank map")
    r0, r1, c0, c1 = reg
    per_segment = max(1, (c1 - c0) * BANK_BYTES // elem_bytes)  # elements a segment shows
    lane_of = acc.lane_of() if acc else {}
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
            if flat < 0:
                colour, edge, label = PAD_COLOUR, "white", "pad"
            else:
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
        img = np.where((elems[cell] < 0)[..., None], np.array(PAD_COLOUR), _bank_colours(elems[cell], n_last))
        if acc:
            lit = np.full(len(elems) + per_bank, -1)
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
            if acc.phases > 1:
                ways = f"{acc.wavefronts / acc.phases:g}-way conflict" if acc.wavefronts > acc.phases else "conflict-free"
                verdict = f"{ways} in {acc.phases} phases of lanes (red: banks with several words in one phase)"
            else:
                verdict = (
                    "conflict-free" if acc.wavefronts <= 1 else f"{acc.wavefronts}-way conflict (red: banks with several words)"
                )
            ax.set_title(
                f"threads per bank, {acc.unit}: {acc.wavefronts} wavefront(s), {verdict}",
                fontsize=AXIS_FONT,
                loc="left",
                pad=3,
                color="#d62728" if acc.wavefronts > acc.phases else "black",
            )

        panels.append([Panel(width, 0.8, draw_hits, (0.55, 0.1, 0.25, 0.3))])
    return panels, note


def bank_map_figure(
    memory: LinearLayout, elem_bytes: int, access: WarpAccess | None = None, region: Region | None = None, name: str = ""
):
    """The bank map of a memory layout; with ``access``, that warp access highlighted and the threads per bank drawn
    under it."""
    if not is_memory(memory):
        raise LlgenError("a bank map needs a memory layout (in-dim 'offset'), and this is a distributed layout.")
    acc = access_step(memory, access.layout, access.step, elem_bytes, access.target) if access is not None else None
    lanes = access.layout.in_size("lane") if access is not None else 32
    panels, note = _bank_panels(BankBuffer(memory, elem_bytes), region, acc, lanes)
    title = f"{name + ': ' if name else ''}{1 << memory.in_bits('offset')} elements of {elem_bytes} B in {BANKS} banks"
    if acc:
        title += f"; access at register step {access.step}"
    return _compose(panels, title + (f"  [{note}]" if note else ""))
