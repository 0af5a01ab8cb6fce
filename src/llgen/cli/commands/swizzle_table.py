"""`llgen swizzle`'s table for one pair: unswizzled, classic and optimal shared layouts side by side with their
wavefronts, then the plan's own where one side widens its accesses. `llgen swizzle` and `--ttgir` print it."""

from __future__ import annotations

from llgen.core.options import Options
from llgen.plan.explain import bit_names, vec_name
from llgen.plan.packed import byte_plan
from llgen.plan.request import plan_pair


def table(pair) -> str:
    """The table of ``pair`` (llgen.spec.pair.Pair): the three layouts at the access width both sides share; then
    the plan's own, where one side's registers widen its accesses (docs/design.md §6.1). A 4-bit pair's are its
    byte plan's (llgen.plan.packed), its packing said first."""
    plans = [
        byte_plan(plan_pair(pair, Options(path="shared", swizzle=sw, matrix=False, one_sided=False)))
        for sw in ("unswizzled", "classic", "optimal")
    ]
    labels = [p.detail.swizzle.name for p in plans]
    planned = plan_pair(pair, Options(path="shared", matrix=False))
    widened = byte_plan(planned)
    if widened.detail.swizzle.columns != plans[-1].detail.swizzle.columns:
        plans.append(widened)
        labels.append("optimal, one side widened (the plan)")
    lines = [planned.bytes_line()] if planned.kind == "packed" else []
    lines.append(f"{'layout':44} {'st/access':>9} {'ld/access':>9} {'st total':>8} {'ld total':>8}")
    formulas = []
    for label, p in zip(labels, plans, strict=True):
        d = p.detail
        lines.append(
            f"{label:44} {d.store.wavefronts_per_instr:>9} {d.load.wavefronts_per_instr:>9} "
            f"{d.predicted_store_wavefronts:>8} {d.predicted_load_wavefronts:>8}"
        )
        names = bit_names(p.src)
        formula = ", ".join(f"o{i}={vec_name(c, names)}" for i, c in enumerate(d.swizzle.columns))
        formulas.append(f"{label}: offset bit -> element: {formula}")
    return "\n".join([*lines, "", *formulas])
