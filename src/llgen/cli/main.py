"""The ``llgen`` command line: a click group and each command's options; a command's body is a function of
llgen.cli.commands.<name> (the options several share: llgen.cli.commands.options) and runs under `run`, which turns an
`LlgenError` into one line ``error: ...`` on stderr and exit status 2 (click's own usage errors take the same
form, see llgen.cli.app).

Keep imports here light: `llgen layout` must answer in well under 0.3 s from a cold start, so modules that
pull in numpy or jinja2 are imported inside the commands that need them.
"""

from __future__ import annotations

import functools
import os
import sys

import click

from llgen.cli.app import Group, Integer, LazyChoice, run
from llgen.cli.commands.options import (
    ALLOW_SKIPS,
    DTYPE,
    FORMS,
    PATHS,
    SHAPE,
    TARGET,
    TPW,
    TTGIR,
    WARPS,
    Flags,
    bench_suites,
    conversion_options,
    suite_aliases,
    suites,
)


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
@click.option(
    "--op",
    "ops",
    multiple=True,
    metavar="OP",
    help="Apply a shape op to SPEC over --shape, in the order given: trans=1,0, reshape=64x2x32, join, split, "
    "expand_dims=AXIS, broadcast=SHAPE, fp4_to_fp=AXIS. Prints each result layout as Triton 3.6 infers it, then "
    "the last one as `llgen layout RESULT --shape RESULT_SHAPE` prints it (--json: its bases).",
)
@click.option(
    "--backward",
    is_flag=True,
    help="With --op: SPEC is the wanted result of the ops (over the shape they make from --shape); print the layout "
    "over --shape that Triton's backward inference gives the ops' input.",
)
def layout(**options) -> None:
    """Print SPEC (short form, #ttg attribute, #alias with --ttgir, or @file.json) over --shape: the TTGIR
    attribute it resolves to, its bases as #ttg.linear, its longest vector per thread, a thread grid (--hw: each
    thread's registers) and the F2 matrix. With --op: the layout each shape op leaves (the layout that makes it a
    no-op, as Triton infers it). With --ttgir and no SPEC: the file's aliases and every tensor type's layout as
    #ttg.linear."""

    def body() -> None:
        from llgen.cli.commands.layout import layout_command

        layout_command(Flags(**options))

    run(body)


@main.command()
@conversion_options
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
@click.option(
    "--then",
    default=None,
    metavar="SPEC",
    help="With --dst a shared layout: the registers the tile is loaded into. One header holds the tile's store "
    "(--src -> --dst) and load (--dst -> --then).",
)
@click.option(
    "--name",
    default=None,
    help="Namespace / kernel name (a C++ identifier); with --ttgir, the prefix of every header's name (in place of "
    "the function and the hash).",
)
@click.option("--force", is_flag=True, help="Write over files llgen did not produce.")
@click.option("--explain", is_flag=True, help="Also explain the plan on stderr.")
def emit(**options) -> None:
    """Emit CUDA or HIP source for SRC -> DST (the language follows --target); with --then, the header of the
    shared tile DST, stored from SRC and loaded into THEN. With --ttgir and no --src/--dst: one header per distinct
    op of the file, named from its function, source location and a hash of its code (the local_store and
    local_load of one allocation share a tile header), and index.txt; exit status 1 when an op is skipped
    (--allow-skips: 0)."""

    def body() -> None:
        from llgen.cli.commands.emit import emit_command

        emit_command(Flags(**options))

    run(body)


@main.command()
@conversion_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON (docs/plan-schema.md).")
def plan(**options) -> None:
    """Explain how SRC -> DST moves: path, registers, C = B^-1 A, rounds, swizzle, widths, wavefronts. With --ttgir
    and no --src/--dst: every ttg.convert_layout of the file (line, shape, dtype, warps, target) and its plan; exit
    status 1 when an op is skipped (--allow-skips: 0)."""

    def body() -> None:
        from llgen.cli.commands.plan import plan_command

        plan_command(Flags(**options))

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
    "into DST and the cycles of both in the cost model, the cheapest marked, as #ttg text to paste into TTGIR (any: "
    "all families and llgen's optimal swizzle).",
)
def swizzle(**options) -> None:
    """Unswizzled, classic and optimal shared layouts side by side, with wavefronts per access (at the access width
    both sides share; then the plan's own where one side widens its accesses). With --ttgir and no --src/--dst:
    every ttg.convert_layout of the file and its table; exit status 1 when an op is skipped (--allow-skips: 0).
    With --family: the layouts of that family a store from SRC and a load into DST could share."""

    def body() -> None:
        from llgen.cli.commands.swizzle import swizzle_command

        swizzle_command(Flags(**options))

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
@click.option(
    "--op",
    "ops",
    multiple=True,
    metavar="OP",
    help="Draw SPEC beside the layout each shape op makes of it, in order (as `llgen layout --op`: trans=1,0, "
    "reshape=SHAPE, join, split, expand_dims=AXIS, broadcast=SHAPE, fp4_to_fp=AXIS).",
)
@click.option("-o", "output", required=True, help="Output picture: FILE.svg or FILE.png.")
def show(**options) -> None:
    """Draw SPEC (thread grid or bank map), its --matrix, the conversion --src -> --dst, or SPEC through --op shape
    ops, to an SVG or PNG."""

    def body() -> None:
        from llgen.cli.commands.show import show_command

        show_command(Flags(**options))

    run(body)


@main.group(invoke_without_command=True)
@click.option(
    "--suite",
    type=LazyChoice(bench_suites, suite_aliases),
    default=None,
    help="Benchmark a suite (endpoint: stores and loads through fixed shared layouts; mixed: packed weights into mma operand registers, upcast, beside Triton).",
)
@functools.partial(conversion_options, with_path=False)
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
def bench(ctx, **options) -> None:
    """On a GPU: time llgen against Triton, naive and classic baselines; write the report. With --ttgir and no
    --src/--dst: every distinct ttg.convert_layout of the file. `llgen bench merge` joins the JSON of several
    runs (shards, suites) into one report."""
    if ctx.invoked_subcommand is not None:
        return

    def body() -> None:
        from llgen.cli.commands.bench import bench_command

        bench_command(Flags(**options))

    run(body)


@bench.command("merge")
@click.option("-o", "outdir", required=True, help="Directory for the merged report.md, report.json, report.png.")
@click.argument("parts", nargs=-1, required=True, metavar="RUN.json...")
def bench_merge(**options) -> None:
    """Merge the JSON of several `llgen bench -o FILE.json` runs (suites, shards, reruns of some cases: the later
    run's) into one report."""

    def body() -> None:
        from llgen.cli.commands.bench import merge_command

        merge_command(**options)

    run(body)


@bench.command("calibrate")
@click.argument("report", metavar="REPORT.json")
@click.option("-o", "out", default="tests/data/calibration.json", show_default=True, help="The calibration table to write.")
def bench_calibrate(**options) -> None:
    """Write the calibration table from a bench report: each variant's measured LOOP time next to the cost model's
    prediction for the same plans (tests/test_calibration.py holds the model to it)."""

    def body() -> None:
        from llgen.cli.commands.bench import calibrate_command

        calibrate_command(**options)

    run(body)


@main.command("check")
@conversion_options
@click.option(
    "--suite",
    type=LazyChoice(suites, suite_aliases),
    default=None,
    help="Every case of a suite, by every valid path (not endpoint, the shared-memory endpoints: llgen bench only).",
)
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
def check_command(**options) -> None:
    """On a GPU: compile, run, and compare every slot, replica and output element with NumPy, bit for bit.

    One case (--src/--dst ...), a suite (--suite core), random pairs (--random N), or with --ttgir and no
    --src/--dst every distinct ttg.convert_layout of the file. Exit status 1 on any mismatch (the first bad
    slot is printed) or a skipped op (--allow-skips accepts those), 2 on bad input or when no GPU runtime is present."""

    def body() -> None:
        from llgen.cli.commands.check import check_command

        check_command(Flags(**options))

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
@click.option(
    "--budget",
    type=click.FloatRange(1, 86_400),
    default=600,
    show_default=True,
    help="Seconds for the whole run, each part given its share. The default finishes every part at the default counts "
    "on an H100 or H200 (about 550 s); the report says what a smaller budget left unfinished.",
)
@click.option(
    "--ncu-random",
    type=Integer(0, 1_000_000),
    default=24,
    show_default=True,
    help="Random shared-memory pairs also measured by ncu.",
)
@click.option(
    "--endpoints",
    "n_endpoints",
    type=Integer(0, 1_000_000),
    default=120,
    show_default=True,
    help="Random shared-memory endpoint pairs (each a store, a load and a round trip).",
)
@click.option(
    "--sanitize-endpoints",
    type=Integer(0, 1_000_000),
    default=24,
    show_default=True,
    help="Of those, the first N also run under the sanitizers.",
)
@click.option(
    "--bench-kernels",
    type=click.Choice(["all", "picks"]),
    default="all",
    show_default=True,
    help="The bench's own kernels to check: every variant of core, wide, warplocal and endpoint (the shared-memory endpoints) and "
    "the scratch-sharing chains, or llgen's picks of core only (quicker).",
)
@click.option(
    "--skip",
    default="",
    help="Comma list of parts to skip: correctness, endpoints, ncu, endpoint-ncu, memcheck, synccheck, racecheck.",
)
@click.option(
    "-o",
    "prefix",
    default=None,
    help="The report's path without .md/.json [default: llgen-gpu-check/gpu-check; `make gpu-check` writes bench/gpu-check].",
)
def gpu_check(**options) -> None:
    """On a GPU machine: every suite case and 2,000 random pairs against NumPy, shared-memory endpoints (every shared
    family, store, load and round trip), Nsight Compute's bank counters against the planner, and compute-sanitizer;
    writes PREFIX.md and PREFIX.json. The verdict: FAIL (exit status 1) if a part found a wrong element, an error or
    a counter off the prediction; INCOMPLETE (exit status 4) if none did but the budget cut a part short (it says
    'not finished' and how far it got); else PASS. Exit status 2 without CuPy or a GPU (nothing written)."""

    def body() -> None:
        from llgen.cli.commands.gpu_check import gpu_check_command

        gpu_check_command(Flags(**options))

    run(body)


@main.command()
@click.option("--dst", required=True, help="B: the operand layout whose registers load straight from memory (e.g. a dot_op).")
@SHAPE
@click.option("--tile", default=None, help="One CTA's tile of --shape, e.g. 64x128 (default: the whole shape).")
@DTYPE
@WARPS
@TPW
@click.option(
    "--decode",
    type=click.Choice(["plain", "fast"]),
    default="plain",
    show_default=True,
    help="fast: 4-bit elements in the order 0,2,4,6,1,3,5,7 within each word, i8 in the order 0,2,1,3; both upcast in "
    "fewer instructions.",
)
@click.option(
    "--memory",
    type=click.Choice(["g", "k"]),
    default="g",
    show_default=True,
    help="What --json and -o use: g, the pre-shuffled layout G; k, the weight stored K-contiguous with K permuted.",
)
@click.option(
    "--scale-block",
    type=Integer(1, 1 << 20),
    default=None,
    help="B's values take e8m0 scales, one per this many elements along K (32 for mx types). Prints the scales' G "
    "(what each thread needs: a broadcast of B, loaded as vectors); -o writes their loader (in their G) beside the values', whose "
    "header multiplies by them (scale_bf16; for e2m1 a scaled upcast_bf16).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the memory layout only, as `llgen layout` prints one.")
@click.option("-o", "--out", default=None, help="Folder for the loader header, the repack kernel and the NumPy repack.")
@click.option("--force", is_flag=True, help="Overwrite existing files.")
def preshuffle(dst, shape, tile, dtype, warps, threads_per_warp, decode, memory, scale_block, as_json, out, force) -> None:
    """The global memory layout G of a tensor in which every thread of --dst loads its registers as 16-byte vectors
    and each warp's load reads whole 128-byte lines, with no shared memory and no conversion: its offset bits by
    role, the sectors a load touches against the floor, the K permutation that needs no repack, and the plain
    row-major load beside them. -o writes the loader header (with the 4-bit upcasts), the repack kernel and the
    repack as NumPy."""

    def body() -> None:
        from llgen.cli.commands.preshuffle import PreshuffleRequest, preshuffle_command

        req = PreshuffleRequest(dst, shape, tile, dtype, warps, threads_per_warp, decode, scale_block)
        preshuffle_command(req, as_json, memory, out, force)

    run(body)


@main.command()
@click.option(
    "--env", "as_env", is_flag=True, help="Print the shell's `export PATH=...` and `export LIBRARY_PATH=...` lines only."
)
def toolchain(as_env) -> None:
    """The CUDA toolchain llgen's tests and docs/vendoring.md build with: pip's nvcc (which `make test` installs), its
    libraries and this llgen's bin folder. --env prints them as exports for a shell to take: eval "$(.venv/bin/llgen
    toolchain --env)" puts llgen and nvcc on PATH and the CUDA libraries nvcc links on LIBRARY_PATH."""

    def body() -> None:
        from llgen.cli.commands.toolchain import toolchain_command

        toolchain_command(as_env)

    run(body)


if __name__ == "__main__":
    main(prog_name=os.path.basename(sys.argv[0]) or "llgen")
