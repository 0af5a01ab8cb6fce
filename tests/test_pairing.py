"""Free pairing (llgen.plan.pairing): both sides' registers reordered so that a word holds the same elements in A and
in B, and no conversion rebuilds words. Checked on the rule itself, in the simulator, on CPU threads, in SASS (a
round trip with an element-wise step between needs no PRMT), and through the commands."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from helpers import one_sentence

from llgen.cli import main
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.emit import emit, emit_bench
from llgen.plan import plan_conversion
from llgen.plan.benchshape import bench_shape
from llgen.plan.pairing import free_order, reordered, word_bits
from llgen.plan.variants import plan_key, variant_table
from llgen.randlayout import random_cases, random_pairs
from llgen.runtime import host
from llgen.runtime.check import Batching, CheckRuns, check_many
from llgen.runtime.toolchain import disassemble
from llgen.runtime.toolchain.cuda import compile_cuda
from llgen.spec import parse_layout
from llgen.verify.simulate import simulate

TPW8X4 = ("blocked:spt=1x1,tpw=8x4,order=1x0", "blocked:spt=1x4,tpw=4x8,order=1x0")  # Triton's one-warp test pair


def _tpw8x4():
    return tuple(parse_layout(s, (64, 64), 1, 32) for s in TPW8X4)


def test_the_rule_pairs_common_bits_and_is_the_same_both_ways():
    """On random pairs of 8- and 16-bit elements: where free pairing reorders, A' and B' start with the same tensor
    bits (their words hold the same elements), each is its layout's registers renamed, and B -> A chooses the same
    A' and B' as A -> B, so a round trip agrees on both sides' words."""
    reordered_pairs = 0
    for p in random_pairs(400, 5, "sm_90"):
        dt = to_dtype(p.dtype)
        order = free_order(p.a, p.b, dt)
        if order is None:
            continue
        reordered_pairs += 1
        a2, b2 = reordered(p.a, order[0]), reordered(p.b, order[1])
        k = word_bits(dt)
        assert a2.flat_cols("register")[:k] == b2.flat_cols("register")[:k]
        assert sorted(a2.flat_cols("register")) == sorted(p.a.flat_cols("register"))
        assert a2.flat_cols("lane") == p.a.flat_cols("lane") and a2.flat_cols("warp") == p.a.flat_cols("warp")
        back = free_order(p.b, p.a, dt)
        assert (reordered(p.b, back[0]), reordered(p.a, back[1])) == (b2, a2)
    assert reordered_pairs >= 40


def test_wide_elements_and_agreeing_words_keep_their_registers():
    """Free pairing renames nothing where there is nothing to pair (32-bit elements) or the words already agree."""
    a, b = _tpw8x4()
    f32 = plan_conversion(a, b, "f32", "sm_90", pairing="free")
    assert f32.register_order is None and plan_key(f32) == plan_key(plan_conversion(a, b, "f32", "sm_90"))
    assert free_order(a, a, to_dtype("f16")) is None
    assert plan_conversion(a, b, "f16", "sm_90", pairing="free").register_order == ((3, 0, 1, 2, 4, 5, 6), (2, 0, 1, 3, 4, 5, 6))
    with pytest.raises(LlgenError, match="unknown pairing 'loose'"):
        plan_conversion(a, b, "f16", "sm_90", pairing="loose")
    with pytest.raises(LlgenError, match="--pairing free is for 8- and 16-bit elements; e2m1's bytes pair as its packed plan"):
        plan_conversion(a, b, "e2m1", "sm_90", pairing="free")


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_free_pairing_plans_are_exact_in_the_simulator(target):
    """Every dtype (the reorder applies to 8- and 16-bit ones), by the default, shuffle and shared paths."""
    cases = random_cases(200, 31, target, pairing="free")
    assert sum(p.register_order is not None for _, p in cases) >= 20
    bad = [label for label, p in cases if not simulate(p).ok]
    assert not bad, bad[:5]


def test_free_pairing_runs_exactly_on_cpu_threads():
    """The emitted text of free-paired plans, run as host C++: every slot and element equal to NumPy."""
    cases = [(label, p) for label, p in random_cases(120, 47, "sm_90", pairing="free", matrix=False) if p.register_order]
    assert len(cases) >= 12
    results = check_many(cases, how=CheckRuns(tiles=4, runs=1, seed=3), compiler=host.compile, sms=1, batching=Batching(20))
    bad = [f"{r.label}: {r.error or ''} {r.first_bad or ''}" for r in results if not r.ok]
    assert not bad, bad[:5]


def _loop_prmt(fwd, bwd) -> tuple[int, int]:
    """(PRMT, shared-memory instructions) in one step of the bench's LOOP: A -> B, + 1 on B's words, B -> A."""
    sass = disassemble(compile_cuda(emit_bench(fwd, bwd, "p", bench_shape(fwd, bwd)), "sm_90"))
    loop = next(s for name, s in sass.items() if name.endswith("loop")).loop()
    shared = sum(n for op, n in loop.items() if op.split(".")[0] in ("STS", "LDS", "STSM", "LDSM"))
    return sum(n for op, n in loop.items() if op.startswith("PRMT")), shared


def test_a_round_trip_with_free_pairing_rebuilds_no_word():
    """Triton's one-warp pair tpw 8x4 -> spt 1x4 (64x64 f16), converted, + 1, converted back: the natural words cost
    PRMTs on both sides of each conversion (A pairs n2, B n0); free pairing pairs n5 on both sides and the step
    has none, with no more shared-memory instructions."""
    a, b = _tpw8x4()
    plans = {
        pairing: (
            plan_conversion(a, b, "f16", "sm_90", objective="latency", pairing=pairing),
            plan_conversion(b, a, "f16", "sm_90", objective="latency", pairing=pairing),
        )
        for pairing in ("natural", "free")
    }
    assert plans["free"][0].dst == plans["free"][1].src  # both directions hold B in the same order
    natural, free = _loop_prmt(*plans["natural"]), _loop_prmt(*plans["free"])
    assert natural[0] >= 128 and free[0] == 0
    assert free[1] <= natural[1]


def test_the_bench_times_free_pairing_beside_the_picks():
    """A case whose words disagree gets llgen_free (and its latency twin where that plan differs), planned as one
    round trip; a case of 32-bit elements gets none."""
    from llgen.cases.suite import suite

    cases = {c.id: c for c in suite("warplocal")}
    vs, skipped = variant_table(cases["wl1_tpw8x4_to_spt4_f16"], "sm_90", baselines=False)
    free = {v.name: v for v in vs if v.name.endswith("_free")}
    assert set(free) == {"llgen_free", "llgen_latency_free"}
    assert all(v.kinds == (v.name, v.name) and v.fwd.dst == v.bwd.src for v in free.values())
    f32 = next(c for c in cases.values() if c.dtype == "f32")
    vs, skipped = variant_table(f32, "sm_90", baselines=False)
    assert not [v for v in vs if v.name.endswith("_free")] and "same kernels" in skipped["llgen_free"]


def test_the_commands_say_which_registers_pair():
    """`llgen plan` and the header state the pairing and the orders; the JSON records them; an endpoint refuses it."""
    runner = CliRunner()
    args = ["--src", TPW8X4[0], "--dst", TPW8X4[1], "--shape", "64x64", "--warps", "1", "--pairing", "free"]
    out = runner.invoke(main, ["plan", *args])
    assert out.exit_code == 0 and "pairing: free: A's and B's words both span n5" in out.output
    doc = json.loads(runner.invoke(main, ["plan", *args, "--json"]).output)
    assert doc["register_order"] == {"src": [3, 0, 1, 2, 4, 5, 6], "dst": [2, 0, 1, 3, 4, 5, 6]}
    header = runner.invoke(main, ["emit", *args, "--form", "header"]).output
    assert "// Pairing: free: A's and B's words both span n5" in header
    natural = runner.invoke(main, ["emit", *args[:-2], "--form", "header"]).output
    assert "Pairing" not in natural
    bad = runner.invoke(main, ["plan", "--src", "mma", "--dst", "nvmma:128", "--pairing", "free"])
    assert (
        bad.exit_code == 2
        and one_sentence(bad.output.strip().removeprefix("error: "))
        and "--pairing free does not apply" in bad.output
    )


def test_a_free_paired_header_compiles_alone():
    a, b = _tpw8x4()
    compile_cuda(emit(plan_conversion(a, b, "bf16", "sm_90", pairing="free"), "header", "freepair"), "sm_90")


def test_free_pairing_keeps_natural_words_that_cost_less():
    """r18_4_f16's natural round trip is ldmatrix/stmatrix tiles with no permute; reordered it would take more
    shared-memory instructions, so free pairing keeps it (an identity order, said in words). A register permutation
    of 8-bit words becomes no conversion at all: free pairing names the registers as B holds them."""
    from llgen.cases.suite import suite

    cases = {c.id: c for c in suite("wide")}
    c = cases["r18_4_f16"]
    plan = plan_conversion(c.src, c.dst, c.dtype, "sm_90", pairing="free", smem_budget=c.smem_budget)
    assert plan_key(plan) == plan_key(plan_conversion(c.src, c.dst, c.dtype, "sm_90", smem_budget=c.smem_budget))
    assert all(o == tuple(range(len(o))) for o in plan.register_order)
    assert "the natural words are kept" in plan.explain()
    c = cases["regperm_i8"]
    assert plan_conversion(c.src, c.dst, c.dtype, "sm_90").path == "registers"
    assert plan_conversion(c.src, c.dst, c.dtype, "sm_90", pairing="free").path == "noop"


def test_a_forced_path_takes_the_order_that_can_take_it():
    """A forced path decides between the two orders where only one can take it: the way back's path does not
    matter, and a register permutation forced to noop is no conversion once reordered."""
    a = parse_layout("blocked:spt=4x1,tpw=2x16,wpc=1x4,order=0x1", (16, 16), 4, 32)
    b = parse_layout("blocked:spt=2x2,tpw=4x8,wpc=4x1,order=1x0", (16, 16), 4, 32)
    with pytest.raises(LlgenError, match="shuffle path cannot"):
        plan_conversion(b, a, "f16", "sm_90", path="shuffle")  # the way back cannot shuffle
    p = plan_conversion(a, b, "f16", "sm_90", path="shuffle", pairing="free")
    assert p.path == "shuffle" and simulate(p).ok
    from llgen.cases.suite import suite

    c = next(c for c in suite("wide") if c.id == "regperm_i8")
    with pytest.raises(LlgenError, match="threads need elements other threads hold"):
        plan_conversion(c.src, c.dst, c.dtype, "sm_90", path="noop")
    assert plan_conversion(c.src, c.dst, c.dtype, "sm_90", path="noop", pairing="free").path == "noop"


def test_free_pairing_says_why_it_kept_the_natural_words():
    a, _ = _tpw8x4()
    same = plan_conversion(a, a, "f16", "sm_90", pairing="free")
    assert "already span the same tensor bits" in same.explain() and same.register_order == (tuple(range(7)),) * 2
    assert plan_conversion(a, a, "f32", "sm_90", pairing="free").register_order is None  # nothing to pair


@pytest.mark.parametrize("cid", ["wl1_tpw8x4_to_spt4_f16", "wl1_tpw2x16_to_spt4_f16"])
def test_the_one_warp_pairs_step_like_tritons_loop_with_free_pairing(cid):
    """Triton's two one-warp test pairs whose one-CTA time we lost (the warplocal suite): with free pairing the
    bench's LOOP step has no PRMT and no more shared-memory instructions than Triton 3.6's own LOOP, compiled for
    sm_90 on the CPU, and no more instructions in all (131 against 133, and 227 against 229, when this was written);
    with the natural words it has hundreds of PRMTs."""
    pytest.importorskip("triton")
    from llgen.cases.suite import suite
    from llgen.runtime.gluon import compile_offline
    from llgen.runtime.toolchain.cuda import Cubin

    case = next(c for c in suite("warplocal") if c.id == cid)
    vs, _ = variant_table(case, "sm_90", baselines=False)
    free = next(v for v in vs if "llgen_latency_free" in (v.name, *v.same_as))  # free pairing's pick for one CTA
    k = compile_offline("loop", case)
    triton_loop = next(iter(disassemble(Cubin("sm_90", k.asm["cubin"], "", 0.0, {})).values())).loop()
    sass = disassemble(compile_cuda(emit_bench(free.fwd, free.bwd, "p", bench_shape(free.fwd, free.bwd)), "sm_90"))
    ours = next(s for name, s in sass.items() if name.endswith("loop")).loop()

    def count(loop, *ops):
        return sum(n for op, n in loop.items() if op.split(".")[0] in ops)

    assert count(ours, "PRMT") == 0 and count(triton_loop, "PRMT") == 0
    assert count(ours, "STS", "LDS", "STSM", "LDSM") <= count(triton_loop, "STS", "LDS", "STSM", "LDSM")
    assert count(ours, *{op.split(".")[0] for op in ours} - {"NOP"}) <= count(
        triton_loop, *{op.split(".")[0] for op in triton_loop} - {"NOP"}
    )
    natural = next(v for v in vs if v.name == "llgen")
    assert _loop_prmt(natural.fwd, natural.bwd)[0] >= 256
