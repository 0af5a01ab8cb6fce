"""``llgen plan``: how one conversion moves (path, registers, C = B^-1 A, rounds, swizzle, widths, wavefronts), as text
or JSON; or with --ttgir and no --src/--dst, every ttg.convert_layout of the file and its plan."""

from __future__ import annotations

import json
import sys

import click

from llgen.cli.commands.options import Flags, flags_asked, flags_pair, plan_options, warn_registers, whole_file
from llgen.plan.request import plan_pair


def plan_command(flags: Flags) -> None:
    options = plan_options(flags.path_, flags.smem_budget, flags.objective, flags.pairing)
    if whole_file(flags.ttgir):
        from llgen.cli.commands.ttgir import plan_file

        sys.exit(plan_file(flags.ttgir, flags.as_json, flags.allow_skips, flags_asked(flags), options))
    pair = flags_pair(flags, shared_ok=True)
    p = plan_pair(pair, options)  # an endpoint's where one side is shared
    click.echo(json.dumps(p.to_json()) if flags.as_json else p.explain())
    if not pair.shared:
        warn_registers(p)
