"""The ``llgen`` command line: a click group; each command is a small function whose body runs
under `run`, which turns an `LlgenError` into one line ``error: ...`` on stderr and exit status 2.

Keep imports here light: `llgen layout` must answer in well under 0.3 s from a cold start, so
modules that pull in numpy or jinja2 are imported inside the commands that need them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from .errors import LlgenError

DTYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "tf32": 4, "f64": 8, "i8": 1, "u8": 1, "f8": 1, "e4m3": 1, "e5m2": 1,
               "i16": 2, "i32": 4, "i64": 8}


def run(body: Callable[[], None]) -> None:
    """Run a command body; bad input becomes one line on stderr and exit status 2."""
    try:
        body()
    except LlgenError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)


def parse_shape(text: str) -> tuple[int, ...]:
    """``128x128`` -> (128, 128); every entry a positive power of two."""
    try:
        shape = tuple(int(x) for x in text.lower().split("x"))
    except ValueError:
        raise LlgenError(f"shape '{text}' is not of the form 128x128.") from None
    for s in shape:
        if s < 1 or s & (s - 1):
            raise LlgenError(f"shape '{text}' holds {s}, which is not a power of two.")
    return shape


def dtype_bytes(name: str) -> int:
    """Bytes per element of a dtype name (f16, bf16, f32, i8, ...)."""
    if name not in DTYPE_BYTES:
        raise LlgenError(f"unknown dtype '{name}' (known: {', '.join(DTYPE_BYTES)}).")
    return DTYPE_BYTES[name]


@click.group()
def main() -> None:
    """llgen: linear-layout conversions over F2, planned and emitted as CUDA and HIP."""


@main.command()
@click.argument("spec")
@click.option("--shape", default="128x128", show_default=True, help="Tensor shape, e.g. 128x64.")
@click.option("--warps", default=4, show_default=True, type=int, help="Warps per CTA.")
@click.option("--threads-per-warp", type=click.Choice(["32", "64"]), default=None, help="Warp size (default: 64 for mfma, else 32).")
@click.option("--dtype", default="f16", show_default=True, help="Element type (sets 16-byte vector defaults).")
@click.option("--json", "as_json", is_flag=True, help="Print Triton's bases form only.")
def layout(spec: str, shape: str, warps: int, threads_per_warp: str | None, dtype: str, as_json: bool) -> None:
    """Print the linear layout of SPEC over --shape (short form, #ttg attribute, or @file.json)."""
    def body() -> None:
        from .spec import parse_layout
        lay = parse_layout(spec, parse_shape(shape), warps, int(threads_per_warp) if threads_per_warp else None,
                           dtype_bytes(dtype))
        if as_json:
            import json
            click.echo(json.dumps(lay.to_dict()))
        else:
            from .view import layout_text
            click.echo(layout_text(lay, spec))
    run(body)
