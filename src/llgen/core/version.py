"""The installed llgen's version: one lookup for `llgen.__version__`, `--version` and the generated files'
opening comments."""

from __future__ import annotations

import functools


@functools.cache
def llgen_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llgen")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
