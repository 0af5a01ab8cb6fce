"""``llgen toolchain [--env]``: the environment docs/vendoring.md's commands (and tests/test_guides.py, which runs
them) need: this llgen's bin folder and pip's nvcc on PATH, and the folder of pip's CUDA libraries on LIBRARY_PATH
(pip's nvcc links libcudart_static.a, which its own profile looks for in lib64, where the wheel has none)."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from llgen.core.errors import LlgenError


@dataclass(frozen=True)
class Toolchain:
    llgen_bin: Path  # the folder of the Python (and so of the llgen script) that runs this
    nvcc: Path
    libraries: Path | None  # the folder holding libcudart_static.a beside nvcc's, if any

    @property
    def path(self) -> list[str]:
        return list(dict.fromkeys([str(self.llgen_bin), str(self.nvcc.parent)]))

    @property
    def library_path(self) -> list[str]:
        return [str(self.libraries)] if self.libraries else []

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """``base`` (an os.environ) with PATH and LIBRARY_PATH extended in front."""
        out = dict(base)
        for name, first in (("PATH", self.path), ("LIBRARY_PATH", self.library_path)):
            out[name] = ":".join([*first, *filter(None, [base.get(name, "")])])
        return out

    def exports(self) -> list[str]:
        """``export NAME=...`` lines that put these folders in front of what the shell has."""
        lines = []
        for name, first in (("PATH", self.path), ("LIBRARY_PATH", self.library_path)):
            if first:
                lines.append(f'export {name}={shlex.quote(":".join(first))}"${{{name}:+:${name}}}"')
        return lines


def find_toolchain() -> Toolchain:
    """The toolchain llgen.runtime.toolchain finds (pip's nvidia-cuda-nvcc first, else an nvcc on PATH); an
    LlgenError saying how to install it where there is none."""
    from llgen.runtime.toolchain import ToolchainUnavailable, nvcc

    try:
        compiler = Path(nvcc())
    except ToolchainUnavailable:
        raise LlgenError(
            "no nvcc found: `make test` installs pip's CUDA toolchain into .venv (or pip install -e '.[dev]')."
        ) from None
    libs = next((d for d in (compiler.parent.parent / n for n in ("lib", "lib64")) if (d / "libcudart_static.a").exists()), None)
    return Toolchain(Path(sys.executable).parent, compiler, libs)


def toolchain_command(as_env: bool) -> None:
    tc = find_toolchain()
    if as_env:
        click.echo("\n".join(tc.exports()))
        return
    click.echo(f"llgen      {tc.llgen_bin / 'llgen'}")
    click.echo(f"nvcc       {tc.nvcc}")
    click.echo(f"libraries  {tc.libraries or '(none beside nvcc: its own profile finds them)'}")
    click.echo('set them in a shell with: eval "$(' + shlex.quote(str(tc.llgen_bin / "llgen")) + ' toolchain --env)"')
