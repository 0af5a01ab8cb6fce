"""A shared-memory endpoint (plan/endpoint.py, a store or a load): the distributed layout D's threads over
the tile (and, for a two-step plan, the staging layout Q the shared access runs in), the plan in words, and S's bank
map with one instruction of warp 0 highlighted, each phase of lanes that shares a wavefront listed under it.

The highlighted instruction is the plan's own: its addresses (Side.thread_offset, each instruction's constants) and its
phases and wavefronts come from the planner's model (plan.endpoint.instruction_phases, the byte addresses after any padding), so
the picture shows what `llgen plan` counts. A vector lights the elements each lane moves; an ldmatrix/stmatrix lights
the 16-byte rows lanes 8m..8m+7 address for matrix m, the instruction tile. A padded S is drawn as its buffer, the
padding grey, since the padding is what moves the banks.
"""

from __future__ import annotations

from llgen.show.banks import BANK_BYTES, BANKS, AccessStep, BankBuffer, _bank_panels
from llgen.show.conversion import _aligned, _text_panel
from llgen.show.figure import Panel, _compose
from llgen.show.grid import _grid_panels
from llgen.show.inputs import Region


def instruction_text(plan) -> str:
    """The instruction and its tile, in words."""
    side, eb = plan.side, plan.dtype.bytes
    count = f"{len(side.instrs)} x "
    if side.matrices:
        base, _, trans = side.op.partition(".")
        return (
            f"{count}{base}.x{side.matrices}{'.' + trans if trans else ''} per thread: {side.matrices} 8x8 matrices of "
            f"16-byte rows, lanes 8m..8m+7 address the rows of matrix m, {side.width} element(s) a thread"
        )
    return f"{count}{side.op} per thread, {side.width} element(s) = {side.width * eb} bytes each"


def _rows_of(plan, step: int) -> tuple[list[list[tuple[int, int]]], list[tuple[int, int]]]:
    """Instruction ``step`` of warp 0: its phases as the planner counts them (lists of (byte address, bytes)), and
    (element slot of S's buffer, lane) of every element it moves."""
    from llgen.plan.endpoint import instruction_phases

    side, eb, tgt = plan.side, plan.dtype.bytes, plan.target
    ins = side.instrs[step]
    pad = plan.buffer.pad
    phases = instruction_phases(side, ins, 0, plan.banking)
    base = [(side.thread_offset.value(lane) ^ ins.xor_const) + ins.add_const for lane in range(tgt.lanes)]
    if side.matrices:  # lane 8m + i addresses row i of matrix m: 16 bytes
        per, lanes = 16 // eb, range(8 * side.matrices)
    else:
        per, lanes = len(ins.regs), range(tgt.lanes)
    moved = {pad(base[lane] + k): lane for lane in lanes for k in range(per)}
    return phases, sorted(moved.items())


def _access(plan, step: int) -> tuple[AccessStep, list[str]]:
    """The highlighted instruction as the bank map draws it, and one line per phase."""
    from llgen.plan.endpoint import phase_wavefronts

    tgt = plan.target
    phases, moved = _rows_of(plan, step)
    banks: dict[int, set[int]] = {}
    words: dict[int, int] = {}
    lines = []
    lane = 0
    for p, phase in enumerate(phases):
        per_bank: dict[int, set[int]] = {}
        for i, (addr, n) in enumerate(phase):
            for w in range(addr // BANK_BYTES, (addr + n - 1) // BANK_BYTES + 1):
                banks.setdefault(w % BANKS, set()).add(lane + i)
                per_bank.setdefault(w % BANKS, set()).add(w)
        for b, ws in per_bank.items():
            words[b] = max(words.get(b, 0), len(ws))
        wf = phase_wavefronts(phase, tgt)
        busy = sorted(b for b, ws in per_bank.items() if len(ws) > 1)
        lines.append(
            f"phase {p}: lanes {lane}-{lane + len(phase) - 1}, {phase[0][1]} bytes each -> {wf} wavefront(s)"
            + (f"; banks {', '.join(map(str, busy))} hold several words" if busy else "")
        )
        lane += len(phase)
    each = plan.access_bytes if not plan.side.matrices else 16
    acc = AccessStep(
        offsets=(),
        banks={b: len(ls) for b, ls in banks.items()},
        words=words,
        wavefronts=sum(phase_wavefronts(ph, tgt) for ph in phases),
        moved=tuple(moved),
        unit=f"{each} bytes a {'row' if plan.side.matrices else 'thread'}",
        phases=len(phases),
    )
    return acc, lines


def _plan_lines(plan) -> list[tuple[str, str]]:
    """The plan in words: path, instruction, L = S^-1 D, S's offset map, wavefronts against the floor, size and
    alignment; each line with an id."""
    from llgen.core.view import logical_bit_names
    from llgen.plan.endpoint_text import access_map
    from llgen.plan.explain import vec_name

    arrow = "registers D -> shared memory S" if plan.direction == "store" else "shared memory S -> registers D"
    names = logical_bit_names(plan.dist)
    who = "Q" if plan.staging is not None else "D"
    lmap = access_map(plan, plan.staging)
    lines = [
        ("path", f"path: {plan.path} ({arrow})"),
        ("instruction", "instruction: " + instruction_text(plan)),
        ("access-map", f"L = S^-1 {who} (each bit -> the element offset it moves by): "
         + "; ".join(f"{dim} {' '.join(map(str, offs))}" for dim, offs in lmap.items() if offs)),
        ("offset-map", "S: offset bit -> element: "
         + ", ".join(f"o{i}={vec_name(c, names)}" for i, c in enumerate(plan.shared.flat_cols("offset")))),
    ]  # fmt: skip
    pads = plan.buffer.intervals
    if pads:
        lines.append(("padding", "S's padding: " + ", ".join(f"+{p} elements every {i}" for i, p in pads)))
    if plan.staging is not None:
        lines.append(
            (
                "staging",
                f"two steps: the shared access runs in the staging layout Q (D's warps), converted "
                f"{'from' if plan.direction == 'store' else 'to'} D inside each warp by {plan.convert.path}",
            )
        )
    floor = f"floor {plan.floor}" + (f", above it: {plan.floor_reason}" if plan.floor_reason else " (at the floor)")
    lines.append(("wavefronts", f"wavefronts: {plan.wavefronts_per_access} per access, {plan.wavefronts} for the tile; {floor}"))
    lines.append(("smem", f"kSmemBytes {plan.smem_bytes}; kSmemAlign {plan.smem_align} ({plan.align_reason})"))
    return lines


def _padded_slots(plan):
    """A padded S's buffer: the flat element at each element slot, -1 for padding (None when S has no padding)."""
    import numpy as np

    from llgen.show.grid import images

    pad = plan.buffer.pad if plan.buffer.padded else None
    if not pad:
        return None
    slots = np.full(plan.smem_bytes // plan.dtype.bytes, -1, dtype=np.int64)
    elems = images(plan.shared)
    slots[[pad(o) for o in range(len(elems))]] = elems
    return slots


def endpoint_figure(plan, region: Region | None = None, step: int = 0):
    """D's grid (and Q's, for a two-step plan) over the tile; the plan in words; S's bank map with instruction
    ``step`` of warp 0 highlighted and its phases listed. An instruction the plan lacks is one sentence."""
    from llgen.core.errors import LlgenError

    n = len(plan.side.instrs)
    if not 0 <= step < n:
        raise LlgenError(f"--step {step} is outside the plan's {n} shared-memory instruction(s) a thread (0 to {n - 1}).")
    grids, notes = [], []
    sides = [(plan.dist, "registers D", "dist-")]
    if plan.staging is not None:
        sides.append((plan.staging, "staging layout Q (the shared access's)", "staging-"))
    for lay, title, ids in sides:
        panels, note = _grid_panels(lay, region, title, ids)
        grids.append(panels)
        if note:
            notes.append(f"{title.split(' (')[0]}: {note}")
    rows: list[list[Panel]] = _aligned([list(r) for r in zip(*grids, strict=True)])
    width = sum(p.outer[0] for p in rows[-1]) - 0.75
    acc, phase_lines = _access(plan, step)
    text = _plan_lines(plan)
    text.append(("step", f"highlighted: instruction {step} of {n}, warp 0; lanes that share a wavefront:"))
    text += [(f"phase-{i}", "  " + line) for i, line in enumerate(phase_lines)]
    rows.append([_text_panel(text, width)])
    buf = BankBuffer(plan.shared, plan.dtype.bytes, _padded_slots(plan))
    bank_rows, note = _bank_panels(buf, None, acc, plan.target.lanes, f"shared memory in S (instruction {step} lit)", "smem-")
    rows += bank_rows
    if note:
        notes.append(f"S: {note}")
    d = plan.dist
    title = (
        f"{plan.path}: {'x'.join(map(str, d.shape))} {plan.dtype.name}, {plan.warps} warp(s) x {plan.target.lanes} lanes, "
        f"{plan.target.name}"
    )
    return _compose(rows, title + (f"  [{'; '.join(notes)}]" if notes else ""))
