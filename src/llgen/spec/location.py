"""MLIR source locations, as TTGIR prints them after an op (``loc(#loc31)``) and in alias lines
(``#loc31 = loc("kernel.py":13:48)``): file:line:col, a name (``loc("acc"(#loc12))``), a call site
(``callsite(#loc1 at #loc101)``: the caller's line names an inlined op), a fusion (its first part) or
``unknown``. Read with a depth limit, so a cycle or a deep chain of aliases is one LlgenError."""

from __future__ import annotations

import re
from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.limits import MAX_DEPTH

_FILE = re.compile(r'"((?:[^"\\]|\\.)*)":([0-9]+):([0-9]+)')
_NAME = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ALIAS = re.compile(r"#[A-Za-z_][A-Za-z0-9_$.-]*")


@dataclass(frozen=True)
class Location:
    file: str | None = None
    line: int | None = None
    col: int | None = None
    name: str | None = None  # the name of a NameLoc, e.g. the Python variable

    def short(self) -> str:
        """``kernel.py:13:48`` (the file's last component), or ''."""
        if self.file is None:
            return ""
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}:{self.col}"


def resolve(body: str, aliases: dict[str, str], depth: int = 0) -> Location:
    """The location a ``loc(...)`` body stands for; ``aliases`` maps ``#locN`` to its body."""
    if depth > MAX_DEPTH:
        raise LlgenError(f"a source location nests more than {MAX_DEPTH} deep.")
    body = body.strip()
    if body.startswith("#"):
        alias = _ALIAS.match(body)
        target = aliases.get(alias.group(0)) if alias else None
        return resolve(target, aliases, depth + 1) if target is not None else Location()
    if body.startswith("callsite("):
        inner = body[len("callsite(") : _closing(body, len("callsite"))]
        callee, _, caller = inner.rpartition(" at ")
        return resolve(caller or callee, aliases, depth + 1)
    if body.startswith("fused"):
        start = body.find("[")
        first = split_top(body[start + 1 : _closing(body, start)])[0] if start >= 0 else ""
        return resolve(first, aliases, depth + 1)
    m = _FILE.match(body)
    if m:
        return Location(m.group(1), int(m.group(2)), int(m.group(3)))
    m = _NAME.match(body)
    if m:
        rest = body[m.end() :].strip()
        inner = resolve(rest[1 : _closing(rest, 0)], aliases, depth + 1) if rest.startswith("(") else Location()
        return Location(inner.file, inner.line, inner.col, m.group(1))
    return Location()


def loc_body(text: str) -> str | None:
    """The body of the last top-level ``loc(...)`` at the end of an op's line, or None."""
    at = text.rfind(" loc(")
    if at < 0:
        return None
    start = at + len(" loc")
    end = _closing(text, start)
    return text[start + 1 : end]


def _closing(text: str, open_at: int) -> int:
    """The index of the bracket closing the one at ``open_at`` (the end of the text if none does)."""
    pairs = {"(": ")", "[": "]", "<": ">"}
    depth, quoted = 0, False
    for i in range(open_at, len(text)):
        ch = text[i]
        if quoted:
            quoted = ch != '"' or text[i - 1] == "\\"
        elif ch == '"':
            quoted = True
        elif ch in pairs:
            depth += 1
        elif ch in pairs.values():
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def split_top(text: str, limit: int = -1) -> list[str]:
    """``a, b(c, d), e`` -> ['a', 'b(c, d)', 'e']: split at the commas outside any brackets, at most ``limit`` times
    (-1: every one), as str.split counts. TTGIR's locations and its types (``128x64xf16, #mma``) split this way."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        elif ch == "," and depth == 0 and len(parts) != limit:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]
