"""The ``llgen`` command line: a click group; each command is a small function whose body runs under
`run`, which turns an `LlgenError` into one line ``error: ...`` on stderr and exit status 2 (click's own
usage errors take the same form, see llgen.cliapp).

Keep imports here light: `llgen layout` must answer in well under 0.3 s from a cold start, so modules that
pull in numpy or jinja2 are imported inside the commands that need them.
"""

from __future__ import annotations

import functools
import os
import sys

import click

from .cliapp import Group, Integer, LazyChoice, command_line, run
from .dtypes import ALIASES, DTYPES
from .errors import LlgenError
from .target import TARGETS

PATHS = ("noop", "registers", "shuffle", "shared")  # llgen.plan.PATHS (a test holds them equal)
OBJECTIVES = ("throughput", "latency")  # llgen.plan.cost.OBJECTIVES (a test holds them equal)
FORMS = ("kernel", "header", "both")
DTYPE_NAMES = (*DTYPES, *ALIASES)


def _suites() -> list[str]:
    from .suite import SUITES

    return list(SUITES)


def _given(name: str) -> bool:
    """Whether option ``name`` was given on the command line (not left at its default)."""
    source = click.get_current_context().get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _tpw(value: str | None) -> int | None:
    return int(value) if value else None


def _module(ttgir: str | None):
    """The last TTGIR module of --ttgir (aliases and defaults for single specs), or None."""
    if ttgir is None:
        return None
    from .spec.module import read_ttgir

    return read_ttgir(ttgir)[-1]


# ---------------------------------------------------------------------- options
TTGIR = click.option(
    "--ttgir",
    default=None,
    metavar="FILE",
    help="A Triton TTGIR dump (.ttgir, or MLIR_ENABLE_DUMP output): its #aliases resolve in specs and its "
    "ttg.num-warps, ttg.threads-per-warp and ttg.target are the defaults.",
)
WARPS = click.option(
    "--warps",
    type=Integer(1, 1024),
    default=None,
    help="Warps per CTA (default: what the layouts' warpsPerCTA or --ttgir state, else 4).",
)
TPW = click.option(
    "--threads-per-warp",
    type=click.Choice(["32", "64"]),
    default=None,
    help="Warp size (default: the target's; without a target, what the layout states, 64 for mfma, else 32).",
)
DTYPE = click.option("--dtype", type=click.Choice(DTYPE_NAMES), default="f16", show_default=True, help="Element type.")
TARGET = click.option(
    "--target",
    type=click.Choice(list(TARGETS)),
    default=None,
    help="GPU (default: --ttgir's ttg.target, else sm_90 where the layouts run, else the one target that runs them).",
)
SHAPE = click.option("--shape", default="128x128", show_default=True, help="Tensor shape, e.g. 128x64.")
ALLOW_SKIPS = click.option(
    "--allow-skips",
    is_flag=True,
    help="With --ttgir: exit 0 even when some ttg.convert_layout ops are skipped (each is listed with why); "
    "otherwise that is exit status 1.",
)


def _conversion_options(f, *, with_path: bool = True):
    """The options every conversion command takes; ``with_path=False`` for bench, which measures every path."""
    for opt in reversed(
        [
            click.option("--src", default="blocked", show_default=True, help="Source layout spec (A)."),
            click.option("--dst", default="mma", show_default=True, help="Destination layout spec (B)."),
            SHAPE,
            DTYPE,
            WARPS,
            TPW,
            TARGET,
            TTGIR,
            *(
                [
                    click.option(
                        "--path",
                        "path_",
                        type=click.Choice(PATHS),
                        default=None,
                        help="Force a path (one that cannot work is an error saying why).",
                    )
                ]
                if with_path
                else []
            ),
            click.option(
                "--smem-budget",
                type=Integer(1, 1 << 30),
                default=None,
                help="Bytes of shared memory the conversion may use (default: the target's per-CTA limit); "
                "a tile over it is split into store/load rounds.",
            ),
            click.option(
                "--objective",
                type=click.Choice(OBJECTIVES),
                default="throughput",
                show_default=True,
                help="Pick the path for throughput (many CTAs per SM hide each other's latency) or for one CTA's latency "
                "(a conversion that runs alone: a warp-specialised partition, a small grid).",
            ),
            ALLOW_SKIPS,
        ]
    ):
        f = opt(f)
    return f


def _pair(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, shared_ok=False):
    """The two layouts, dtype and target of one conversion (llgen.spec.pair); ``shared_ok``: `llgen plan`'s
    shared-memory endpoints."""
    from .dtypes import dtype as to_dtype
    from .spec.pair import parse_pair, parse_shape

    return parse_pair(
        src,
        dst,
        parse_shape(shape),
        to_dtype(dtype),
        warps=warps,
        threads_per_warp=_tpw(threads_per_warp),
        target=target,
        module=_module(ttgir),
        shared_ok=shared_ok,
    )


def _plan_from(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, path_=None, smem_budget=None, objective=None):
    pair = _pair(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir)
    return pair.plan(path_, smem_budget, **_objective(objective)), pair


def _objective(objective: str | None) -> dict:
    """The plan option --objective sets: none for the default (throughput), so plans and their options stay as they were."""
    return {"objective": objective} if objective not in (None, "throughput") else {}


def _warn_registers(plan) -> None:
    """``warning: ...`` on stderr when the plan holds more registers a thread than a thread has."""
    from .plan.explain import registers_warning

    warning = registers_warning(plan)
    if warning:
        click.echo(warning, err=True)


def _whole_file(ttgir: str | None, spec_options: tuple[str, ...] = ("src", "dst", "shape", "dtype")) -> bool:
    """Whether a command takes every conversion of --ttgir: --ttgir given and no --src/--dst. Giving only one
    of them, or --shape/--dtype (each op has its own), is an error."""
    if ttgir is None:
        return False
    given = [name for name in spec_options if _given(name)]
    if "src" in given and "dst" in given:
        return False
    if given:
        raise LlgenError(
            f"--{given[0]} with --ttgir needs both --src and --dst (one conversion); without them every "
            "ttg.convert_layout of the file is taken, with its own shape and dtype."
        )
    return True


# ---------------------------------------------------------------------- commands
@click.group(cls=Group)
@click.version_option(package_name="llgen", prog_name="llgen", message="%(prog)s %(version)s")
def main() -> None:
    """llgen: linear-layout conversions over F2, planned and emitted as CUDA and HIP."""


@main.command()
@click.argument("spec", required=False)
@SHAPE
@WARPS
@TPW
@DTYPE
@TTGIR
@click.option("--json", "as_json", is_flag=True, help="Print Triton's bases form only.")
@click.option("--hw", is_flag=True, help="Print each thread's registers and the elements they hold instead of the grid.")
def layout(spec, shape, warps, threads_per_warp, dtype, ttgir, as_json, hw) -> None:
    """Print SPEC (short form, #ttg attribute, #alias with --ttgir, or @file.json) over --shape: the TTGIR
    attribute it resolves to, its bases as #ttg.linear, a thread grid (--hw: each thread's registers) and the F2
    matrix. With --ttgir and no SPEC: the file's aliases and every tensor type's layout as #ttg.linear."""

    def body() -> None:
        from .commands.layout import describe, file_text

        if spec is None:
            if ttgir is None:
                raise LlgenError("give a layout SPEC, or --ttgir FILE to list the layouts it defines.")
            given = [f"--{name}" for name in ("shape", "dtype", "json", "hw") if _given(name.replace("json", "as_json"))]
            if given:
                raise LlgenError(f"{given[0]} needs a layout SPEC; --ttgir alone lists every tensor type with its own shape.")
            click.echo(file_text(ttgir, warps, _tpw(threads_per_warp)))
        else:
            click.echo(describe(spec, shape, warps, _tpw(threads_per_warp), dtype, _module(ttgir), as_json, hw))

    run(body)


@main.command()
@_conversion_options
@click.option(
    "--form", type=click.Choice(FORMS), default=None, help="kernel, header or both [default: kernel; header with --ttgir]."
)
@click.option(
    "-o",
    "output",
    default=None,
    help="Output file, or a folder DIR/ (needed for --ttgir); missing folders are created. --form both -o NAME.cu writes NAME.cu and "
    "its header NAME.cuh beside it (HIP: NAME.hip and NAME.hip.h); every file is written or none.",
)
@click.option("--name", default=None, help="Namespace / kernel name (a C++ identifier).")
@click.option("--force", is_flag=True, help="Write over files llgen did not produce.")
@click.option("--explain", is_flag=True, help="Also explain the plan on stderr.")
def emit(
    src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, path_, smem_budget, objective, allow_skips, form, output,
    name, force, explain,
) -> None:  # fmt: skip
    """Emit CUDA or HIP source for SRC -> DST (the language follows --target). With --ttgir and no --src/--dst:
    one header per distinct ttg.convert_layout of the file, named from its source location, and index.txt; exit
    status 1 when an op is skipped (--allow-skips: 0)."""

    def body() -> None:
        from .commands.emit import write_sources
        from .names import check_identifier

        if output is not None and not output.strip():
            raise LlgenError("-o is empty: give a file or a folder.")
        if _whole_file(ttgir):
            from .commands.ttgir import emit_file

            if name is not None:
                raise LlgenError("--name names one conversion; with --ttgir each header is named from its op's location.")
            code = emit_file(
                ttgir,
                output,
                form or "header",
                force,
                command_line(),
                allow_skips,
                warps,
                _tpw(threads_per_warp),
                target,
                path_,
                smem_budget,
                **_objective(objective),
            )
            sys.exit(code)
        if name is not None:
            check_identifier(name)
        pair = _pair(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, shared_ok=True)
        plan = pair.plan_endpoint(path_, smem_budget) if pair.shared else pair.plan(path_, smem_budget, **_objective(objective))
        if explain:
            click.echo(plan.explain(), err=True)
        if not pair.shared:
            _warn_registers(plan)
        write_sources(plan, pair.kinds, form or "kernel", output, name, force, command_line())

    run(body)


@main.command()
@_conversion_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON (docs/plan-schema.md).")
def plan(
    src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, path_, smem_budget, objective, allow_skips, as_json
) -> None:  # fmt: skip
    """Explain how SRC -> DST moves: path, registers, C = B^-1 A, rounds, swizzle, widths, wavefronts. With --ttgir
    and no --src/--dst: every ttg.convert_layout of the file (line, shape, dtype, warps, target) and its plan; exit
    status 1 when an op is skipped (--allow-skips: 0)."""

    def body() -> None:
        import json

        if _whole_file(ttgir):
            from .commands.ttgir import plan_file

            sys.exit(
                plan_file(
                    ttgir,
                    as_json,
                    allow_skips,
                    warps,
                    _tpw(threads_per_warp),
                    target,
                    path_,
                    smem_budget,
                    **_objective(objective),
                )
            )
        pair = _pair(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, shared_ok=True)
        if pair.shared:  # a local_store / local_load: registers <-> a shared layout the hardware fixes
            p = pair.plan_endpoint(path_, smem_budget)
            click.echo(json.dumps(p.to_json()) if as_json else p.explain())
            return
        p = pair.plan(path_, smem_budget, **_objective(objective))
        click.echo(json.dumps(p.to_json()) if as_json else p.explain())
        _warn_registers(p)

    run(body)


@main.command()
@click.option("--src", "--write", "src", default="blocked", show_default=True, help="Layout that stores into shared memory (A).")
@click.option("--dst", "--read", "dst", default="mma", show_default=True, help="Layout that loads from it (B).")
@SHAPE
@DTYPE
@WARPS
@TPW
@TARGET
@TTGIR
@ALLOW_SKIPS
@click.option(
    "--family",
    type=click.Choice(["nvmma", "swizzled", "padded", "any"]),
    default=None,
    help="List this family's shared layouts for the tile, each with the wavefronts of its store from SRC and load "
    "into DST, the best marked, as #ttg text to paste into TTGIR (any: all families and llgen's optimal swizzle).",
)
def swizzle(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, allow_skips, family) -> None:
    """Unswizzled, classic and optimal shared layouts side by side, with wavefronts per access (at the access width
    both sides share; then the plan's own where one side widens its accesses). With --ttgir and no --src/--dst:
    every ttg.convert_layout of the file and its table; exit status 1 when an op is skipped (--allow-skips: 0).
    With --family: the layouts of that family a local_store from SRC and a local_load into DST could share."""

    def body() -> None:
        if _whole_file(ttgir):
            if family is not None:
                raise LlgenError("--family lists the shared layouts of one pair: give --src and --dst with --ttgir.")
            from .commands.ttgir import swizzle_file

            sys.exit(swizzle_file(ttgir, allow_skips, warps, _tpw(threads_per_warp), target))
        pair = _pair(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir)
        if family is not None:
            from .commands.swizzle_family import family_table

            click.echo(family_table(pair, family, dst, _module(ttgir)))
            return
        from .commands.swizzle import table

        click.echo(table(pair))

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
@SHAPE
@WARPS
@TPW
@DTYPE
@TARGET
@TTGIR
@click.option("--path", "path_", type=click.Choice(PATHS), default=None, help="Force the conversion's path.")
@click.option("--matrix", is_flag=True, help="Draw the F2 matrix instead (source and destination for a conversion).")
@click.option("--region", default=None, help="Draw rows r0:r1 and columns c0:c1 only (bank maps: segments and banks).")
@click.option(
    "--access", default=None, help="Highlight one warp access into a memory layout: a layout SPEC, or src / dst with --swizzle."
)
@click.option(
    "--step", default=0, show_default=True, type=Integer(0, 1 << 24), help="Register step of the --access layout (warp 0)."
)
@click.option("-o", "output", required=True, help="Output picture: FILE.svg or FILE.png.")
def show(
    spec,
    src,
    dst,
    swizzle_name,
    shape,
    warps,
    threads_per_warp,
    dtype,
    target,
    ttgir,
    path_,
    matrix,
    region,
    access,
    step,
    output,
) -> None:
    """Draw SPEC (thread grid or bank map), its --matrix, or the conversion --src -> --dst, to an SVG or PNG."""

    def body() -> None:
        from .commands.show import draw

        draw(
            spec,
            src,
            dst,
            swizzle_name,
            shape,
            warps,
            _tpw(threads_per_warp),
            dtype,
            target,
            _module(ttgir),
            path_,
            matrix,
            region,
            access,
            step,
            output,
        )

    run(body)


BENCH_MEASURES = ("loop", "stream", "wavefronts", "gather")


@main.group(invoke_without_command=True)
@click.option("--suite", type=LazyChoice(_suites), default=None, help="Benchmark a suite.")
@functools.partial(_conversion_options, with_path=False)
@click.option(
    "--measures",
    default="loop,stream,wavefronts",
    show_default=True,
    help=(
        "Comma list of loop, stream, wavefronts (Nsight Compute's shared-memory counters, and with "
        "loop its LSU-pipe counters where llgen and Triton are close) and gather (the gather benchmark)."
    ),
)
@click.option("--shard", default=None, metavar="I/N", help="Only the I-th of N pieces of the suite (every N-th case).")
@click.option("--cases", "case_ids", default=None, help="Comma list of case ids: only these (a rerun that merge puts in place).")
@click.option(
    "--time-budget", type=Integer(1, 1_000_000), default=None, help="Seconds; the cases after it become 'not run' rows."
)
@click.option(
    "-o",
    "out",
    default="bench",
    show_default=True,
    help="Directory for report.md, report.json, report.png; or FILE.json: this run's JSON alone, saved after every "
    "case (for `llgen bench merge`).",
)
@click.option(
    "--rep", default=100, show_default=True, type=Integer(1, 100000), help="do_bench repetition time (ms) per measurement."
)
@click.option("--no-triton", is_flag=True, help="Skip Triton's baseline.")
@click.pass_context
def bench(
    ctx, suite, src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, smem_budget, objective, allow_skips, measures,
    shard, case_ids, time_budget, out, rep, no_triton,
) -> None:  # fmt: skip
    """On a GPU: time llgen against Triton, naive and classic baselines; write the report. With --ttgir and no
    --src/--dst: every distinct ttg.convert_layout of the file. `llgen bench merge` joins the JSON of several
    runs (shards, suites) into one report."""
    if ctx.invoked_subcommand is not None:
        return

    def body() -> None:
        meas = [m.strip() for m in measures.split(",") if m.strip()]
        if set(meas) - set(BENCH_MEASURES):
            raise LlgenError(f"unknown measure(s) {sorted(set(meas) - set(BENCH_MEASURES))}; use {', '.join(BENCH_MEASURES)}.")
        if not out.strip():
            raise LlgenError("-o is empty: give a folder for the report, or FILE.json.")
        from llgen.runtime.bench.run import parse_shard, select_cases

        parts = parse_shard(shard) if shard else None
        skip_code = 0
        if suite is not None:
            from .suite import suite as suite_cases

            cases, tgt = select_cases(suite_cases(suite), case_ids), target or "sm_90"
        elif _whole_file(ttgir):
            from .commands.ttgir import bench_cases

            cases, tgt, skip_code = bench_cases(
                ttgir, allow_skips, warps, _tpw(threads_per_warp), target, smem_budget, **_objective(objective)
            )
        else:
            from .suite import Case

            p, _ = _plan_from(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, None, smem_budget, objective)
            cases, tgt = [Case("custom", p.dtype.name, p.src.shape, p.warps, p.src, p.dst)], p.target.name
        from llgen.runtime.bench.report import write_json, write_report
        from llgen.runtime.bench.run import run as run_bench

        to_json = out.endswith(".json")
        report = run_bench(
            cases,
            tgt,
            meas,
            rep,
            not no_triton,
            log=lambda m: click.echo(m, err=True),
            plan_options=({"smem_budget": smem_budget} if smem_budget else {}) | _objective(objective),
            suite=suite,
            shard=parts,
            baselines=suite in (None, "core"),  # the naive and classic kernels are core's reference points
            time_budget_s=time_budget,
            on_case=(lambda r: write_json(r, out)) if to_json else None,
        )
        if to_json:
            write_json(report, out)
            click.echo(out)
        else:
            for p in write_report(report, out):
                click.echo(str(p))
        if skip_code:
            sys.exit(skip_code)

    run(body)


@bench.command("merge")
@click.option("-o", "outdir", required=True, help="Directory for the merged report.md, report.json, report.png.")
@click.argument("parts", nargs=-1, required=True, metavar="RUN.json...")
def bench_merge(outdir, parts) -> None:
    """Merge the JSON of several `llgen bench -o FILE.json` runs (suites, shards, reruns of some cases: the later
    run's) into one report."""

    def body() -> None:
        from llgen.runtime.bench.merge import merge_reports
        from llgen.runtime.bench.report import write_report

        for p in write_report(merge_reports(parts), outdir):
            click.echo(str(p))

    run(body)


@bench.command("calibrate")
@click.argument("report", metavar="REPORT.json")
@click.option("-o", "out", default="tests/data/calibration.json", show_default=True, help="The calibration table to write.")
def bench_calibrate(report, out) -> None:
    """Write the calibration table from a bench report: each variant's measured LOOP time next to the cost model's
    prediction for the same plans (tests/test_calibration.py holds the model to it)."""

    def body() -> None:
        import json
        from pathlib import Path

        from llgen.runtime.bench.calibration import write_table

        try:
            data = json.loads(Path(report).read_text())
        except ValueError as e:
            raise LlgenError(f"{report} is not a bench report: {e}.") from None
        click.echo(write_table(data, out))

    run(body)


@main.command("check")
@_conversion_options
@click.option("--suite", type=LazyChoice(_suites), default=None, help="Every case of a suite, by every valid path.")
@click.option("--random", "n_random", type=Integer(0, 1_000_000), default=0, help="N random layout pairs (with --seed).")
@click.option("--seed", type=Integer(0, 1 << 62), default=0, show_default=True, help="Seed of the random pairs.")
@click.option(
    "--tiles", type=Integer(1, 1_000_000), default=1000, show_default=True, help="Tiles per run of the stacked-tile kernel."
)
@click.option(
    "--runs", type=Integer(1, 10_000), default=1, show_default=True, help="Runs per kernel, each on fresh random input."
)
@click.option("--report", "report_prefix", default=None, help="Write PREFIX.md and PREFIX.json.")
@click.option("--cpu", is_flag=True, help="Run the emitted text on CPU threads instead of a GPU (ldmatrix/stmatrix emulated).")
def check_command(
    src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, path_, smem_budget, objective, allow_skips, suite,
    n_random, seed, tiles, runs, report_prefix, cpu,
) -> None:  # fmt: skip
    """On a GPU: compile, run, and compare every slot, replica and output element with NumPy, bit for bit.

    One case (--src/--dst ...), a suite (--suite core), random pairs (--random N), or with --ttgir and no
    --src/--dst every distinct ttg.convert_layout of the file. Exit status 1 on any mismatch (the first bad
    slot is printed) or a skipped op (--allow-skips accepts those), 2 on bad input or when no GPU runtime is present."""

    def body() -> None:
        from llgen.runtime.checkcmd import run_check  # llgen.runtime loads only where a command runs kernels

        if report_prefix is not None and not report_prefix.strip():
            raise LlgenError("--report is empty: give a path prefix for PREFIX.md and PREFIX.json.")

        options = ({"smem_budget": smem_budget} if smem_budget else {}) | _objective(objective)
        common = {"tiles": tiles, "runs": runs, "plan_options": options, "cpu": cpu}
        if suite or n_random:
            code = run_check(
                None, suite=suite, n_random=n_random, seed=seed, target=target or "sm_90", report=report_prefix, **common
            )
        elif _whole_file(ttgir):
            from .commands.ttgir import check_plans

            plans, code = check_plans(
                ttgir, allow_skips, warps, _tpw(threads_per_warp), target, path_, smem_budget, **_objective(objective)
            )
            for label, p in plans:
                click.echo(f"{label}:")
                report = f"{report_prefix}-{label}" if report_prefix else None
                if p.path in ("local_store", "local_load"):  # a local op (runtime/endpointcheck.py)
                    from llgen.runtime.endpointcheck import run_endpoint_check

                    code = max(code, run_endpoint_check(p, runs=runs, cpu=cpu, report=report))
                else:
                    code = max(code, run_check(p, target=p.target.name, report=report, **common))
        else:
            pair = _pair(src, dst, shape, dtype, warps, threads_per_warp, target, ttgir, shared_ok=True)
            if pair.shared:  # a local_store / local_load: the shared tile's bytes or D's slots (runtime/endpointcheck.py)
                from llgen.runtime.endpointcheck import run_endpoint_check

                code = run_endpoint_check(pair.plan_endpoint(path_, smem_budget), runs=runs, cpu=cpu, report=report_prefix)
            else:
                p = pair.plan(path_, smem_budget, **_objective(objective))
                code = run_check(p, target=p.target.name, report=report_prefix, **common)
        if code:
            sys.exit(code)

    run(body)


@main.command("gpu-check")
@click.option(
    "--random", "n_random", type=Integer(0, 1_000_000), default=2000, show_default=True, help="Random pairs of real layouts."
)
@click.option(
    "--sanitize-random",
    type=Integer(0, 1_000_000),
    default=200,
    show_default=True,
    help="Of those, the first N also run under the sanitizers.",
)
@click.option("--seed", type=Integer(0, 1 << 62), default=5, show_default=True, help="Seed of the random pairs.")
@click.option(
    "--tiles",
    type=Integer(1, 1_000_000),
    default=1000,
    show_default=True,
    help="Tiles per tile-kernel run (capped at 4M elements).",
)
@click.option(
    "--runs", type=Integer(1, 10_000), default=2, show_default=True, help="Runs per kernel, each on fresh random input."
)
@click.option("--budget", type=click.FloatRange(1, 86_400), default=420, show_default=True, help="Seconds for the whole run.")
@click.option(
    "--ncu-random",
    type=Integer(0, 1_000_000),
    default=24,
    show_default=True,
    help="Random shared-memory pairs also measured by ncu.",
)
@click.option("--skip", default="", help="Comma list of parts to skip: correctness, ncu, memcheck, synccheck, racecheck.")
@click.option(
    "-o",
    "prefix",
    default=None,
    help="The report's path without .md/.json [default: llgen-gpu-check/gpu-check; `make gpu-check` writes bench/gpu-check].",
)
def gpu_check(n_random, sanitize_random, seed, tiles, runs, budget, ncu_random, skip, prefix) -> None:
    """On a GPU machine: every suite case and 2,000 random pairs against NumPy, Nsight Compute's bank counters
    against the planner, and compute-sanitizer; writes PREFIX.md and PREFIX.json. Exit status 1 if a part failed,
    2 without CuPy or a GPU (nothing written)."""

    def body() -> None:
        from llgen.runtime.gpucheck import Settings
        from llgen.runtime.gpucheck import main as gpu_check_main

        if prefix is not None and not prefix.strip():
            raise LlgenError("-o is empty: give the report's path without .md/.json.")
        settings = Settings(
            random=n_random,
            sanitize_random=sanitize_random,
            seed=seed,
            tiles=tiles,
            runs=runs,
            budget=budget,
            ncu_random=ncu_random,
            skip=frozenset(x.strip() for x in skip.split(",") if x.strip()),
            **({"prefix": prefix} if prefix is not None else {}),
        )
        code = gpu_check_main(settings)
        if code:
            sys.exit(code)

    run(body)


if __name__ == "__main__":
    main(prog_name=os.path.basename(sys.argv[0]) or "llgen")
