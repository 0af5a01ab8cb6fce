"""``llgen emit``: one conversion's kernel or header (written by llgen.commands.sources), or with --ttgir one header
per distinct op of the file (llgen.commands.ttgir)."""

from __future__ import annotations

import sys

import click

from ..errors import LlgenError


def emit_command(
    src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, path_, smem_budget, objective, allow_skips, form, output,
    name, force, explain,
) -> None:  # fmt: skip
    """``llgen emit``: the sources of one conversion, or with --ttgir and no --src/--dst one header per distinct
    ttg.convert_layout of the file (exit status 1 when an op is skipped, unless --allow-skips)."""
    from ..cliapp import command_line
    from ..names import check_identifier
    from .options import objective_option, pair_from, tpw, warn_registers, whole_file
    from .sources import write_sources

    if output is not None and not output.strip():
        raise LlgenError("-o is empty: give a file or a folder.")
    if whole_file(ttgir):
        from .ttgir import emit_file

        if name is not None:
            raise LlgenError("--name names one conversion; with --ttgir each header is named from its op's location.")
        code = emit_file(
            ttgir,
            output,
            form or "header",
            force,
            command_line(),
            allow_skips,
            warps,
            tpw(threads_per_warp),
            target,
            path_,
            smem_budget,
            **objective_option(objective),
        )
        sys.exit(code)
    if name is not None:
        check_identifier(name)
    pair = pair_from(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, shared_ok=True)
    plan = pair.plan(path_, smem_budget, **objective_option(objective))
    if explain:
        click.echo(plan.explain(), err=True)
    if not pair.shared:
        warn_registers(plan)
    write_sources(plan, pair.kinds, form or "kernel", output, name, force, command_line())
