"""The on-disk compile cache, and what identifies a tool's build in its keys.

With LLGEN_COMPILE_CACHE naming a folder (tests/conftest.py sets .cache/llgen-compile/), every compile and
disassembly is kept there by a hash of all that decides it: the text, the arch, the flags and the tool's version.
The same text compiled again, by another test or another pytest worker, is read back instead.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.metadata
import json
import os
import subprocess
import tempfile
from pathlib import Path

CACHE_ENV = "LLGEN_COMPILE_CACHE"


def cached(parts: tuple[str | bytes, ...], make) -> bytes:
    """``make()``'s bytes, kept under $LLGEN_COMPILE_CACHE by a hash of ``parts`` (everything that decides them); with
    the variable unset, just ``make()``. A failure raises and is not kept. Concurrent workers write a temporary file
    and rename it, so a reader finds a whole entry or none."""
    root = os.environ.get(CACHE_ENV)
    if not root:
        return make()
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else part.encode()
        h.update(len(data).to_bytes(8, "little") + data)
    key = h.hexdigest()
    path = Path(root) / key[:2] / key
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return data


@functools.cache
def tool_version(tool: str) -> str:
    """What identifies a command-line tool's build in a cache key: its path and its `--version` text."""
    proc = subprocess.run([tool, "--version"], check=False, capture_output=True, text=True)
    return f"{tool}\n{proc.stdout}{proc.stderr}"


def package_version(name: str) -> str:
    """An installed distribution's version, or "?" without it."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def pack(data: bytes, **fields) -> bytes:
    """A binary and what was said about it (log, seconds, a tool's text) as one cache entry."""
    return json.dumps({"data": base64.b64encode(data).decode(), **fields}).encode()


def unpack(entry: bytes) -> dict:
    fields = json.loads(entry)
    fields["data"] = base64.b64decode(fields["data"])
    return fields


def includes_files(options) -> bool:
    """Options that let the source include files of its own: their text is not in the key, so no cache."""
    return any(o.startswith(("-I", "--include-path", "-include")) for o in options)
