"""``llgen swizzle`` and its table: the unswizzled, classic and optimal shared layouts of one conversion side by side,
with the wavefronts each access and the whole tile take, and each layout's offset bits."""

from __future__ import annotations

import sys

import click

from ..errors import LlgenError
from ..plan.explain import bit_names, vec_name
from .options import pair_from, tpw, ttgir_module, whole_file


def swizzle_command(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, allow_skips, family) -> None:
    """``llgen swizzle``: the table of one pair, of every ttg.convert_layout of --ttgir (exit status 1 when an op
    is skipped, unless --allow-skips), or with --family the shared layouts of that family the pair could share."""
    if whole_file(ttgir):
        if family is not None:
            raise LlgenError("--family lists the shared layouts of one pair: give --src and --dst with --ttgir.")
        from .ttgir import swizzle_file

        sys.exit(swizzle_file(ttgir, allow_skips, warps, tpw(threads_per_warp), target))
    pair = pair_from(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir)
    if family is not None:
        from .swizzle_family import family_table

        click.echo(family_table(pair, family, dst, ttgir_module(ttgir)))
        return
    click.echo(table(pair))


def table(pair) -> str:
    """The table of ``pair`` (llgen.spec.pair.Pair): the three layouts at the access width both sides share; then
    the plan's own, where one side's registers widen its accesses (docs/design.md §6.1)."""
    plans = [pair.plan("shared", swizzle=sw, matrix=False, one_sided=False) for sw in ("unswizzled", "classic", "optimal")]
    labels = [p.detail.swizzle.name for p in plans]
    widened = pair.plan("shared", matrix=False)
    if widened.detail.swizzle.columns != plans[-1].detail.swizzle.columns:
        plans.append(widened)
        labels.append("optimal, one side widened (the plan)")
    lines = [f"{'layout':44} {'st/access':>9} {'ld/access':>9} {'st total':>8} {'ld total':>8}"]
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
