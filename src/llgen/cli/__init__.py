"""The top floor: the `llgen` command line (main.py, its group and shared options; commands/, one module a command),
the docs and examples it regenerates, and the error style of every failure (app.py)."""

from llgen.cli.main import main

__all__ = ["main"]
