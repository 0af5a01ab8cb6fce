"""A conversion: source and destination grids, the plan's path, and its shuffle rounds or bank map."""

from __future__ import annotations

from collections.abc import Sequence

from llgen.show.banks import BankBuffer, _bank_panels, access_step, memory_from_swizzle
from llgen.show.figure import Panel, _compose
from llgen.show.grid import _grid_panels
from llgen.show.inputs import Region
from llgen.show.text import AXIS_FONT, text_width


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
    from llgen.plan.explain import affine_text, bit_names, vec_name

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
            BankBuffer(memory, plan.dtype.bytes),
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


def steps_figure(steps: Sequence[tuple[str, object]], region: Region | None = None):
    """The layouts of a chain of shape ops (``llgen show SPEC --op ...``): the input and each op's result, each
    titled by the op that made it, side by side where each is one panel (a small tensor), else one under another."""
    drawn = [
        _grid_panels(lay, region, f"{label}: {'x'.join(map(str, lay.shape))}", f"step{i}-")
        for i, (label, lay) in enumerate(steps)
    ]
    if all(len(panels) == 1 for panels, _ in drawn):
        rows = _aligned([[panels[0] for panels, _ in drawn]])
    else:
        rows = [[p] for panels, _ in drawn for p in panels]
    notes = [f"{label}: {note}" for (label, _), (_, note) in zip(steps, drawn, strict=True) if note]
    title = " -> ".join(label for label, _ in steps)
    return _compose(rows, title + (f"  [{'; '.join(notes)}]" if notes else ""))
