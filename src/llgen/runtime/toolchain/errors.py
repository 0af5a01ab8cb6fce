"""How a tool fails: the errors every toolchain module raises, and running a tool so that a failure carries its log."""

from __future__ import annotations

import subprocess


class ToolchainError(RuntimeError):
    """A compiler or disassembler failed; the message carries its log."""


class ToolchainUnavailable(ToolchainError):
    """A tool is not installed. Tests skip with this message, which says how to install it."""


def run_tool(cmd: list[str], what: str, **kw) -> str:
    """The tool's stdout; a non-zero exit raises ToolchainError with its stderr (or stdout)."""
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise ToolchainError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr or proc.stdout}")
    return proc.stdout
