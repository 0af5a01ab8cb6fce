"""Checks of `llgen show`'s input: the output file, ``--region``, and how big a picture may be."""

from __future__ import annotations

import os
from pathlib import Path

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout

LABEL_CELLS = 1024  # cells one panel labels; a larger tensor or map gets an overview and a labelled window
WINDOW = (16, 32)  # rows and columns of the labelled window of a large tensor (bank maps: segments, all banks)
MAX_CELLS = 1 << 20  # cells drawn at all without --region (the overview is one raster image)


FORMATS = (".svg", ".png")


Region = tuple[int, int, int, int]  # r0, r1, c0, c1 (half-open)


def check_output(path: str | os.PathLike) -> str:
    """The output format ('svg' or 'png') of ``path``, or one sentence why it cannot be written."""
    p = Path(path)
    ext = p.suffix.lower()
    if ext not in FORMATS:
        raise LlgenError(f"cannot draw to '{p}': the extension must be .svg or .png, not '{ext or '(none)'}'.")
    if not p.parent.is_dir():
        raise LlgenError(f"cannot write '{p}': its directory does not exist.")
    return ext[1:]


def parse_region(text: str | None) -> Region | None:
    """``r0:r1,c0:c1`` -> (r0, r1, c0, c1); either half may be ``:`` (everything)."""
    if text is None:
        return None
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        vals = []
        for part in parts:
            lo, hi = part.split(":")
            vals += [int(lo) if lo.strip() else 0, int(hi) if hi.strip() else -1]
    except ValueError:
        raise LlgenError(f"region '{text}' is not of the form r0:r1,c0:c1 (e.g. 0:32,0:32).") from None
    return tuple(vals)  # type: ignore[return-value]


def _clip_region(region: Region | None, rows: int, cols: int, what: str) -> Region:
    if region is None:
        r = (0, rows, 0, cols)
    else:
        r0, r1, c0, c1 = region
        r = (r0, rows if r1 == -1 else r1, c0, cols if c1 == -1 else c1)
        if not (0 <= r[0] < r[1] <= rows and 0 <= r[2] < r[3] <= cols):
            raise LlgenError(f"region {r[0]}:{r[1]},{r[2]}:{r[3]} lies outside the {rows} x {cols} {what}.")
    n = (r[1] - r[0]) * (r[3] - r[2])
    if n > MAX_CELLS:
        raise LlgenError(
            f"the {what} has {n} cells, too many to draw (at most {MAX_CELLS}): pick a part with --region r0:r1,c0:c1."
        )
    return r


def _grid_dims(layout: LinearLayout) -> tuple[int, int]:
    """(rows, cols) of the 2-D picture of a tensor: the last dim across, the others down."""
    cols = layout.shape[-1] if layout.shape else 1
    return (1 << layout.total_out_bits) // cols, cols


def is_memory(layout: LinearLayout) -> bool:
    return "offset" in layout.in_names
