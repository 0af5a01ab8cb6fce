"""``llgen plan``: how one conversion moves (path, registers, C = B^-1 A, rounds, swizzle, widths, wavefronts), as text
or JSON; or with --ttgir and no --src/--dst, every ttg.convert_layout of the file and its plan."""

from __future__ import annotations

import json
import sys

import click

from llgen.cli.commands.options import PairSpec, asked, pair_from, plan_options, warn_registers, whole_file
from llgen.plan.request import plan_pair


def plan_command(
    src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, path_, smem_budget, objective, allow_skips, as_json
) -> None:  # fmt: skip
    options = plan_options(path_, smem_budget, objective)
    if whole_file(ttgir):
        from llgen.cli.commands.ttgir import plan_file

        sys.exit(plan_file(ttgir, as_json, allow_skips, asked(warps, threads_per_warp, target), options))
    pair = pair_from(PairSpec(src, dst, shape, dtype, asked(warps, threads_per_warp, target), ttgir), shared_ok=True)
    p = plan_pair(pair, options)  # an endpoint's where one side is shared
    click.echo(json.dumps(p.to_json()) if as_json else p.explain())
    if not pair.shared:
        warn_registers(p)
