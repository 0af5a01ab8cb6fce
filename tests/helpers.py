"""Helpers the test files share: the repository root, the one-sentence error rule, and the command line in-process."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


def one_sentence(err: Exception) -> str:
    """An error message that is one sentence: ends with a period, no newline."""
    msg = str(err)
    assert msg.endswith(".") and "\n" not in msg, msg
    return msg


def invoke(*args):
    """``llgen ARGS`` through click's runner (stdout and stderr apart, as the CLI writes them)."""
    from llgen.cli import main

    return CliRunner().invoke(main, list(args))
