"""Fuzz: Hypothesis drives the spec parsers, the TTGIR reader and every command with random and mutated input.
Whatever comes in, the parsers raise nothing but one-sentence LlgenErrors, and a command exits 0 or 2 (2 with
exactly one line on stderr), leaving nothing on disk but the files it was asked to write. Every call takes a
few seconds at most; `make perf` (tests/test_perf.py) holds the inputs that once hung to HANG seconds, so no
wall-clock assert runs in `make test`.

Deterministic by default (the same examples every run, about 30 s in all); LLGEN_FUZZ=N runs N times as many
fresh random examples (e.g. LLGEN_FUZZ=20 .venv/bin/pytest tests/test_fuzz.py)."""

from __future__ import annotations

import os
import re

import pytest
from click.testing import CliRunner
from helpers import ROOT, one_sentence
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llgen.cli import main
from llgen.core.errors import LlgenError
from llgen.spec import parse_layout
from llgen.spec.facts import spec_facts
from llgen.spec.module import parse_ttgir

SCALE = int(os.environ.get("LLGEN_FUZZ", "0") or 0)
FUZZ = settings(
    max_examples=1,
    deadline=None,
    database=None,
    derandomize=not SCALE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)


def examples(n: int) -> settings:
    return settings(FUZZ, max_examples=n * max(1, SCALE))


MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
SEEDS = [
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    MMA,
    "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
    f"#ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>",
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
    "#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>",
    f"#ttg.slice<{{dim = 1, parent = {MMA}}}>",
    "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [[4, 0], [0, 0]], block = []}>",
    "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 1]]}>",
    "blocked",
    "blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0",
    "mma",
    "mma:v=3,wpc=4x1,instr=16x64x16",
    "wgmma:n=64",
    "dot:op=1,k_width=4,parent=(mma:wpc=2x2)",
    "mfma:16,tiles=2x1,bits=64,instr=16x16x16,wpc=2x2",
    "wmma:v=2",
    "slice:dim=0,parent=(blocked)",
    "linear:register=[[0,1]],lane=[[0,2],[0,4],[0,8],[1,0],[2,0]],warp=[[4,0],[0,0]]",
    "swizzled:vec=2,per_phase=1,max_phase=4,order=1x0",
    "nvmma:64",
    "#blocked",
]
NUMBERS = ["0", "1", "2", "3", "4", "8", "16", "64", "-1", "65536", "16777217", "1099511627776", "\u0668", "\u00b2", "2_0"]
PIECES = [*"[]{}()<>#,=:x- 0123456789", "true", "false", "parent=(", "#ttg.", "}>", "[[", "]]", "\u00b2", "\u0668", "#mma"]


@st.composite
def specs(draw) -> str:
    """A seed spec, with numbers replaced, characters inserted or deleted, or random text."""
    spec = draw(st.sampled_from(SEEDS))
    how = draw(st.sampled_from(["seed", "numbers", "numbers", "chars", "text"]))
    if how == "numbers":
        parts = re.split(r"(-?[0-9]+)", spec)
        for i in range(1, len(parts), 2):
            if draw(st.booleans()):
                parts[i] = draw(st.sampled_from(NUMBERS))
        spec = "".join(parts)
    elif how == "chars":
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(spec)))
            if draw(st.booleans()) and spec:
                spec = spec[: max(0, i - 1)] + spec[i:]
            else:
                spec = spec[:i] + draw(st.sampled_from(PIECES)) + spec[i:]
    elif how == "text":
        spec = draw(st.text(max_size=40))
    return spec


shapes = st.lists(st.sampled_from([1, 2, 4, 8, 16, 32, 64]), min_size=1, max_size=3).map(lambda s: "x".join(map(str, s)))
shape_texts = st.one_of(shapes, st.sampled_from(["", "x", "128x", "65536x65536", "16x\u0668", "0x4", "3x4", "-4x4", "4 x 4"]))


@examples(300)
@given(spec=specs(), shape=st.lists(st.sampled_from([1, 2, 4, 16, 64, 256]), min_size=1, max_size=3))
def test_spec_parsers_raise_only_llgen_errors(spec, shape):
    for call in (lambda: spec_facts(spec), lambda: parse_layout(spec, shape, 4)):
        try:
            call()
        except LlgenError as e:
            one_sentence(e)


DUMP = (ROOT / "tests" / "data" / "ttgir" / "attention_fwd.ttgir").read_text().splitlines()


@st.composite
def dumps(draw) -> str:
    """A real dump with lines deleted, repeated or garbled and numbers replaced."""
    lines = list(DUMP)
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["delete", "repeat", "numbers", "garble", "insert"]))
        if how == "delete":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "numbers":
            lines[i] = re.sub(r"[0-9]+", lambda _m: draw(st.sampled_from(NUMBERS)), lines[i])
        elif how == "garble":
            j = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:j] + draw(st.sampled_from(PIECES)) + lines[i][j + 1 :]
        else:
            lines.insert(
                i, draw(st.sampled_from(["// -----// IR Dump Before X", "#mma = #mma", "module {", "}", "#loc9 = loc(#loc9)"]))
            )
    return "\n".join(lines)


@examples(40)
@given(text=dumps())
def test_ttgir_reader_raises_only_llgen_errors(tmp_path_factory, text):
    try:
        parse_ttgir(text, "fuzz.ttgir")
    except LlgenError as e:
        one_sentence(e)
    path = tmp_path_factory.mktemp("dump") / "fuzz.ttgir"
    path.write_text(text)
    run_command(["plan", "--ttgir", str(path)], path.parent)


def run_command(args: list[str], folder, may_write: bool = False) -> None:
    """Run ``llgen args`` in ``folder``: exit 0 or 2, one line for 2, a few seconds, no file left unless written
    by a successful command that was asked to write."""
    before = sorted(p.name for p in folder.iterdir())
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        res = CliRunner().invoke(main, args)
    finally:
        os.chdir(cwd)
    skipped = res.exit_code == 1 and res.stderr.endswith("(pass --allow-skips to accept that).\n")  # --ttgir: ops skipped
    assert res.exit_code in (0, 2) or skipped, (args, res.exit_code, res.output[-2000:])
    if res.exit_code == 2:
        lines = res.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, res.stderr)
    after = sorted(p.name for p in folder.iterdir())
    if not (may_write and res.exit_code in (0, 1)):
        assert after == before, (args, before, after)
    assert not [n for n in after if n.startswith(".")], (args, after)


COMMANDS = ["layout"] * 3 + ["plan"] * 3 + ["emit"] * 2 + ["swizzle"] * 2 + ["show", "check", "bench"]
HANG = 30  # seconds: a call that takes longer hangs (tests/test_perf.py holds the hang inputs to it, under `make perf`)
OPTION_VALUES = {
    "--shape": shape_texts,
    "--warps": st.sampled_from(["1", "2", "4", "8", "64", "0", "3", "\u0668", "1099511627776", "-1", ""]),
    "--threads-per-warp": st.sampled_from(["32", "64", "16"]),
    "--dtype": st.sampled_from(["f16", "f32", "i8", "f64", "bf16", "fp16", "half", "f13", ""]),
    "--target": st.sampled_from(["sm_80", "sm_90", "gfx90a", "gfx942", "sm_70", ""]),
    "--path": st.sampled_from(["noop", "registers", "shuffle", "shared", "nope"]),
    "--smem-budget": st.sampled_from(["1024", "0", "16", "99999999999", "x"]),
    "--name": st.sampled_from(["ok_name", "int", "class", "9x", "__x", "", "a b", "std"]),
    "--form": st.sampled_from(["kernel", "header", "both", "neither"]),
    "--suite": st.sampled_from(["core", "regressions", "nope"]),
    "--ttgir": st.sampled_from(["DUMP", "missing.ttgir", ".", "README"]),
    "--swizzle": st.sampled_from(["optimal", "classic", "unswizzled", "best"]),
    "--pairing": st.sampled_from(["natural", "free", "loose"]),
}
TAKES = {
    "layout": ["--shape", "--warps", "--threads-per-warp", "--dtype", "--ttgir"],
    "plan": [
        "--shape",
        "--warps",
        "--threads-per-warp",
        "--dtype",
        "--target",
        "--path",
        "--smem-budget",
        "--ttgir",
        "--pairing",
    ],
    "emit": ["--shape", "--warps", "--dtype", "--target", "--path", "--name", "--form", "--ttgir", "--pairing"],
    "swizzle": ["--shape", "--warps", "--threads-per-warp", "--dtype", "--target", "--ttgir"],
    "show": ["--shape", "--warps", "--dtype", "--target", "--swizzle"],
    "check": ["--shape", "--warps", "--dtype", "--target", "--path", "--suite", "--ttgir", "--pairing"],
    "bench": ["--shape", "--warps", "--dtype", "--target", "--suite", "--ttgir"],
}


LINEAR_A = "linear:register=[[1,0],[2,0],[4,0],[8,0]],lane=[[0,1],[0,2],[0,4],[0,8],[0,16]]"
LINEAR_B = "linear:register=[[0,2],[0,4],[0,8],[0,16]],lane=[[1,0],[2,0],[4,0],[8,0],[0,1]]"
GOOD = [  # pairs that convert as they are, with their shape and extra options
    ("blocked", "mma", ["--shape", "64x64"]),
    ("mma", "blocked", ["--shape", "32x32"]),
    ("blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", "dot:op=0,k_width=2", ["--shape", "64x32"]),
    ("mfma", "blocked", ["--shape", "64x64"]),
    ("wgmma", "blocked", ["--shape", "64x64"]),
    (LINEAR_A, LINEAR_B, ["--shape", "16x32", "--dtype", "f32"]),
    ("#mma", "#blocked", ["--shape", "128x64", "--ttgir", "DUMP"]),
    ("slice:dim=0,parent=(blocked)", "slice:dim=1,parent=(blocked)", ["--shape", "64"]),
    ("mma:wpc=4x1", "dot:op=1,k_width=2,parent=(mma:wpc=4x1)", ["--shape", "32x32"]),
]


@st.composite
def command_lines(draw) -> tuple[list[str], bool]:
    """(arguments, whether the command may write files when it succeeds): half of them a pair that converts,
    perhaps with one spec's numbers changed, the rest random specs; then a few options of random values."""
    cmd = draw(st.sampled_from(COMMANDS))
    how = draw(st.sampled_from(["good", "good", "mutated", "random", "whole file"]))
    src, dst, extra = draw(st.sampled_from(GOOD))
    if how == "mutated":
        src = draw(specs()) if draw(st.booleans()) else src
        dst = dst if src != GOOD[0][0] else draw(specs())
    elif how == "random":
        src, dst, extra = draw(specs()), draw(specs()), []
    args = [cmd]
    if how == "whole file" and cmd in ("plan", "emit", "check", "bench", "layout"):
        args += ["--ttgir", "DUMP"]
    elif cmd == "layout" or (cmd == "show" and draw(st.booleans())):
        args += [src, *[e for e in extra if e != "--dtype" and e != "f32"]]
    else:
        args += ["--src", src, "--dst", dst, *extra]
    for opt in draw(st.lists(st.sampled_from(TAKES[cmd]), max_size=2, unique=True)):
        args += [opt, draw(OPTION_VALUES[opt])]
    writes = False
    if (cmd == "emit" and draw(st.booleans())) or cmd == "show":
        args += ["-o", draw(st.sampled_from(["out/", "a.svg", "a.cu", "", "a.txt", "out"]))]
        writes = True
    if cmd == "bench":
        args += ["-o", "report", "--no-triton"]
    return args, writes


def _materialise(args: list[str]) -> list[str]:
    dump = str(ROOT / "tests" / "data" / "ttgir" / "attention_fwd.ttgir")
    return [{"DUMP": dump, "README": str(ROOT / "README.md")}.get(a, a) for a in args]


@examples(150)
@given(case=command_lines())
def test_every_command_exits_0_or_2_with_one_line(tmp_path_factory, case):
    args, writes = case
    if args[0] == "show":
        args = [a if a not in ("64x64", "64x32", "128x64", "32x32") else "16x16" for a in args]  # pictures stay small
    if "--shape" not in args and "--ttgir" not in args:
        args += ["--shape", "32x32"]  # small tiles: emit stays fast
    run_command(_materialise(args), tmp_path_factory.mktemp("cmd"), may_write=writes)


@pytest.mark.parametrize(
    "args",
    [
        ["layout", "#ttg.blocked<{sizePerThread = [1, \u00b2]}>"],
        ["plan", "--shape", "65536x65536"],
        ["emit", "--name", "class"],
        ["gpu-check", "--bogus"],
    ],
)
def test_a_real_process_prints_one_line(tmp_path, args):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "llgen", *args], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False
    )
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert list(tmp_path.iterdir()) == []
