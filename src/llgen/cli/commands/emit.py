"""``llgen emit``: one conversion's kernel or header (written by llgen.cli.commands.sources), a shared tile's header
(--then: its store and its load), or with --ttgir one header per distinct op of the file (llgen.cli.commands.emit_ttgir)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from llgen.cli.commands.options import Flags, PairSpec, flags_asked, flags_spec
from llgen.cli.commands.sources import Output
from llgen.core.errors import LlgenError
from llgen.core.files import is_folder
from llgen.core.options import Options
from llgen.plan.request import plan_endpoint, plan_pair


def emit_command(flags: Flags) -> None:
    """``llgen emit``: the sources of one conversion; with --then, the header of the shared tile --dst that --src
    stores into and --then loads from; with --ttgir and no --src/--dst, one header per distinct op of the file,
    named after the op (--name: a prefix for those names) (exit status 1 when an op is skipped, unless --allow-skips)."""
    from llgen.cli.app import command_line
    from llgen.cli.commands.options import pair_from, plan_options, warn_registers, whole_file
    from llgen.cli.commands.sources import write_sources
    from llgen.core.names import check_identifier

    if flags.output is not None and not flags.output.strip():
        raise LlgenError("-o is empty: give a file or a folder.")
    options = plan_options(flags.path_, flags.smem_budget, flags.objective, flags.pairing)
    if flags.name is not None:
        check_identifier(flags.name)
    if whole_file(flags.ttgir):
        from llgen.cli.commands.emit_ttgir import emit_ttgir

        if flags.then is not None:
            raise LlgenError(
                "--then needs --src and --dst (the tile's store); with --ttgir alone each allocation's store and load share a header."
            )
        where = Output(flags.output, flags.form or "header", flags.force, flags.name)
        code = emit_ttgir(flags.ttgir, where, command_line(), flags.allow_skips, flags_asked(flags), options)
        sys.exit(code)
    spec = flags_spec(flags)
    if flags.then is not None:
        if flags.form not in (None, "header"):
            raise LlgenError(
                "--then writes the tile's header (--form header); the check kernels are each side's: emit --src A --dst S "
                "and --src S --dst B with --form kernel."
            )
        # --objective picks among a conversion's paths; a tile's two endpoint plans have none to pick
        tile_options = plan_options(flags.path_, flags.smem_budget, pairing=flags.pairing)
        _emit_tile(
            spec, flags.then, tile_options, Output(flags.output, "header", flags.force, flags.name), flags.explain, command_line()
        )
        return
    pair = pair_from(spec, shared_ok=True)
    plan = plan_pair(pair, options)
    if flags.explain:
        click.echo(plan.explain(), err=True)
    if not pair.shared:
        warn_registers(plan)
    write_sources(plan, pair.kinds, Output(flags.output, flags.form or "kernel", flags.force, flags.name), command_line())


def _emit_tile(store: PairSpec, then: str, options: Options, output: Output, explain: bool, command: str) -> None:
    """``llgen emit --src A --dst S --then B``: the header of tile S, stored from registers in A (``store``: A to S) and
    loaded into registers in ``then`` (llgen.emit.tile), to stdout, a file or a folder."""
    from dataclasses import replace

    from llgen.cli.commands.options import pair_from, ttgir_module
    from llgen.cli.commands.sources import write_all
    from llgen.emit import default_name, emit, file_names
    from llgen.plan.tile import tile_plan
    from llgen.spec.facts import spec_facts

    stored = pair_from(store, shared_ok=True)
    if stored.shared != "dst":
        raise LlgenError(
            "--then names the registers a tile is loaded into: --dst must be the tile's shared layout and --src the "
            "registers stored into it (--src A --dst S --then B)."
        )
    module = ttgir_module(store.ttgir)
    if spec_facts(then, module.aliases if module is not None else None).kind == "shared":
        raise LlgenError("--then is a shared-memory layout; give the distributed (register) layout the tile is loaded into.")
    loaded = pair_from(replace(store, src=store.dst, dst=then), shared_ok=True)
    if (loaded.warps, loaded.target) != (stored.warps, stored.target):
        raise LlgenError(
            f"--src and --dst are {stored.warps} warps on {stored.target}, --then {loaded.warps} warps on "
            f"{loaded.target}: pass --warps and --target for both."
        )
    tile = tile_plan(plan_endpoint(stored, options), plan_endpoint(loaded, options))
    if explain:
        click.echo(tile.explain(), err=True)
    name = output.name or default_name(tile, (stored.kinds[0], loaded.kinds[1]))
    text = emit(tile, "header", name, command)
    if output.path is None:
        click.echo(text, nl=False)
        return
    out = Path(output.path)
    path = out / file_names(tile, name)["header"] if is_folder(out) or output.path.endswith(("/", os.sep)) else out
    write_all([(path, text)], output.force, make_dirs=True)
