"""The ``llgen`` command line: a click group; each command is a small function whose body runs
under `run`, which turns an `LlgenError` into one line ``error: ...`` on stderr and exit status 2.

Keep imports here light: `llgen layout` must answer in well under 0.3 s from a cold start, so
modules that pull in numpy or jinja2 are imported inside the commands that need them.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable

import click

from .errors import LlgenError


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


@click.group()
def main() -> None:
    """llgen: linear-layout conversions over F2, planned and emitted as CUDA and HIP."""


@main.command()
@click.argument("spec")
@click.option("--shape", default="128x128", show_default=True, help="Tensor shape, e.g. 128x64.")
@click.option("--warps", default=4, show_default=True, type=int, help="Warps per CTA.")
@click.option(
    "--threads-per-warp", type=click.Choice(["32", "64"]), default=None, help="Warp size (default: 64 for mfma, else 32)."
)
@click.option("--dtype", default="f16", show_default=True, help="Element type (sets 16-byte vector defaults).")
@click.option("--json", "as_json", is_flag=True, help="Print Triton's bases form only.")
def layout(spec: str, shape: str, warps: int, threads_per_warp: str | None, dtype: str, as_json: bool) -> None:
    """Print the linear layout of SPEC over --shape (short form, #ttg attribute, or @file.json)."""

    def body() -> None:
        from .dtypes import dtype as to_dtype
        from .spec import parse_layout

        lay = parse_layout(
            spec, parse_shape(shape), warps, int(threads_per_warp) if threads_per_warp else None, to_dtype(dtype).bytes
        )
        if as_json:
            import json

            click.echo(json.dumps(lay.to_dict()))
        else:
            from .view import layout_text

            click.echo(layout_text(lay, spec))

    run(body)


# ---------------------------------------------------------------------- conversions
def _conversion_options(f, *, with_path: bool = True):
    """The options every conversion command takes; ``with_path=False`` for bench, which measures every path."""
    for opt in reversed(
        [
            click.option("--src", default="blocked", show_default=True, help="Source layout spec (layout A)."),
            click.option("--dst", default="mma", show_default=True, help="Destination layout spec (layout B)."),
            click.option("--shape", default="128x128", show_default=True, help="Tile shape."),
            click.option("--dtype", default="f16", show_default=True, help="Element type."),
            click.option("--warps", default=4, show_default=True, type=int, help="Warps per CTA."),
            click.option("--target", default="sm_90", show_default=True, help="sm_80 | sm_90 | gfx90a | gfx942."),
            *([click.option("--path", "path_", default=None, help="Force shuffle or shared.")] if with_path else []),
            click.option(
                "--smem-budget",
                type=int,
                default=None,
                help="Bytes of shared memory the conversion may use (default: the target's per-CTA limit); "
                "a tile over it is split into store/load rounds.",
            ),
        ]
    ):
        f = opt(f)
    return f


def _plan_from(
    src: str, dst: str, shape: str, dtype: str, warps: int, target: str, path_: str | None, smem_budget: int | None = None
):
    from .dtypes import dtype as to_dtype
    from .plan import plan_conversion
    from .spec import parse_layout
    from .target import target as to_target

    tgt, dt = to_target(target), to_dtype(dtype)
    shp = parse_shape(shape)
    a = parse_layout(src, shp, warps, tgt.lanes, dt.bytes)
    b = parse_layout(dst, shp, warps, tgt.lanes, dt.bytes)
    return plan_conversion(a, b, dt, tgt, path=path_, smem_budget=smem_budget)


@main.command()
@_conversion_options
@click.option("--form", type=click.Choice(["kernel", "header", "both"]), default="kernel", show_default=True)
@click.option("-o", "output", default=None, help="Output file, or a directory (needed for --form both).")
@click.option("--name", default=None, help="Namespace / kernel name (a C identifier).")
@click.option("--explain", is_flag=True, help="Also explain the plan on stderr.")
def emit(src, dst, shape, dtype, warps, target, path_, smem_budget, form, output, name, explain) -> None:
    """Emit CUDA or HIP source for the conversion SRC -> DST (the language follows --target)."""

    def body() -> None:
        from pathlib import Path

        from .emit import check_name, file_names
        from .emit import emit as emit_source
        from .files import write_atomic

        if name is not None:
            check_name(name)
        plan = _plan_from(src, dst, shape, dtype, warps, target, path_, smem_budget)
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
        if out.is_dir() or output.endswith(("/", os.sep)) or form == "both":  # a folder, created when missing
            names = file_names(plan, name)
            for f, text in texts.items():
                write_atomic(out / names[f], text, make_dirs=True)
                click.echo(str(out / names[f]), err=True)
        else:
            write_atomic(out, texts[form])

    run(body)


@main.command()
@_conversion_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON (docs/plan-schema.md).")
def plan(src, dst, shape, dtype, warps, target, path_, smem_budget, as_json) -> None:
    """Explain how SRC -> DST moves: path, C = B^-1 A, rounds, swizzle, widths, wavefronts."""

    def body() -> None:
        p = _plan_from(src, dst, shape, dtype, warps, target, path_, smem_budget)
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
            rows.append(
                (
                    d.swizzle.name,
                    d.store.wavefronts_per_instr,
                    d.load.wavefronts_per_instr,
                    d.predicted_store_wavefronts,
                    d.predicted_load_wavefronts,
                    formula,
                )
            )
        click.echo(f"{'layout':44} {'st/access':>9} {'ld/access':>9} {'st total':>8} {'ld total':>8}")
        for name, sa, la, st, ld, _ in rows:
            click.echo(f"{name:44} {sa:>9} {la:>9} {st:>8} {ld:>8}")
        click.echo("")
        for name, *_, formula in rows:
            click.echo(f"{name}: offset bit -> element: {formula}")

    run(body)


# ---------------------------------------------------------------------- pictures
@main.command()
@click.argument("spec", required=False)
@click.option("--src", default=None, help="With --dst: draw the conversion SRC -> DST (or, with --swizzle, its shared layout).")
@click.option("--dst", default=None, help="Destination layout of the conversion.")
@click.option(
    "--swizzle",
    "swizzle_name",
    type=click.Choice(["optimal", "classic", "unswizzled"]),
    default=None,
    help="With --src/--dst: draw the bank map of this shared layout for the pair, as `llgen swizzle` builds it.",
)
@click.option("--shape", default="128x128", show_default=True, help="Tensor shape, e.g. 16x32.")
@click.option("--warps", default=4, show_default=True, type=int, help="Warps per CTA.")
@click.option("--dtype", default="f16", show_default=True, help="Element type (bank maps: bytes per element).")
@click.option("--target", default=None, help="sm_80 | sm_90 | gfx90a | gfx942 (default sm_90; sets the warp size).")
@click.option("--path", "path_", default=None, help="Force the conversion's path (shuffle or shared).")
@click.option("--matrix", is_flag=True, help="Draw the F2 matrix instead (source and destination for a conversion).")
@click.option("--region", default=None, help="Draw rows r0:r1 and columns c0:c1 only (bank maps: segments and banks).")
@click.option(
    "--access", default=None, help="Highlight one warp access into a memory layout: a layout SPEC, or src / dst with --swizzle."
)
@click.option("--step", default=0, show_default=True, type=int, help="Register step of the --access layout (warp 0).")
@click.option("-o", "output", required=True, help="Output picture: FILE.svg or FILE.png.")
def show(spec, src, dst, swizzle_name, shape, warps, dtype, target, path_, matrix, region, access, step, output) -> None:
    """Draw SPEC (thread grid or bank map), its --matrix, or the conversion --src -> --dst, to an SVG or PNG."""

    def body() -> None:
        from . import show as pictures
        from .dtypes import dtype as to_dtype
        from .spec import parse_layout
        from .target import target as to_target

        pictures.check_output(output)
        if (spec is None) == (src is None or dst is None) or (spec is not None and (src or dst)):
            raise LlgenError("give either one layout SPEC or both --src and --dst.")
        if swizzle_name and spec is not None:
            raise LlgenError("--swizzle needs a conversion: give --src and --dst instead of SPEC.")
        shp, dt = parse_shape(shape), to_dtype(dtype)
        tgt = to_target(target or "sm_90")
        reg = pictures.parse_region(region)
        if spec is not None:
            lay = parse_layout(spec, shp, warps, tgt.lanes if target else None, dt.bytes)
            if access is not None and not pictures.is_memory(lay):
                raise LlgenError("--access highlights an access into a memory layout, and this is a distributed layout.")
            if matrix:
                fig = pictures.matrix_figure(lay, spec)
            elif pictures.is_memory(lay):
                acc = parse_layout(access, shp, warps, tgt.lanes if target else None, dt.bytes) if access else None
                fig = pictures.bank_map_figure(lay, dt.bytes, acc, step, reg, spec, tgt)
            else:
                fig = pictures.layout_figure(lay, reg, spec)
        else:
            p = _plan_from(src, dst, shape, dtype, warps, tgt.name, "shared" if swizzle_name else path_)
            if swizzle_name:
                from .plan import plan_conversion

                p = plan_conversion(p.src, p.dst, p.dtype, p.target, path="shared", swizzle=swizzle_name, matrix=False)
                mem = pictures.memory_from_swizzle(p.detail, p.src.outs)
                if matrix:
                    fig = pictures.matrix_figure(mem, f"{p.detail.swizzle.name} swizzle")
                else:
                    acc = {"src": p.src, "dst": p.dst, None: None}.get(access, False)
                    if acc is False:
                        acc = parse_layout(access, shp, warps, tgt.lanes, dt.bytes)
                    fig = pictures.bank_map_figure(mem, dt.bytes, acc, step, reg, f"{p.detail.swizzle.name} swizzle", tgt)
            elif access is not None:
                raise LlgenError("--access highlights an access into a memory layout: add --swizzle to draw one for --src/--dst.")
            elif matrix:
                fig = pictures.matrices_figure([("source A", p.src), ("destination B", p.dst)])
            else:
                fig = pictures.conversion_figure(p, reg)
        pictures.save(fig, output)

    run(body)


BENCH_MEASURES = ("loop", "stream", "wavefronts")


@main.command()
@click.option("--suite", default=None, help="Benchmark a suite (core, regressions).")
@functools.partial(_conversion_options, with_path=False)
@click.option(
    "--measures",
    default=",".join(BENCH_MEASURES),
    show_default=True,
    help=(
        "Comma list of loop, stream, wavefronts (Nsight Compute's shared-memory counters, and with "
        "loop its LSU-pipe counters where llgen and Triton are close)."
    ),
)
@click.option("-o", "outdir", default="bench", show_default=True, help="Directory for report.md, report.json, report.png.")
@click.option("--rep", default=100, show_default=True, help="do_bench repetition time (ms) per measurement.")
@click.option("--no-triton", is_flag=True, help="Skip Triton's baseline.")
def bench(suite, src, dst, shape, dtype, warps, target, smem_budget, measures, outdir, rep, no_triton) -> None:
    """On a GPU: time llgen against Triton, naive and classic baselines; write the report."""

    def body() -> None:
        meas = {m.strip() for m in measures.split(",") if m.strip()}
        if meas - set(BENCH_MEASURES):
            raise LlgenError(f"unknown measure(s) {sorted(meas - set(BENCH_MEASURES))}; use {', '.join(BENCH_MEASURES)}.")
        cases = _cases(suite, src, dst, shape, dtype, warps, target, smem_budget)
        from .runtime.bench import run
        from .runtime.benchreport import write_report

        report = run(
            cases,
            target,
            sorted(meas),
            rep,
            not no_triton,
            log=lambda m: click.echo(m, err=True),
            plan_options={"smem_budget": smem_budget} if smem_budget else {},
        )
        for p in write_report(report, outdir):
            click.echo(str(p))

    run(body)


def _cases(suite, src, dst, shape, dtype, warps, target, smem_budget=None):
    """The suite's cases, or one case from --src/--dst."""
    if suite is not None:
        from .suite import suite as suite_cases

        return suite_cases(suite)
    from .suite import Case

    p = _plan_from(src, dst, shape, dtype, warps, target, None, smem_budget)
    return [Case("custom", p.dtype.name, p.src.shape, p.warps, p.src, p.dst)]


@main.command("check")
@_conversion_options
@click.option(
    "--suite", type=click.Choice(["core", "regressions"]), default=None, help="Every case of a suite, by every valid path."
)
@click.option("--random", "n_random", type=int, default=0, help="N random layout pairs (with --seed).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random pairs.")
@click.option("--tiles", type=int, default=1000, show_default=True, help="Tiles per run of the stacked-tile kernel.")
@click.option("--runs", type=int, default=1, show_default=True, help="Runs per kernel, each on fresh random input.")
@click.option("--report", "report_prefix", default=None, help="Write PREFIX.md and PREFIX.json.")
@click.option("--cpu", is_flag=True, help="Run the emitted text on CPU threads instead of a GPU (no ldmatrix/stmatrix).")
def check_command(
    src, dst, shape, dtype, warps, target, path_, smem_budget, suite, n_random, seed, tiles, runs, report_prefix, cpu
) -> None:
    """On a GPU: compile, run, and compare every slot, replica and output element with NumPy, bit for bit.

    One case (--src/--dst ...), a suite (--suite core) or random pairs (--random N). Exit status 1 on any
    mismatch (the first bad slot is printed), 2 on bad input or when no GPU runtime is present."""

    def body() -> None:
        from .runtime.checkcmd import run_check  # the one command that reaches into llgen.runtime, lazily

        plan = None if suite or n_random else _plan_from(src, dst, shape, dtype, warps, target, path_, smem_budget)
        code = run_check(
            plan,
            suite=suite,
            n_random=n_random,
            seed=seed,
            target=target,
            tiles=tiles,
            runs=runs,
            report=report_prefix,
            plan_options={"smem_budget": smem_budget} if smem_budget else {},
            cpu=cpu,
        )
        if code:
            sys.exit(code)

    run(body)


@main.command("gpu-check", context_settings={"ignore_unknown_options": True, "help_option_names": []})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def gpu_check(args) -> None:
    """On a GPU machine: every suite case and 2,000 random pairs against NumPy, Nsight Compute's bank counters
    against the planner, and compute-sanitizer; writes bench/gpu-check.md/.json (`llgen gpu-check --help`)."""
    from .runtime.gpucheck import main as gpu_check_main

    sys.exit(gpu_check_main(list(args)))


if __name__ == "__main__":
    main()
