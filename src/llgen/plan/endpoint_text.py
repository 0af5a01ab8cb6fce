"""A shared-endpoint plan (plan/endpoint.py) in words for ``llgen plan`` and as JSON: the same facts in both."""

from __future__ import annotations

from llgen.core import f2
from llgen.core.view import logical_bit_names as bit_names
from llgen.plan.chain import steps_of
from llgen.plan.explain import plural, vec_name


def access_map(plan, layout=None) -> dict[str, list[int]]:
    """L = S^-1 ∘ layout (D by default) by blocks: each register/lane/warp bit -> the element offset it moves by."""
    layout = plan.dist if layout is None else layout
    scols = list(plan.shared.flat_cols("offset"))
    inv = [f2.solve(scols, 1 << i) for i in range(len(scols))]
    return {dim: [f2.combine(c, inv) for c in layout.flat_cols(dim)] for dim in ("register", "lane", "warp")}


def instruction(plan) -> str:
    """``st.shared 128-bit``, ``stmatrix x4.trans``."""
    side = plan.side
    if side.matrices:
        base, _, trans = side.op.partition(".")
        return f"{base} x{side.matrices}" + (f".{trans}" if trans else "")
    return f"{side.op} {8 * plan.access_bytes}-bit"


def to_json(plan) -> dict:
    side = plan.side
    out = {
        "path": plan.path,
        "shape": dict(zip(plan.dist.out_names, plan.dist.shape, strict=True)),
        "dtype": plan.dtype.name,
        "target": plan.target.name,
        "warps": plan.warps,
        "distributed": plan.dist.to_dict(),
        "shared": plan.shared.to_dict(),
        "padding": [list(p) for p in plan.buffer.intervals],
        "access_map": access_map(plan),
        "instruction": {
            "op": side.op,
            "matrices": side.matrices,
            "elements": side.width,
            "bytes": plan.access_bytes,
            "per_thread": len(side.instrs),
            "predicate_warp_mask": side.predicate_warp_mask,
        },
        "register_copies": [list(c) for c in plan.copies],
        "wavefronts_per_access": plan.wavefronts_per_access,
        "wavefronts": plan.wavefronts,
        "floor": plan.floor,
        "floor_reason": plan.floor_reason,
        "kSmemBytes": plan.smem_bytes,
        "kSmemAlign": plan.smem_align,
        "cost": plan.cost,
    }
    if plan.staging is not None:
        out["staging"] = {
            "layout": plan.staging.to_dict(),
            "access_map": access_map(plan, plan.staging),
            "conversion": plan.convert.path,
            "conversion_steps": len(steps_of(plan.convert)),
            "conversion_cost": plan.convert_cycles,
            "pipe_floor": plan.pipe_floor,
        }
    return out


_STEP = {"two_step": "shuffles", "select": "selects"}  # what the in-warp step spends


def explain(plan) -> str:
    d, s = plan.dist, plan.shared
    names = bit_names(d)
    arrow = "registers -> shared memory" if plan.direction == "store" else "shared memory -> registers"
    lines = [
        f"conversion: {dict(zip(d.out_names, d.shape, strict=True))} {plan.dtype.name}, {plural(plan.warps, 'warp')} x "
        f"{plan.target.lanes} lanes, {plan.target.name}",
        f"path: {plan.path} ({arrow})",
        "D: "
        + "; ".join(
            f"{dim} {' '.join(vec_name(c, names) for c in d.flat_cols(dim)) or '-'}" for dim in ("register", "lane", "warp")
        ),
        "S: offset " + " ".join(vec_name(c, names) for c in s.flat_cols("offset")),
    ]
    pads = plan.buffer.intervals
    if pads:
        lines.append("   padding " + ", ".join(f"+{p} elements every {i}" for i, p in pads))
    lines += _map_lines("L = S^-1 D, by blocks (each D bit -> the element offset it moves by):", plan, d)
    side = plan.side
    staged = plan.staging is not None
    if staged:
        q = plan.staging
        lines.append(
            "two steps: Q: "
            + "; ".join(f"{dim} {' '.join(vec_name(c, names) for c in q.flat_cols(dim)) or '-'}" for dim in ("register", "lane"))
            + f"; D's warps ({plan.convert.path} D <-> Q inside each warp"
            + (f", {len(steps_of(plan.convert))} steps of one register <-> lane swap" if len(steps_of(plan.convert)) > 1 else "")
            + f", {plan.convert_cycles:.0f} cycles)"
        )
        if plan.form == "select":
            lines.append("  " + plan.convert.describe())
        lines += _map_lines("L = S^-1 Q:", plan, q)
    who = "Q" if staged else "D"
    lines.append(
        f"instruction: {len(side.instrs)} x {instruction(plan)} per thread, {plan.access_bytes} bytes each"
        + (f" ({who}'s broadcast warps skip the store)" if side.predicate_warp_mask else "")
    )
    if plan.copies:
        lines.append(f"  then {plural(len(plan.copies), 'register')} copied from their replicas")
    lines.append(f"wavefronts: {plan.wavefronts_per_access} per access, {plan.wavefronts} for the tile")
    lines.append(f"floor: {plan.floor}" + (f" (above it: {plan.floor_reason})" if plan.floor_reason else " (at the floor)"))
    if staged:
        lines.append(
            f"stated floor: {plan.pipe_floor:.0f} cycles, the wavefronts and the {_STEP[plan.form]} each on its own pipe "
            f"(the cost model adds them: {plan.cost:.0f})"
        )
    lines.append(f"kSmemBytes: {plan.smem_bytes}")
    lines.append(f"kSmemAlign: {plan.smem_align} ({plan.align_reason})")
    return "\n".join(lines)


def _map_lines(title: str, plan, layout) -> list[str]:
    out = [title]
    for dim, offs in access_map(plan, layout).items():
        if offs:
            out.append(f"  {dim:<8} " + " | ".join(str(o) for o in offs))
    return out
