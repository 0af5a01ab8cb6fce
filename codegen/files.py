"""Writing output files: the one way llgen writes a file (sources, headers, pictures, reports)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import LlgenError


def write_atomic(path: str | os.PathLike, data: str | bytes, *, make_dirs: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename: nobody ever sees half
    a file, and no temporary file is left behind on any failure. The file gets the mode a plain ``open`` would
    give it (0666 less the umask). ``make_dirs`` creates missing folders; otherwise a missing folder, like any
    other failure to write, is one LlgenError sentence naming the path."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if make_dirs:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise LlgenError(f"cannot write '{p}': {e.strerror}.") from None
    if not folder.is_dir():
        raise LlgenError(f"cannot write '{p}': its directory does not exist.")
    if p.is_dir():
        raise LlgenError(f"cannot write '{p}': it is a directory.")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{p.name}.")
    except OSError as e:
        raise LlgenError(f"cannot write '{p}': {e.strerror}.") from None
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, p)
    except OSError as e:
        _remove(tmp)
        raise LlgenError(f"cannot write '{p}': {e.strerror}.") from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: str) -> None:
    if os.path.exists(tmp):
        os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
