"""The options several ``llgen`` commands share, and the helpers that turn their values into layouts and plans.
Imported by llgen.cli at start-up, so it stays light: what pulls in numpy or jinja2 is imported inside the helpers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from llgen.cli.app import Integer
from llgen.core.dtypes import ALIASES, DTYPES
from llgen.core.errors import LlgenError
from llgen.core.options import Options
from llgen.core.target import TARGETS
from llgen.core.vocab import OBJECTIVES, PAIRINGS, PATHS  # noqa: F401 - PATHS for llgen.cli: the CLI's choices, defined once

if TYPE_CHECKING:
    from llgen.spec.module import Module


class Flags:
    """One command's click options by name, read-only: what the click command received, passed on as one value (a
    command's body reads ``flags.src``, never a list of positional values)."""

    __slots__ = ("_values",)

    def __init__(self, **values) -> None:
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no option {name!r} among {sorted(self._values)}") from None

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError("a command's flags are read-only")


FORMS = ("kernel", "header", "both")
DTYPE_NAMES = (*DTYPES, *ALIASES)


def suites() -> list[str]:
    from llgen.cases.suite import SUITES

    return list(SUITES)


def suite_aliases() -> dict[str, str]:
    """Older suite names still accepted (llgen.cases.suite.SUITE_ALIASES: smem, the endpoint suite's)."""
    from llgen.cases.suite import SUITE_ALIASES

    return SUITE_ALIASES


def bench_suites() -> list[str]:
    """The suites llgen bench times: the conversion and endpoint suites, and mixed (llgen.cases.mixed)."""
    return [*suites(), "mixed"]


def given(name: str) -> bool:
    """Whether option ``name`` was given on the command line (not left at its default)."""
    source = click.get_current_context().get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def option_given(name: str) -> bool:
    """Whether option ``name`` was given; outside a command (a caller of pair_from's own) every value counts as given."""
    try:
        return given(name)
    except RuntimeError:
        return True


def tpw(value: str | None) -> int | None:
    return int(value) if value else None


def ttgir_module(ttgir: str | None):
    """The last TTGIR module of --ttgir (aliases and defaults for single specs), or None."""
    if ttgir is None:
        return None
    from llgen.spec.module import read_ttgir

    return read_ttgir(ttgir)[-1]


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


def conversion_options(f, *, with_path: bool = True):
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
            click.option(
                "--pairing",
                type=click.Choice(PAIRINGS),
                default="natural",
                show_default=True,
                help="Which 8- or 16-bit elements share a 32-bit word. natural: registers 2k, 2k+1 (8-bit: 4k..4k+3), "
                "as an MMA fragment needs; free: both sides' registers reordered so that no word is rebuilt, where that "
                "is no dearer, for an element-wise consumer and the way back (the header and `llgen plan` state the "
                "order, or why the natural words are kept; with --ttgir, its convert_layout ops).",
            ),
            ALLOW_SKIPS,
        ]
    ):
        f = opt(f)
    return f


@dataclass(frozen=True)
class Asked:
    """What the command line said about where the layouts run; None: not said, so the layouts or the dump decide."""

    warps: int | None = None
    threads_per_warp: int | None = None
    target: str | None = None


NOTHING_ASKED = Asked()


def asked(warps, threads_per_warp, target) -> Asked:
    """The Asked of a command's --warps, --threads-per-warp and --target."""
    return Asked(warps, tpw(threads_per_warp), target)


def flags_asked(flags: Flags) -> Asked:
    """The Asked of a command's flags (--warps, --threads-per-warp, --target)."""
    return asked(flags.warps, flags.threads_per_warp, flags.target)


def flags_spec(flags: Flags) -> PairSpec:
    """The PairSpec of a command's --src, --dst, --shape, --dtype, where they run and --ttgir."""
    return PairSpec(flags.src, flags.dst, flags.shape, flags.dtype, flags_asked(flags), flags.ttgir)


def flags_pair(flags: Flags, shared_ok: bool = False):
    """The pair a command's flags state (`pair_from` of `flags_spec`)."""
    return pair_from(flags_spec(flags), shared_ok)


@dataclass(frozen=True)
class PairSpec:
    """One conversion as a command's options state it, not yet parsed: --src and --dst over --shape as --dtype (its
    name), where they run, and the --ttgir file whose aliases and defaults they may use. pair_from parses it."""

    src: str
    dst: str
    shape: str
    dtype: str
    asked: Asked = NOTHING_ASKED
    ttgir: str | None = None


def pair_from(spec: PairSpec, shared_ok: bool = False):
    """The two layouts, dtype and target of one conversion (llgen.spec.pair); ``shared_ok``: `llgen plan`'s
    shared-memory endpoints."""
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.spec.pair import Stated, parse_pair, parse_shape

    shape = parse_shape(spec.shape)
    stated = Stated(
        to_dtype(spec.dtype) if option_given("dtype") else None,  # not given: the --ttgir dump's ops or a layout may say it
        spec.asked.warps,
        spec.asked.threads_per_warp,
        spec.asked.target,
        ttgir_module(spec.ttgir),
    )
    return parse_pair(spec.src, spec.dst, shape, stated, shared_ok=shared_ok)


@dataclass(frozen=True)
class Reading:
    """How a command reads a layout SPEC: over --shape as --dtype (its name), where ``asked`` says it runs, with the
    aliases and defaults of the --ttgir ``module`` (None: no --ttgir)."""

    shape: str
    dtype: str
    asked: Asked = NOTHING_ASKED
    module: Module | None = None


def plan_options(path_=None, smem_budget=None, objective=None, pairing=None) -> Options:
    """The one Options object of a command's --path, --smem-budget, --objective and --pairing (None: not given)."""
    return Options.of(path=path_, smem_budget=smem_budget, objective=objective, pairing=pairing)


def warn_registers(plan) -> None:
    """``warning: ...`` on stderr when the plan holds more registers a thread than a thread has."""
    from llgen.plan.explain import registers_warning

    warning = registers_warning(plan)
    if warning:
        click.echo(warning, err=True)


def whole_file(ttgir: str | None, spec_options: tuple[str, ...] = ("src", "dst", "shape", "dtype")) -> bool:
    """Whether a command takes every conversion of --ttgir: --ttgir given and no --src/--dst. Giving only one
    of them, or --shape/--dtype (each op has its own), is an error."""
    if ttgir is None:
        return False
    named = [name for name in spec_options if given(name)]
    if "src" in named and "dst" in named:
        return False
    if named:
        raise LlgenError(
            f"--{named[0]} with --ttgir needs both --src and --dst (one conversion); without them every "
            "ttg.convert_layout of the file is taken, with its own shape and dtype."
        )
    return True


def said_byte_plan(plan, then: str = ""):
    """A 4-bit plan's byte plan (llgen.plan.packed), what the command draws or times, its packing said on stderr
    first (and ``then``); any other plan itself."""
    if plan.kind != "packed":
        return plan
    click.echo(plan.bytes_line() + then, err=True)
    return plan.inner
