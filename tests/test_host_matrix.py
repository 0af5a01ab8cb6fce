"""ldmatrix/stmatrix on CPU threads: the emitted inline PTX becomes the host shim's warp-collective emulation
(llgen.runtime.host), and every slot, replica and output element is compared with NumPy, bit for bit.

Every form the planner prints runs here: ldmatrix and stmatrix, .x1/.x2/.x4, plain and .trans, on the core suite's
matrix cases and on small pairs (from the random generator) that the planner gives the narrower forms. A broken
emulation, or an emitted address off by one row, fails the same check.
"""

from __future__ import annotations

import pytest

from llgen import LinearLayout, LlgenError, plan_conversion
from llgen.cases.suite import core
from llgen.emit import emit
from llgen.randlayout import random_cases
from llgen.runtime import host
from llgen.runtime.check import Batching, CheckRuns, check_many


def _ll(shape: tuple[int, ...], register, lane, warp) -> LinearLayout:
    return LinearLayout.from_bases(
        {"register": register, "lane": lane, "warp": warp}, {f"dim{i}": n for i, n in enumerate(shape)}
    )


# (label, dtype, path, shape, A's register/lane/warp bases, B's): pairs whose plans use the x1 and x2 forms (and
# stmatrix.trans x4, which no core case uses), found by llgen.randlayout.random_cases on sm_90.
SMALL = (
    ("ld_x1", "f16", "shared", (16,), ([[1], [2], [4]], [[8], [0], [0], [0], [0]], [[0], [0], [0]]),
     ([[4]], [[1], [2], [8], [0], [0]], [[0], [0], [0]])),
    ("ld_x2", "i16", "shared", (1, 16), ([[0, 1], [0, 2], [0, 4]], [[0, 8], [0, 0], [0, 0], [0, 0], [0, 0]], [[0, 0], [0, 0]]),
     ([[0, 1], [0, 0], [0, 8], [0, 0]], [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], [[0, 0], [0, 0]])),
    ("ld_trans_x1", "f16", "shared", (16,), ([[1], [2], [4]], [[8], [0], [0], [0], [0]], []),
     ([[8]], [[0], [0], [1], [2], [4]], [])),
    ("ld_trans_x2", "f16", "shared", (128,), ([[1], [2], [4]], [[8], [16], [32], [64], [0]], [[0], [0]]),
     ([[32], [64]], [[0], [0], [1], [2], [4]], [[8], [16]])),
    ("st_x1", "bf16", "shared", (32,), ([[1]], [[2], [4], [8], [16], [0]], [[0]]),
     ([[1], [2], [4]], [[8], [16], [0], [0], [0]], [[0]])),
    ("st_x2", "i16", "shared", (8, 4), ([[0, 1], [0, 2]], [[1, 0], [2, 0], [4, 0], [0, 0], [0, 0]], [[0, 0], [0, 0]]),
     ([[1, 0], [2, 0], [0, 1], [0, 2]], [[4, 0], [0, 0], [0, 0], [0, 0], [0, 0]], [[0, 0], [0, 0]])),
    ("st_trans_x1", "f16", None, (2, 16), ([[0, 1]], [[1, 0], [0, 0], [0, 2], [0, 4], [0, 8]], []),
     ([[0, 2], [0, 4], [0, 8], [1, 0]], [[0, 0], [0, 0], [0, 0], [0, 0], [0, 1]], [])),
    ("st_trans_x2", "bf16", None, (16, 16), ([[1, 0], [2, 0], [0, 0]], [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], [[0, 8], [0, 0]]),
     ([[0, 1], [0, 2], [0, 4]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], [[0, 0], [0, 0]])),
    ("st_trans_x4", "bf16", None, (1, 16, 16),
     ([[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 0], [0, 0, 0]], [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 8]], []),
     ([[0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 2], [0, 0, 4], [0, 0, 8]], [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1]], [])),
)  # fmt: skip


def _core(case_id: str, target: str):
    case = next(c for c in core() if c.id == case_id)
    return f"{case_id}_{target}", plan_conversion(case.src, case.dst, case.dtype, target)


def _small():
    return [
        (label, plan_conversion(_ll(shape, *a), _ll(shape, *b), dtype, "sm_90", path=path))
        for label, dtype, path, shape, a, b in SMALL
    ]


def _forms(plan) -> set[tuple[str, int]]:
    """The matrix instructions of the plan's own text (on the CPU an sm_90 plan's sm_80 fallback is compiled out)."""
    sides = (plan.detail.store, plan.detail.load) if plan.path == "shared" else ()
    return {(s.op, s.matrices) for s in sides if s.matrices}


def _all_ok(results) -> None:
    bad = [f"{r.label}: {r.error or ''} {r.first_bad or ''} {r.first_bad_tile or ''}" for r in results if not r.ok]
    assert not bad, f"{len(bad)} of {len(results)} kernels differ from NumPy:\n" + "\n".join(bad[:10])


def test_every_matrix_form_runs_exactly():
    """The core suite's matrix cases on sm_80 (b2dotA_f16 and b2dotA_i8: ldmatrix, of 16- and 8-bit elements;
    b2dotB_f16: ldmatrix.trans) and mma2b_f16 on sm_90 (stmatrix), and the small pairs: all twelve forms. The suite on
    sm_90 runs in tests/test_host_exec.py."""
    cores = [("b2dotA_f16", "sm_80"), ("b2dotA_i8", "sm_80"), ("b2dotB_f16", "sm_80"), ("mma2b_f16", "sm_90")]
    items = [_core(c, t) for c, t in cores] + _small()
    forms = set().union(*(_forms(p) for _, p in items))
    assert forms == {(op, n) for op in ("ldmatrix", "ldmatrix.trans", "stmatrix", "stmatrix.trans") for n in (1, 2, 4)}
    _all_ok(check_many(items, how=CheckRuns(tiles=3, runs=1, seed=7), compiler=host.compile, sms=1, batching=Batching(20)))


@pytest.mark.parametrize(
    "where,old,new",
    [
        ("shim", "if (Trans) std::swap(r, c);", ""),  # .trans read as the plain form
        ("shim", "exchange[row0_slot + r]", "exchange[row0_slot + (r ^ 1u)]"),  # rows from the wrong lanes
        ("shim", "lane0 + 8 * m++", "lane0 + 8 * (3u - m++)"),  # the matrices in reverse order (x4)
        ("source", "[%4+%5]", "[%4+%5+16]"),  # the emitted ldmatrix address one 16-byte row off
        ("source", "[%0+%5]", "[%0+%5+16]"),  # the emitted stmatrix address one 16-byte row off
    ],
)
def test_a_wrong_matrix_move_is_caught(monkeypatch, where, old, new):
    """The checks above can fail: a broken emulation, or an emitted address that is wrong, gives mismatches."""
    items = [_core("b2dotB_f16", "sm_90"), _core("mma2b_f16", "sm_90")]
    if where == "shim":
        assert old in host.HOST_SHIM
        monkeypatch.setattr(host, "HOST_SHIM", host.HOST_SHIM.replace(old, new))
        compiler = host.compile
    else:

        def compiler(source, target):
            assert old in source
            return host.compile(source.replace(old, new), target)

    results = check_many(items, how=CheckRuns(tiles=1, runs=1, seed=8), compiler=compiler, sms=1)
    assert any(r.slot_bad or r.tile_bad for r in results), [r.label for r in results]


def test_hip_text_passes_unchanged():
    """HIP has no ldmatrix: its text reaches the host compiler as printed."""
    for label, p in random_cases(12, 5, "gfx942"):
        text = emit(p, "kernel", label)
        assert host.host_source(text) == text


UNKNOWN_OP = "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8"
UNKNOWN_PTX = f'void f(unsigned p, unsigned& w) {{ asm volatile("{UNKNOWN_OP} {{%0}}, [%1];" : "=r"(w) : "r"(p)); }}'
REFUSAL = "the host shim knows ldmatrix/stmatrix .m8n8 .b16 only."


def test_unknown_matrix_ptx_is_refused_in_one_sentence():
    with pytest.raises(LlgenError) as e:
        host.compile(UNKNOWN_PTX, "sm_90")
    assert str(e.value) == f"inline PTX {UNKNOWN_OP} cannot run on the CPU: {REFUSAL}"


def test_check_cpu_fails_on_text_it_cannot_run(monkeypatch):
    """`llgen check --cpu` on a text the CPU cannot run: exit status 2 and the reason in one line, not a pass that
    checked nothing."""
    from click.testing import CliRunner

    from llgen.cli import main

    compile_ = host.compile
    monkeypatch.setattr(host, "compile", lambda source, target: compile_(f"{source}\n{UNKNOWN_PTX}\n", target))
    r = CliRunner().invoke(main, ["check", "--cpu"])
    assert r.exit_code == 2 and r.output.endswith(f"error: inline PTX {UNKNOWN_OP} cannot run on the CPU: {REFUSAL}\n"), r.output
