"""llgen's caps on input, checked before any work, and the one way numbers are read from text.

Every cap is far above what a real kernel needs (a CTA holds at most 1024 threads, a tile at most a few
hundred thousand elements) and far below what would make llgen hang or run out of memory. Numbers are
ASCII digits only: Python's int() also reads Arabic-Indic and other Unicode digits, and
underscores, which no Triton dump or C compiler would.
"""

from __future__ import annotations

import re

from llgen.core.errors import LlgenError

MAX_TILE_ELEMENTS = 1 << 24  # a 4096 x 4096 tile
MAX_RANK = 8
MAX_NUMBER = 1 << 24  # the largest integer a spec may hold: no layout parameter exceeds a tile
MAX_SLOT_BITS = 26  # registers x lanes x warps x blocks of one layout, replicas included: 2**26 slots
MAX_DEPTH = 32  # brackets nested in a spec or a JSON layout file (a real one nests 8 deep)
MAX_SPEC_CHARS = 1 << 16
MAX_JSON_BYTES = 1 << 20
MAX_TTGIR_BYTES = 1 << 27  # MLIR_ENABLE_DUMP output of a large kernel is tens of MB
MAX_CONVERSIONS = 256  # ttg.convert_layout ops in one TTGIR file (a real kernel has a few)
MAX_THREADS_PER_BLOCK = 1024  # every target llgen emits for
MAX_NAME_CHARS = 100

_INT = re.compile(r"-?[0-9]+")
_OPEN, _CLOSE = "([{<", ")]}>"


def ascii_int(text: str, what: str) -> int:
    """The integer ``text`` spells in ASCII digits (an optional leading minus), at most MAX_NUMBER in size."""
    if not _INT.fullmatch(text):
        raise LlgenError(f"{what} '{text}' is not a number written in ASCII digits.")
    if len(text) > 12 or abs(int(text)) > MAX_NUMBER:
        raise LlgenError(f"{what} is {text[:20]}, over llgen's limit of {MAX_NUMBER}.")
    return int(text)


def check_spec_text(spec: str, what: str = "layout") -> str:
    """A spec no longer than MAX_SPEC_CHARS whose brackets nest at most MAX_DEPTH deep."""
    if len(spec) > MAX_SPEC_CHARS:
        raise LlgenError(f"{what} spec of {len(spec)} characters is over llgen's limit of {MAX_SPEC_CHARS}.")
    check_depth(spec, f"{what} spec")
    return spec


def check_depth(text: str, what: str) -> None:
    """Brackets of ``text`` (outside double-quoted strings) nest at most MAX_DEPTH deep."""
    depth, quoted, escaped = 0, False, False
    for ch in text:
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise LlgenError(f"the {what} nests brackets more than {MAX_DEPTH} deep.")
        elif ch in _CLOSE:
            depth -= 1


def check_tile(shape) -> tuple[int, ...]:
    """A shape of at most MAX_TILE_ELEMENTS elements."""
    total = 1
    for s in shape:
        total *= s
        if total > MAX_TILE_ELEMENTS:
            dims = "x".join(map(str, shape))
            raise LlgenError(f"shape {dims} is over llgen's limit of {MAX_TILE_ELEMENTS} elements per tile.")
    return tuple(shape)


def check_slots(layout, spec: str) -> None:
    """A layout of at most 2**MAX_SLOT_BITS hardware slots (registers x lanes x warps x blocks)."""
    bits = sum(k for _, k in layout.ins)
    if bits > MAX_SLOT_BITS:
        raise LlgenError(f"layout '{_short(spec)}' has 2**{bits} slots, over llgen's limit of 2**{MAX_SLOT_BITS}.")


def check_threads(warps: int, lanes: int, where: str = "a block") -> None:
    """At most MAX_THREADS_PER_BLOCK threads."""
    if warps * lanes > MAX_THREADS_PER_BLOCK:
        raise LlgenError(
            f"{warps} warps of {lanes} threads make {warps * lanes} threads, over the {MAX_THREADS_PER_BLOCK} "
            f"that {where} may hold."
        )


def _short(spec: str) -> str:
    return spec if len(spec) <= 80 else spec[:77] + "..."
