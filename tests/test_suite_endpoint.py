"""The endpoint suite (`--suite endpoint`) on the CPU: its cases plan on sm_90 within the 227 KB a block may use and cover
epilogues, operand staging and transposes through every family of fixed shared layout; the LOOP kernel through the
four endpoint plans is deterministic, compiles through NVRTC with no local memory and four barriers a step (Triton's),
and runs exact on CPU threads against NumPy's +1; the report section and its targets render from a made-up result;
`llgen bench --suite endpoint` without a GPU is one sentence."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import ROOT, invoke, one_sentence, recorded_facts, sass_summary, summary_sass, write_record

from llgen.cases.suite import suite
from llgen.cases.suite_endpoint import EndpointSuiteCase
from llgen.core.errors import LlgenError
from llgen.emit.endpoint_bench import emit_endpoint_loop
from llgen.plan.endpoint import plan_load
from llgen.runtime.bench.endpoint_suite import PICK, endpoint_variants, floor_wavefronts
from llgen.runtime.bench.endpoint_suite_report import endpoint_flags, endpoint_lines, endpoint_targets
from llgen.runtime.reference import loop_input, plus_one, raw_dtype

CASES = {c.id: c for c in suite("endpoint")}


@pytest.fixture(scope="module")
def picks():
    """llgen's pick of every case: (store P, load Q, store Q, load P)."""
    return {cid: endpoint_variants(c)[0][0] for cid, c in CASES.items()}


def test_the_suite_covers_epilogues_operands_and_transposes(picks):
    assert len(CASES) >= 16 and all(isinstance(c, EndpointSuiteCase) for c in CASES.values())
    ids = list(CASES)
    kinds = {k: [i for i in ids if i.startswith(k)] for k in ("ep_mma", "ep_wgmma", "op_A", "op_B", "tr_")}
    assert all(len(v) >= 2 for v in kinds.values()), kinds
    shared = {c.shared for c in CASES.values()}
    assert {"nvmma:128", "nvmma:64", "nvmma:0", "nvmma:128,transposed=true"} <= shared
    assert any(s.startswith("swizzled:vec=1,") for s in shared) and any(s.startswith("#ttg.padded_shared") for s in shared)
    assert {"f16", "bf16", "f32", "i8", "f8e4m3"} <= {c.dtype for c in CASES.values()}
    assert {4, 8} <= {c.warps for c in CASES.values()}
    for c in CASES.values():
        v = picks[c.id]
        assert [p.direction for p in v.plans] == ["store", "load", "store", "load"]
        assert v.plans[0].smem_bytes <= 227 * 1024, c.id
        assert floor_wavefronts(v) <= sum(p.wavefronts for p in v.plans), c.id


def test_epilogues_of_16_bits_use_stmatrix_and_ldmatrix(picks):
    for cid in ("ep_mma_f16_128B_w4", "ep_wgmma_f16_128B_w4", "ep_mma_bf16_128B_w8"):
        st_p, _, _, ld_p = picks[cid].plans
        assert (st_p.side.op, ld_p.side.op) == ("stmatrix", "ldmatrix"), cid


def test_forced_variants_name_their_forms():
    vs, skipped = endpoint_variants(CASES["tr_f32_vec1"])
    forms = {v.name: v.forms for v in vs}
    assert forms["direct"] == ("direct",) * 4
    assert "two_step" in forms.get("two_step", ()) or skipped["two_step"].startswith("the same kernels as")
    vs, skipped = endpoint_variants(CASES["op_A_f16_nvmma128"])
    assert [v.name for v in vs][0] == PICK and skipped.get("direct") == f"the same kernels as {PICK}"


def test_a_form_that_does_not_exist_is_one_sentence():
    case = CASES["tr_f32_vec1"]
    with pytest.raises(LlgenError) as e:
        plan_load(case.encoding(), case.q, case.dtype, "sm_90", "fastest")
    assert one_sentence(str(e.value)) == "unknown endpoint plan form 'fastest'; use direct, two_step, select."


def test_the_loop_is_deterministic_and_checks_its_plans(picks):
    plans = picks["ep_mma_f32_128B_w4"].plans
    a, b = emit_endpoint_loop(plans, "s"), emit_endpoint_loop(plans, "s")
    assert a == b and a.kernel == "s_loop" and a.threads == 128
    assert a.launch_smem == 65536 + 1024 - 16  # 64 KB of S, dynamic, and room to align its base to 1024
    assert "LLGEN_DYNAMIC_SCRATCH(smem_base)" in a.source and a.source.count("__syncthreads();") == 4
    with pytest.raises(LlgenError) as e:
        emit_endpoint_loop(plans[::-1], "s")
    assert one_sentence(str(e.value))
    with pytest.raises(LlgenError) as e:
        emit_endpoint_loop((plans[0], plans[1], plans[2], picks["tr_f32_vec1"].plans[3]), "s")
    assert one_sentence(str(e.value))


# one of each kind: stmatrix/ldmatrix, 128 KB dynamic, byte-wide operand loads, transposed NVMMA, a two-step
# transpose by shuffles, padding, bf16's +1 on raw bits
COMPILED = (
    "ep_mma_f16_128B_w4",
    "ep_wgmma_f32_128B_w8",
    "op_B_i8_nvmma128",
    "op_B_f16_nvmma128T",
    "tr_f32_vec1",
    "tr_f32_padded",
    "op_B_bf16_swizzled",
)


# The LOOP kernels' SASS summaries by text hash (llgen.runtime.toolchain.sass_key), as tests/data/random-sass.json keeps
# test_emit's: a loop whose source hashes as recorded is not compiled again. `python tests/test_suite_endpoint.py` rewrites
# the record after an intended change in generated code.
SMEM_LOOP_SASS = ROOT / "tests" / "data" / "endpoint-loop-sass.json"


def loop_sass(loops: dict, known: dict) -> tuple[dict, dict]:
    """The Sass summary of each case's LOOP kernel (``loops``: case -> emit_endpoint_loop), and its record."""
    units = {cid: lp.source for cid, lp in loops.items()}
    return recorded_facts(units, "sm_90", known, lambda kernels, cid: sass_summary(kernels[loops[cid].kernel]))


def _loops(picks: dict) -> dict:
    return {cid: emit_endpoint_loop(picks[cid].plans, cid) for cid in COMPILED}


def test_loop_kernels_compile_with_nvrtc_without_local_memory(picks):
    from llgen.runtime.toolchain import ToolchainUnavailable

    loops = _loops(picks)
    try:
        found, _ = loop_sass(loops, json.loads(SMEM_LOOP_SASS.read_text())["sm_90"])
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    for cid, lp in loops.items():
        k = summary_sass(lp.kernel, found[cid])
        assert not k.uses_local_memory, cid
        assert k.opcodes.get("BAR.SYNC.DEFER_BLOCKING") == 4, cid
        planned = {p.side.op for p in picks[cid].plans}
        assert any(op.startswith("stmatrix") for op in planned) == any(op.startswith("STSM") for op in k.opcodes), cid
        if CASES[cid].dtype == "bf16":  # +1 on the raw bits of two elements is one VIADD.16x2, as Triton's add.s16x2
            assert k.opcodes.get("VIADD.16") == lp.source.count("__vadd2("), cid  # the parser reads VIADD.16x2 so


RUN = ("ep_mma_bf16_128B_w8", "tr_f32_vec1", "tr_f32_padded", "op_B_i8_nvmma128")


@pytest.fixture(scope="module")
def host_loops(picks):
    """The LOOP kernels of RUN by case, and one host module (llgen.runtime.host) that runs them all (one g++ call)."""
    from llgen.runtime.host import compile as host_compile

    loops = {cid: emit_endpoint_loop(picks[cid].plans, cid) for cid in RUN}
    return loops, host_compile("\n".join(lp.source for lp in loops.values()), "sm_90")


@pytest.mark.parametrize("cid", RUN)
def test_loop_runs_exact_on_cpu_threads(host_loops, cid):
    """k steps of +1 on two tiles, on CPU threads (ldmatrix/stmatrix emulated): every element NumPy's."""
    loops, module = host_loops
    case, lp = CASES[cid], loops[cid]
    tile = 1 << case.p.total_out_bits
    raw = raw_dtype(case.dtype)
    x = loop_input(case.dtype, raw.type, 2 * tile, np.random.default_rng(7))
    for k in (0, 3):
        y = module.filled(2 * tile, raw, 0)
        module.launch(lp.kernel, 2, lp.threads, (module.to_device(x), y, k), smem=lp.launch_smem)
        assert np.array_equal(module.to_host(y), plus_one(case.dtype, x, k)), (cid, k)


def _fake_case(cid: str, me: float, tr: float | None, lat: tuple[float, float], **extra) -> dict:
    variants = {
        "llgen": {"path": "stmatrix, ld.shared, st.shared, ldmatrix", "loop_per_sm_ns": me, "loop_lat_ns": lat[0],
                  "smem_wavefronts_pred": 1024, "regs": 80, "local_bytes": 0, "loop_correct": True},
        "triton": {"path": "triton", "loop_lat_ns": lat[1], "regs": 120, "loop_correct": True}
        if tr else {"path": "triton", "error": "RuntimeError: not run: Triton's side of the endpoint suite cannot be imported"},
    }  # fmt: skip
    if tr:
        variants["triton"]["loop_per_sm_ns"] = tr
    return {"id": cid, "suite": "endpoint", "dtype": "f16", "shape": [128, 128], "warps": 4, "shared": "nvmma:128",
            "floor_wavefronts": 1024, "variants": variants, "skipped": {"direct": "the same kernels as llgen"}, **extra}  # fmt: skip


def test_report_section_and_targets_from_a_fake_run(tmp_path):
    from llgen.runtime.bench.report import write_report

    # at 1000 MHz the floor of half a step of 1024 wavefronts is 512 ns
    fast = _fake_case("a", 520.0, 2080.0, (900.0, 2700.0))
    slow = _fake_case("b", 1000.0, 900.0, (1000.0, 1100.0))
    slow["variants"]["two_step"] = {"path": "2-step ...", "loop_per_sm_ns": 600.0, "smem_wavefronts_pred": 1536}
    missing = _fake_case("c", 600.0, None, (700.0, 0.0))
    cases = [fast, slow, missing]
    lines = endpoint_lines(cases, 1000.0)
    row = next(x for x in lines if x.startswith("| a |"))
    assert "| 520.0 | 2080.0 | 4.000 | 900.0 | 2700.0 | 3.000 | = llgen | - | - | 512.0 | 98 | 1024 (1024) |" in row
    assert "| error |" in next(x for x in lines if x.startswith("| c |"))
    targets = endpoint_targets(cases, 1000.0)
    assert ("MISSED", "throughput, Triton / llgen >= 1.0 on every case: b 0.900 below; not measured: c") in targets
    assert any(s == "MISSED" and "bandwidth floor" in t and "b 51%" in t for s, t in targets)
    flags = endpoint_flags(cases)
    assert any(f.startswith("b: the planner picked") for f in flags) and any(f.startswith("c / triton:") for f in flags)
    report = {"info": {"device": "fake", "sms": 132, "nvidia_smi": "1, 1000 MHz, 1000 MHz, 2619 MHz"}, "cases": cases}
    write_report(report, str(tmp_path))
    md = (tmp_path / "report.md").read_text()
    assert "## Suite endpoint (3 cases)" in md and "## Targets on the endpoint suite, from this run" in md
    assert json.loads((tmp_path / "report.json").read_text())["cases"][0]["id"] == "a"


def test_a_tie_at_the_plans_wavefronts_is_not_a_miss_and_each_floor_miss_says_why():
    """Within 2% of Triton with llgen's LOOP at >= 90% of its predicted wavefronts' time: a tie, listed with its
    reason, and the target "physical"; within 2% but far from that time, a miss. A floor miss names its plan's reasons."""
    tie = _fake_case("t", 520.0, 515.0, (530.0, 525.0))  # 1024 wavefronts a step: 512 ns at 1000 MHz, 98%
    far = _fake_case("u", 1000.0, 990.0, (1000.0, 1100.0))  # 51% of 512 ns
    far["variants"]["llgen"].update(floor_reasons=["S's offsets put 2 words of one access in one bank"], cost_pred=1024.0)
    targets = {t.split(":")[0]: (s, t) for s, t in endpoint_targets([tie], 1000.0)}
    status, text = targets["throughput, Triton / llgen >= 1.0 on every case"]
    assert status == "physical" and "lowest 0.990; ties: t 0.990 (Triton within 2%, llgen at 98% of its 1024" in text
    assert targets["latency, Triton / llgen >= 1.0 on every case"][0] == "physical"
    targets = endpoint_targets([tie, far], 1000.0)
    assert ("MISSED", "throughput, Triton / llgen >= 1.0 on every case: u 0.990 below; ties: t 0.990 (Triton within "
            "2%, llgen at 98% of its 1024 predicted wavefronts' time)") in targets  # fmt: skip
    floor = next(t for s, t in targets if "bandwidth floor" in t)
    assert "u 51% (S's offsets put 2 words of one access in one bank)" in floor and "t 98%" not in floor


def test_a_two_step_pick_is_held_to_its_stated_floor_of_overlapped_pipes():
    """A two-step pick's stated floor is its step's wavefronts and its conversions' shuffles, each on its own pipe
    (the larger, not their sum): the transposes' own plans state it (EndpointPlan.pipe_floor), and the report holds
    the measured LOOP to 90% of it; a direct pick has no such line."""
    from llgen.cases.suite_endpoint import endpoint_suite
    from llgen.plan.endpoint import plan_load

    case = next(c for c in endpoint_suite() if c.id == "tr_f16_swizzled")
    plan = plan_load(case.encoding(), case.q, case.dtype, "sm_90")
    assert plan.staging is not None and plan.convert_cycles > 0
    assert plan.pipe_floor == max(plan.wavefronts, plan.convert_cycles) < plan.cost
    staged = _fake_case("s", 1000.0, 4000.0, (1000.0, 4000.0))  # 2048 stated cycles a step: 1024 ns at 1000 MHz
    staged["variants"]["llgen"].update(pipe_floor_pred=2048.0, cost_pred=2304.0)
    line = next(t for s, t in endpoint_targets([staged], 1000.0) if "stated floor" in t)
    assert "lowest 102%" in line
    staged["variants"]["llgen"]["loop_per_sm_ns"] = 2000.0
    status, line = next((s, t) for s, t in endpoint_targets([staged], 1000.0) if "stated floor" in t)
    assert status == "MISSED" and "s 51%" in line
    assert not any("stated floor" in t for _, t in endpoint_targets([_fake_case("d", 520.0, 2080.0, (900.0, 2700.0))], 1000.0))


def test_the_16bit_transposes_rows_of_16_bytes_cross_the_warps():
    """Why ldmatrix.trans cannot stage the suite's 16-bit transposes (docs/design.md §11.3): an ldmatrix row is S's
    offset bits 0-2, and D's warps own one of them, so no in-warp staging layout holds a whole row."""
    from llgen.cases.suite_endpoint import endpoint_suite
    from llgen.plan.endpoint import shared_map

    cases = [c for c in endpoint_suite() if c.id.startswith("tr_f16")]
    assert len(cases) == 3
    for c in cases:
        s, _ = shared_map(c.encoding(), c.q)
        row = set(list(s.flat_cols("offset"))[:3])
        assert row & set(c.q.flat_cols("warp")), c.id


def test_bench_smem_is_one_sentence_without_a_gpu(tmp_path):
    out = tmp_path / "x.json"
    res = invoke("bench", "--suite", "endpoint", "--measures", "loop,stream", "-o", str(out))
    assert res.exit_code == 2 and one_sentence(res.stderr.removeprefix("error: ").strip())
    assert "loop only" in res.stderr
    res = invoke("check", "--suite", "endpoint", "--cpu")
    assert res.exit_code == 2 and "bench only" in res.stderr
    try:
        import cupy  # noqa: F401
    except ImportError:
        res = invoke("bench", "--suite", "endpoint", "-o", str(out))
        assert res.exit_code == 2 and one_sentence(res.stderr.removeprefix("error: ").strip()) and not out.exists()


def test_bench_of_one_endpoint_is_its_loop_through_s():
    """`llgen bench --src P --dst S` (a store; --src S --dst P a load) times the endpoint LOOP with P = Q."""
    from llgen.cli.commands.bench import custom_case
    from llgen.core.options import Options
    from llgen.spec.pair import Stated, parse_pair

    for src, dst in (("mma", "nvmma:128"), ("nvmma:128", "mma")):
        pair = parse_pair(src, dst, (64, 64), Stated(warps=4), shared_ok=True)
        case, tgt = custom_case(pair, (src, dst), Options())
        assert isinstance(case, EndpointSuiteCase) and tgt == "sm_90" and case.shared == "nvmma:128"
        assert case.p == case.q and case.p.shape == (64, 64) and case.encoding().to_linear((64, 64)) is not None
    res = invoke("bench", "--src", "mma", "--dst", "nvmma:128", "--shape", "64x64", "--measures", "stream", "-o", "x.json")
    assert res.exit_code == 2 and "measures loop only" in res.stderr and one_sentence(res.stderr.removeprefix("error: ").strip())


if __name__ == "__main__":
    # after an intended change in generated code: the LOOP kernels compiled again, their record rewritten
    write_record(
        SMEM_LOOP_SASS, {"sm_90": loop_sass(_loops({cid: endpoint_variants(CASES[cid])[0][0] for cid in COMPILED}), {})[1]}
    )
