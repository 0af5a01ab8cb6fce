"""``python -m llgen.cli.docs DIR`` (``make docs``): regenerate DIR/cli.md from the click commands and
DIR/img/*.svg with ``llgen show``. Both are deterministic, and tests/test_docs.py fails when the
checked-in copies differ from what this module writes.

Every picture is made by running the ``llgen show`` command line listed in ``PICTURES``, so the
commands quoted in the README are the ones that drew its pictures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

# the 16x32 fp32 transpose of the README tour: A stores rows, B reads column pairs
TRANSPOSE_A = (
    "#ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "
    "warp = [], block = []}>"
)
TRANSPOSE_B = (
    "#ttg.linear<{register = [[0, 2], [0, 4], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], "
    "warp = [], block = []}>"
)
_T = ["--src", TRANSPOSE_A, "--dst", TRANSPOSE_B, "--shape", "16x32", "--dtype", "f32", "--warps", "1"]

# file name under img/ -> arguments of `llgen show` (without -o)
PICTURES: dict[str, list[str]] = {
    "t16x32-A.svg": [TRANSPOSE_A, "--shape", "16x32", "--warps", "1"],
    "t16x32-B.svg": [TRANSPOSE_B, "--shape", "16x32", "--warps", "1"],
    "t16x32-unswizzled.svg": [*_T, "--swizzle", "unswizzled", "--access", "dst", "--step", "0"],
    "t16x32-classic.svg": [*_T, "--swizzle", "classic", "--access", "dst", "--step", "0"],
    "t16x32-optimal.svg": [*_T, "--swizzle", "optimal", "--access", "dst", "--step", "0"],
    "t16x32-optimal-matrix.svg": [*_T, "--swizzle", "optimal", "--matrix"],
    "blocked-32x16.svg": ["blocked:spt=1x4,tpw=8x4,wpc=2x1,order=1x0", "--shape", "32x16", "--warps", "2"],
}


def cli_markdown() -> str:
    """The CLI reference: each command's ``--help``, exactly as click prints it at 100 columns."""
    from llgen.cli import main

    root = click.Context(main, info_name="llgen", terminal_width=100, max_content_width=100)
    out = [
        "# llgen command line reference",
        "",
        "Generated from the click commands by `make docs` (src/llgen/cli/docs.py); tests/test_docs.py fails when it is stale.",
        "Every command turns bad input into one line `error: ...` on stderr and exit status 2, click's usage errors",
        "(a missing argument, a bad choice, no such command) included; a bug in llgen is one line too, with exit",
        "status 3 (`LLGEN_TRACEBACK=1` shows the traceback). Inputs are capped before any work: 2**24 elements a",
        "tile, 1024 threads a block, brackets nested 32 deep, numbers up to 2**24, files of 1 MB (JSON) or 128 MB",
        "(TTGIR), 256 ttg.convert_layout ops a dump.",
        "",
        "```",
        main.get_help(root),
        "```",
        "",
    ]
    commands = [((name,), cmd, root) for name, cmd in main.commands.items()]
    while commands:
        names, cmd, parent = commands.pop(0)
        ctx = click.Context(cmd, info_name=names[-1], parent=parent, terminal_width=100, max_content_width=100)
        out += [f"## llgen {' '.join(names)}", "", cmd.get_short_help_str(limit=200), "", "```", cmd.get_help(ctx), "```", ""]
        commands[:0] = [((*names, n), c, ctx) for n, c in getattr(cmd, "commands", {}).items()]  # a group's, right after it
    return "\n".join(out)


def draw(name: str, directory: Path) -> Path:
    """Run ``llgen show`` for picture ``name`` into ``directory``."""
    from click.testing import CliRunner

    from llgen.cli import main

    path = directory / name
    res = CliRunner().invoke(main, ["show", *PICTURES[name], "-o", str(path)])
    if res.exit_code != 0:
        raise RuntimeError(f"llgen show for {name} failed: {res.output.strip()}")
    return path


def build(docs_dir: str | Path) -> list[Path]:
    """Write docs_dir/cli.md and docs_dir/img/*; returns the paths written."""
    docs = Path(docs_dir)
    img = docs / "img"
    img.mkdir(parents=True, exist_ok=True)
    written = [draw(name, img) for name in PICTURES]
    (docs / "cli.md").write_text(cli_markdown())
    return written + [docs / "cli.md"]


if __name__ == "__main__":
    for p in build(sys.argv[1] if len(sys.argv) > 1 else "docs"):
        print(p)
