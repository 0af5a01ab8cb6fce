"""Timings, run by `make perf` (``-m perf``), never by `make test`: each records its time against the target it
had when it was a unit test's assert, and the run ends with the table (tests/conftest.py)."""

from __future__ import annotations

import multiprocessing
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_plan import BLOCKED, BLOCKED64, BLOCKED_T, MMA, _lay128

from llgen import LinearLayout, LlgenError
from llgen.plan import plan_conversion

pytestmark = pytest.mark.perf


@pytest.fixture
def timing(perf_table):
    """``timing(what, seconds, target)``: into the perf table, and a failure when it misses its target."""

    def check(what: str, seconds: float, target: float) -> None:
        assert perf_table(what, seconds, target), f"{what}: {seconds:.3f} s, target {target:g} s"

    return check


def _best(fn, repeat: int) -> float:
    best = 1e9
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def test_cold_start(timing):
    code = "import sys; sys.argv = ['llgen', 'layout', 'mma', '--shape', '128x128', '--json']; from llgen.cli import main; main()"

    def run():
        out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr

    timing("llgen layout mma (cold start)", _best(run, 3), 0.3)


def test_emit_cli(timing):
    exe = Path(sys.executable).parent / "llgen"

    def run():
        r = subprocess.run([str(exe), "emit", "--src", "blocked", "--dst", "mma"], capture_output=True, text=True, check=False)
        assert r.returncode == 0 and "convert" in r.stdout, r.stderr

    timing("llgen emit --src blocked --dst mma", _best(run, 1), 0.5)


def test_invert_and_compose_20_bit_layouts(timing):
    rng = random.Random(0)
    cols = [1 << i for i in range(20)]
    rng.shuffle(cols)
    a = LinearLayout((("register", 6), ("lane", 5), ("warp", 9)), (("dim0", 10), ("dim1", 10)), tuple(cols))
    rng.shuffle(cols)
    b = LinearLayout((("register", 6), ("lane", 5), ("warp", 9)), (("dim0", 10), ("dim1", 10)), tuple(cols))
    inv = b.invert()
    timing("invert a 20-bit layout", _best(b.invert, 20), 1e-3)
    timing("compose two 20-bit layouts", _best(lambda: inv.compose(a), 20), 1e-3)


BLOCKED64_T = _lay128("m0 m1 m2 n4 n5 n6", "m3 m4 m5 m6 n0 n1", "n2 n3")


@pytest.mark.parametrize(
    "name,a,b,targets",
    [
        ("blocked->mma", BLOCKED, MMA, ("sm_80", "sm_90")),
        ("mma->blocked", MMA, BLOCKED, ("sm_80", "sm_90")),
        ("transpose", BLOCKED, BLOCKED_T, ("sm_90",)),
        ("transpose wave64", BLOCKED64, BLOCKED64_T, ("gfx942",)),
    ],
)
@pytest.mark.parametrize("dtype", ["f16", "f32", "i8", "f64"])
def test_plan_128x128(timing, name, a, b, targets, dtype):
    for tgt in targets:

        def run(tgt=tgt):
            try:
                plan_conversion(a, b, dtype, tgt)
            except LlgenError as e:  # no common register bit to split an over-budget tile on
                assert "cannot be split" in str(e)

        timing(f"plan 128x128 {name} {dtype} {tgt}", _best(run, 3), 0.020)


def test_show_128x128(timing, tmp_path):
    pytest.importorskip("matplotlib")
    exe = Path(sys.executable).parent / "llgen"
    for ext in ("svg", "png"):

        def run(ext=ext):
            r = subprocess.run(
                [str(exe), "show", "blocked", "--shape", "128x128", "-o", str(tmp_path / f"b.{ext}")],
                capture_output=True,
                text=True,
                check=False,
            )
            assert r.returncode == 0, r.stderr

        timing(f"llgen show blocked 128x128 .{ext}", _best(run, 1), 2.0)


def test_random_pairs_property(timing):
    """The property run of tests/test_plan.py (PAIRS pairs of real layouts by every path, two workers; its target is
    for the deep run's 10,000, LLGEN_PROPERTY_PAIRS)."""
    from test_plan import CHUNKS, PAIRS, run_pairs

    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(2, os.cpu_count() or 1)) as pool:
        results = pool.starmap(run_pairs, [(1000 + i, PAIRS // CHUNKS) for i in range(CHUNKS)])
    assert not [f for r in results for f in r[0]]
    timing(f"property run, {PAIRS} pairs of real layouts", time.perf_counter() - t0, 240.0)


def test_emit_time_is_linear_in_the_tile(timing):
    """Planning and emitting a 4096x4096 f16 tile (blocked -> mma, 4 warps, 256 scratch rounds): the emitter
    groups instructions by round once, so its text grows linearly with the tile (it took 39 s when every round
    rescanned every instruction)."""
    from llgen.emit import emit
    from llgen.spec import parse_layout

    shape = (4096, 4096)

    def run():
        a, b = parse_layout("blocked", shape, 4, 32), parse_layout("mma", shape, 4, 32)
        emit(plan_conversion(a, b, "f16", "sm_90"), "header", "big")

    timing("plan + emit 4096x4096 f16 header", _best(run, 1), 5.0)


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "--shape", "65536x65536"],
        ["swizzle", "--src", "blocked", "--dst", "mma", "--shape", "65536x65536"],
        ["emit", "--src", "blocked:spt=1x1099511627776", "--dst", "mma"],
        ["layout", "[" * 3000 + "]" * 3000],
    ],
    ids=["plan-huge-shape", "swizzle-huge-shape", "emit-huge-spt", "layout-deep-nesting"],
)
def test_inputs_that_once_hung_answer_quickly(timing, args):
    """The fuzz's inputs that hung the planner: each is refused with one sentence, well inside test_fuzz.HANG seconds."""
    from click.testing import CliRunner
    from test_fuzz import HANG

    from llgen.cli import main

    t0 = time.perf_counter()
    res = CliRunner().invoke(main, args)
    took = time.perf_counter() - t0
    assert res.exit_code == 2, res.output
    timing(f"llgen {args[0]} (bad input {args[-1][:20]})", took, HANG)
