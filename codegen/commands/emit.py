"""``llgen emit``'s output: the source texts of a plan, written to stdout, a file or a folder, never over a
file llgen did not produce unless --force, each written file named with its size on stderr."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..errors import LlgenError
from ..files import check_overwrite, is_folder, write_atomic


def sources(plan, forms: list[str], name: str, command: str) -> dict[str, str]:
    """The text of each form of ``plan`` under ``name``, the command line in each opening comment; a kernel
    written beside its header includes it instead of repeating the conversion."""
    from ..emit import emit, file_names

    header = file_names(plan, name)["header"] if "header" in forms else None
    return {f: emit(plan, f, name, command=command, header_file=header if f == "kernel" else None) for f in forms}


def write_sources(plan, kinds, form: str, output: str | None, name: str | None, force: bool, command: str) -> None:
    """Emit ``plan`` as ``form`` (kernel, header or both) to stdout (no ``output``), a file, or a folder
    (an existing one, a path ending in /, or any path with form both)."""
    from ..emit import default_name, file_names

    name = name or default_name(plan, kinds=kinds)
    forms = ["kernel", "header"] if form == "both" else [form]
    texts = sources(plan, forms, name, command)
    if output is None:
        if form == "both":
            raise LlgenError("--form both writes two files: give a folder with -o DIR/.")
        click.echo(texts[form], nl=False)
        return
    out = Path(output)
    if is_folder(out) or output.endswith(("/", os.sep)) or form == "both":
        names = file_names(plan, name)
        write_all([(out / names[f], texts[f]) for f in forms], force, make_dirs=True)
    else:
        write_all([(out, texts[form])], force)


def write_all(files: list[tuple[Path, str]], force: bool, make_dirs: bool = False) -> None:
    """Write every (path, text), each checked against --force before any is written; name each on stderr."""
    for path, _ in files:
        check_overwrite(path, force)
    for path, text in files:
        write_atomic(path, text, make_dirs=make_dirs)
        click.echo(f"wrote {path} ({len(text.encode())} bytes)", err=True)
