"""``llgen swizzle`` and its table: the unswizzled, classic and optimal shared layouts of one conversion side by side,
with the wavefronts each access and the whole tile take, and each layout's offset bits."""

from __future__ import annotations

import sys

import click

from llgen.cli.commands.options import Flags, flags_asked, flags_pair, ttgir_module, whole_file
from llgen.cli.commands.swizzle_table import table
from llgen.core.errors import LlgenError


def swizzle_command(flags: Flags) -> None:
    """``llgen swizzle``: the table of one pair, of every ttg.convert_layout of --ttgir (exit status 1 when an op
    is skipped, unless --allow-skips), or with --family the shared layouts of that family the pair could share."""
    if whole_file(flags.ttgir):
        if flags.family is not None:
            raise LlgenError("--family lists the shared layouts of one pair: give --src and --dst with --ttgir.")
        from llgen.cli.commands.ttgir import swizzle_file

        sys.exit(swizzle_file(flags.ttgir, flags.allow_skips, flags_asked(flags)))
    pair = flags_pair(flags)
    if flags.family is not None:
        from llgen.cli.commands.swizzle_family import family_table

        click.echo(family_table(pair, flags.family, flags.dst, ttgir_module(flags.ttgir)))
        return
    click.echo(table(pair))
