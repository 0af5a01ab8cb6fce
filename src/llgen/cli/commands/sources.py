"""Emitted text onto disk: the kernel and header texts of a plan, and writing them (one file, both forms beside
each other, or a folder) all or none. `llgen emit` and `llgen emit --ttgir` both write through here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import click

from llgen.core.errors import LlgenError
from llgen.core.files import is_folder, write_every


def sources(plan, forms: list[str], name: str, command: str, header_file: str | None = None) -> dict[str, str]:
    """The text of each form of ``plan`` under ``name``, the command line in each opening comment; a kernel
    written beside its header (``header_file``, else the header's own file name) includes it instead of
    repeating the conversion."""
    from llgen.emit import emit, file_names

    header = (header_file or file_names(plan, name)["header"]) if "header" in forms else None
    return {f: emit(plan, f, name, command=command, header_file=header if f == "kernel" else None) for f in forms}


@dataclass(frozen=True)
class Output:
    """Where and how `llgen emit` writes: -o (a file, a folder, or None: stdout; --ttgir needs a folder), the form
    (kernel, header or both), whether it may write over files, and --name (with --ttgir: the prefix of every name)."""

    path: str | None
    form: str
    force: bool
    name: str | None = None


def write_sources(plan, kinds, output: Output, command: str) -> None:
    """Emit ``plan`` as ``output.form`` (kernel, header or both) to stdout (no ``output.path``), a file, or a folder
    (an existing one, or a path ending in /); missing folders on the way are created, as `mkdir -p` would. Form both
    to a file writes the kernel there and its header beside it (``-o x.cu``: x.cu and x.cuh; HIP's ``-o x.hip``:
    x.hip and x.hip.h)."""
    from llgen.emit import default_name, file_names

    form, force = output.form, output.force
    name = output.name or default_name(plan, kinds=kinds)
    forms = ["kernel", "header"] if form == "both" else [form]
    if output.path is None:
        if form == "both":
            ks, hs = suffixes(plan)
            raise LlgenError(f"--form both writes two files: give -o NAME{ks} (its header is NAME{hs}) or a folder DIR/.")
        click.echo(sources(plan, forms, name, command)[form], nl=False)
        return
    out = Path(output.path)
    if is_folder(out) or output.path.endswith(("/", os.sep)):
        names = file_names(plan, name)
        texts = sources(plan, forms, name, command)
        write_all([(out / names[f], texts[f]) for f in forms], force, make_dirs=True)
    elif form == "both":
        paths = dict(zip(forms, beside(out, *suffixes(plan)), strict=True))
        texts = sources(plan, forms, name, command, header_file=paths["header"].name)
        write_all([(paths[f], texts[f]) for f in forms], force, make_dirs=True)
    else:
        write_all([(out, sources(plan, forms, name, command)[form])], force, make_dirs=True)


def suffixes(plan) -> tuple[str, str]:
    """The kernel's and the header's file suffix for ``plan``'s language: .cu and .cuh, or .hip and .hip.h."""
    from llgen.emit import file_names

    names = file_names(plan, "x")
    return names["kernel"].removeprefix("x"), names["header"].removeprefix("x")


def beside(kernel: Path, kernel_suffix: str, header_suffix: str) -> tuple[Path, Path]:
    """The kernel file ``-o`` names for --form both, and its header beside it (x.cu -> x.cuh)."""
    if not kernel.name.endswith(kernel_suffix) or kernel.name == kernel_suffix:
        raise LlgenError(
            f"-o '{kernel}' with --form both names the kernel file, so it must end in {kernel_suffix} (its header "
            f"goes beside it as NAME{header_suffix}), or be a folder DIR/."
        )
    return kernel, kernel.with_name(kernel.name.removesuffix(kernel_suffix) + header_suffix)


def write_all(files: list[tuple[Path, str]], force: bool, make_dirs: bool = False) -> None:
    """Write every (path, text) or none (llgen.core.files.write_every), naming each on stderr."""
    write_every(files, force=force, make_dirs=make_dirs)
    for path, text in files:
        click.echo(f"wrote {path} ({len(text.encode())} bytes)", err=True)
