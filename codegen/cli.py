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


# ---------------------------------------------------------------------- conversions
def _conversion_options(f):
    for opt in reversed([
        click.option("--src", default="blocked", show_default=True, help="Source layout spec (layout A)."),
        click.option("--dst", default="mma", show_default=True, help="Destination layout spec (layout B)."),
        click.option("--shape", default="128x128", show_default=True, help="Tile shape."),
        click.option("--dtype", default="f16", show_default=True, help="Element type."),
        click.option("--warps", default=4, show_default=True, type=int, help="Warps per CTA."),
        click.option("--target", default="sm_90", show_default=True, help="sm_80 | sm_90 | gfx90a | gfx942."),
        click.option("--path", "path_", default=None, help="Force shuffle or shared."),
    ]):
        f = opt(f)
    return f


def _plan_from(src: str, dst: str, shape: str, dtype: str, warps: int, target: str, path_: str | None):
    from .dtypes import dtype as to_dtype
    from .plan import plan_conversion
    from .spec import parse_layout
    from .target import target as to_target
    tgt, dt = to_target(target), to_dtype(dtype)
    shp = parse_shape(shape)
    a = parse_layout(src, shp, warps, tgt.lanes, dt.bytes)
    b = parse_layout(dst, shp, warps, tgt.lanes, dt.bytes)
    return plan_conversion(a, b, dt, tgt, path=path_)


def write_atomic(path, text: str) -> None:
    """Write through a temporary file and rename, so no half-written file is ever left."""
    import os
    import tempfile
    from pathlib import Path
    path = Path(path)
    if not path.parent.is_dir():
        raise LlgenError(f"cannot write '{path}': its directory does not exist.")
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as e:
        raise LlgenError(f"cannot write '{path}': {e.strerror}.") from None
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


@main.command()
@_conversion_options
@click.option("--form", type=click.Choice(["kernel", "header", "both"]), default="kernel", show_default=True)
@click.option("-o", "output", default=None, help="Output file, or a directory (needed for --form both).")
@click.option("--name", default=None, help="Namespace / kernel name (a C identifier).")
@click.option("--explain", is_flag=True, help="Also explain the plan on stderr.")
def emit(src, dst, shape, dtype, warps, target, path_, form, output, name, explain) -> None:
    """Emit CUDA or HIP source for the conversion SRC -> DST (the language follows --target)."""
    def body() -> None:
        from pathlib import Path

        from .emit import check_name, file_names
        from .emit import emit as emit_source
        if name is not None:
            check_name(name)
        plan = _plan_from(src, dst, shape, dtype, warps, target, path_)
        forms = ["kernel", "header"] if form == "both" else [form]
        texts = {f: emit_source(plan, f, name) for f in forms}
        if explain:
            click.echo(plan.explain(), err=True)
        if output is None:
            if form == "both":
                raise LlgenError("--form both writes two files: give a directory with -o.")
            click.echo(texts[form], nl=False)
            return
        out = Path(output)
        if out.is_dir() or form == "both":
            if not out.is_dir():
                raise LlgenError(f"-o {output} is not a directory.")
            names = file_names(plan, name)
            for f, text in texts.items():
                write_atomic(out / names[f], text)
                click.echo(str(out / names[f]), err=True)
        else:
            write_atomic(out, texts[form])
    run(body)


@main.command()
@_conversion_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON (docs/plan-schema.md).")
def plan(src, dst, shape, dtype, warps, target, path_, as_json) -> None:
    """Explain how SRC -> DST moves: path, C = B^-1 A, rounds, swizzle, widths, wavefronts."""
    def body() -> None:
        p = _plan_from(src, dst, shape, dtype, warps, target, path_)
        if as_json:
            import json
            click.echo(json.dumps(p.to_json()))
        else:
            click.echo(p.explain())
    run(body)


@main.command()
@click.option("--write", "write_spec", required=True, help="Layout that stores into shared memory.")
@click.option("--read", "read_spec", required=True, help="Layout that loads from it.")
@click.option("--shape", default="128x128", show_default=True)
@click.option("--dtype", default="f16", show_default=True)
@click.option("--warps", default=4, show_default=True, type=int)
@click.option("--target", default="sm_90", show_default=True)
def swizzle(write_spec, read_spec, shape, dtype, warps, target) -> None:
    """Unswizzled, classic and optimal shared layouts side by side, with wavefronts per access."""
    def body() -> None:
        from .plan.explain import bit_names, vec_name
        rows = []
        for sw in ("unswizzled", "classic", "optimal"):
            from .plan import plan_conversion
            base = _plan_from(write_spec, read_spec, shape, dtype, warps, target, "shared")
            p = plan_conversion(base.src, base.dst, base.dtype, base.target, path="shared", swizzle=sw, matrix=False)
            d = p.detail
            names = bit_names(p.src)
            formula = ", ".join(f"o{i}={vec_name(c, names)}" for i, c in enumerate(d.swizzle.columns))
            rows.append((d.swizzle.name, d.store.wavefronts_per_instr, d.load.wavefronts_per_instr,
                         d.predicted_store_wavefronts, d.predicted_load_wavefronts, formula))
        click.echo(f"{'layout':44} {'st/access':>9} {'ld/access':>9} {'st total':>8} {'ld total':>8}")
        for name, sa, la, st, ld, _ in rows:
            click.echo(f"{name:44} {sa:>9} {la:>9} {st:>8} {ld:>8}")
        click.echo("")
        for name, *_, formula in rows:
            click.echo(f"{name}: offset bit -> element: {formula}")
    run(body)


if __name__ == "__main__":
    main()
