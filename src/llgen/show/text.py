"""Text sizes and fitting: fonts, estimated text widths, wrapping, and cells sized to their labels."""

from __future__ import annotations

from collections.abc import Sequence

FONT = 7.0  # points: cell labels, ticks, notes; the smallest text in a picture
AXIS_FONT = 8.0  # axis names, matrix bit names, text lines
PANEL_FONT = 9.0  # panel titles
TITLE_FONT = 10.0  # the figure's title
CHAR_EM = 0.62  # the mean advance of a DejaVu Sans character (digits, letters, punctuation), in ems
TITLE_WIDTH = 6.0  # inches: a title wraps at the figure's width, or at this where the figure is narrower


def text_width(text: str, font: float, em: float = CHAR_EM) -> float:
    """The width in inches of one line of ``text`` at ``font`` points (``em``: mean advance per character)."""
    return len(text) * font * em / 72


def wrap(text: str, width: float, font: float) -> list[str]:
    """``text`` in lines of at most ``width`` inches at ``font`` points, broken at spaces (inside a word too long
    for a line)."""
    import textwrap

    per_line = max(16, int(width * 72 / (font * CHAR_EM)))
    return textwrap.wrap(text, per_line, break_on_hyphens=False) or [""]


def label_cell(labels: Sequence[str], font: float = FONT) -> tuple[float, float]:
    """Width and height in inches of a cell that holds each of ``labels`` (lines split at newlines)."""
    lines = [line for label in labels for line in label.split("\n")] or [""]
    rows = max((label.count("\n") + 1 for label in labels), default=1)
    return max(0.3, max(text_width(line, font) for line in lines) + 0.1), rows * font * 1.2 / 72 + 0.1
