"""The bench on a machine without a GPU: the wide suite plans, emits and compiles; Triton's Gluon kernels compile for
every wide case; the bench harness runs on CPU threads through a stand-in for CuPy (LOOP checked against NumPy,
failures as rows, shards and the merged report); the gather benchmark's kernels compute take_along_axis."""

from __future__ import annotations

import functools
import json
import re
import sys
import types

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import ROOT, recorded_facts, write_record

from llgen.cases.suite import Case, core, describe, gather_bench_cases, wide
from llgen.cli import main
from llgen.core.errors import LlgenError
from llgen.plan.variants import variant_table, variants
from llgen.runtime import host
from llgen.runtime.bench import gather, measure, merge, report, rules, targets
from llgen.runtime.bench import run as runner

# CUDA's f16 `+ 1` is inline PTX; on CPU threads the same arithmetic in _Float16 (bench.j2 guards its own definitions)
HOST_F16 = r"""
#define LLGEN_ADD_ONE_F16X2
static inline unsigned short llgen_add_one_f16(unsigned short h) {
  _Float16 x; __builtin_memcpy(&x, &h, 2); x = (_Float16)(x + (_Float16)1.0f); __builtin_memcpy(&h, &x, 2); return h;
}
static inline unsigned llgen_add_one_f16x2(unsigned w) {
  return llgen_add_one_f16(w & 0xffffu) | (unsigned)llgen_add_one_f16(w >> 16) << 16;
}
"""


@functools.cache
def _wide_cases() -> dict[str, Case]:
    """The wide suite by id, built once (each build parses every layout again)."""
    return {c.id: c for c in wide()}


def by_id(cid: str) -> Case:
    return _wide_cases()[cid]


# ---------------------------------------------------------------------------------------------- the suite
def test_wide_has_forty_cases_beyond_core_with_stable_ids_and_every_kind():
    cases = wide()
    ids = [c.id for c in cases]
    assert len(ids) >= 40 and len(set(ids)) == len(ids) and not set(ids) & {c.id for c in core()}
    assert [(c.id, c.src, c.dst) for c in wide()] == [(c.id, c.src, c.dst) for c in cases]  # deterministic
    kinds = {
        "one warp": [c for c in cases if c.warps == 1 and c.src.total_out_bits >= 12],
        "1-D": [c for c in cases if len(c.shape) == 1],
        "tiny": [c for c in cases if c.src.total_out_bits <= 8],
        "8 warps": [c for c in cases if c.warps == 8],
        "256x128": [c for c in cases if tuple(c.shape) == (256, 128)],
        "128x256": [c for c in cases if tuple(c.shape) == (128, 256)],
        "rank 3": [c for c in cases if len(c.shape) == 3],
        "scratch rounds": [c for c in cases if c.smem_budget],
        "random pairs": [c for c in cases if c.id.startswith("r18_")],
    }
    for dt in ("i8", "f8e4m3", "f8e5m2", "bf16", "f64"):
        kinds[dt] = [c for c in cases if c.dtype == dt]
    assert all(len(v) >= 1 for v in kinds.values()), {k: len(v) for k, v in kinds.items()}
    assert len(kinds["one warp"]) >= 5 and len(kinds["random pairs"]) >= 12


def test_the_wide_suite_matches_its_snapshot():
    """A change of the suite, or of the generator its random pairs come from, shows here (and in the calibration
    table's case ids): tests/data/wide_cases.json holds each case as llgen.cases.suite.describe gives it. After a change
    on purpose: python -c "import json; from llgen.cases.suite import wide, describe;
    print(json.dumps([describe(c) for c in wide()]))" > tests/data/wide_cases.json"""
    snap = json.loads((ROOT / "tests" / "data" / "wide_cases.json").read_text())
    assert snap == [describe(c) for c in wide()]


def test_every_wide_case_plans_every_variant_and_builds_its_bench_source():
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape

    picks = {}
    for c in wide():
        vs, skipped = variant_table(c, "sm_90", baselines=False)
        assert vs[0].name == "llgen" and all(v.kinds[0] != "?" and v.kinds[1] != "?" for v in vs), c.id
        names = {v.name for v in vs} | set(skipped)
        assert names == {
            "llgen",
            "registers",
            "shuffle",
            "shared",
            "shared_vec",
            "llgen_latency",
            "llgen_free",
            "llgen_latency_free",
        }, c.id
        for v in vs:
            src = emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd))
            assert "b_loop" in src and "b_stream" in src and "b_copy" in src
            shape = bench_shape(v.fwd, v.bwd)
            assert max(shape.loop.bytes, shape.stream_smem) <= v.fwd.target.smem_per_cta, c.id
        picks[c.id] = vs[0].fwd.path, vs[0].bwd.path
    assert picks["regperm_f16"] == ("registers", "registers") and picks["regperm_i8"] == ("registers", "registers")
    # one-warp cases: the pick of each, the path the H100 measured faster (bench/NOTES.md)
    shuffle, shared = ("shuffle", "shuffle"), ("shared", "shared")
    measured_best = {
        "w1_b2b_f16": shuffle,
        "w1_mma2dotB_f16": shuffle,
        "w1_b2dotA_f16": shared,
        "w1_b2mma_f32": shared,
        "w1_b2b_i8": shared,
    }
    assert {cid: picks[cid] for cid in measured_best} == measured_best


def test_variant_table_says_why_each_alternative_is_not_run():
    vs, skipped = variant_table(by_id("regperm_f16"), "sm_90", baselines=False)
    names = [v.name for v in vs]
    assert names[0] == "llgen" and "shuffle" in names and "shared" in names
    assert skipped["registers"] == "the same kernels as llgen" and vs[0].same_as == ["registers", "llgen_latency"]
    assert vs[0].kinds == ("registers", "registers")
    vs, skipped = variant_table(by_id("w8_b2mma_f32"), "sm_90")
    assert skipped["shuffle"].startswith("A -> B: the shuffle path cannot do this conversion")
    assert skipped["registers"].startswith("A -> B: the registers path cannot")
    assert {v.name for v in vs} >= {"llgen", "naive", "classic"}
    rounds = variant_table(by_id("mma2b_f16_b8k"), "sm_90")[0][0]
    assert rounds.fwd.detail.rounds == 4 and rounds.fwd.detail.scratch_bytes <= 8192


# A sample of the wide suite through NVRTC for sm_90, every variant: one-warp cases (STREAM groups of 8 warps on dynamic
# shared memory), tiles over 48 KB, scratch rounds, 1-D, rank 3, f64, fp8 and the register permutations.
WIDE_SAMPLE = ("w1_b2b_f16", "w1_b2dotA_f16", "wgmma2b_128x256_f32", "mma2b_f16_b8k", "r1_slice_256_f16")
WIDE_SAMPLE += ("r3_mma2b_4x64x32_f16", "b2bT_f64", "b2dotB_f8e4m3", "regperm_f16", "regperm_i8", "r18_7_i8")
# Each sample case's kernels' static shared and local memory by text hash (llgen.runtime.toolchain.sass_key), as
# tests/data/random-sass.json keeps test_emit's: a case whose source hashes as recorded is not compiled again.
# `python tests/test_bench_wide.py` rewrites the record after an intended change in generated code.
WIDE_BENCH_SASS = ROOT / "tests" / "data" / "wide-bench-sass.json"


def wide_bench_memory(known: dict) -> tuple[dict, dict]:
    """{case: {kernel: {"shared", "local"}}} of every variant's LOOP, STREAM and COPY kernels, and its record."""
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape

    units, names = {}, {}
    for cid in WIDE_SAMPLE:  # a source a case: LLGEN_KEEP's constraint is defined once a source, by its dtype
        vs = variants(by_id(cid), "sm_90", baselines=False)
        names[cid] = [f"{cid}_{v.name}_{k}" for v in vs for k in ("loop", "stream", "copy")]
        units[cid] = "\n".join(emit_bench(v.fwd, v.bwd, f"{cid}_{v.name}", bench_shape(v.fwd, v.bwd)) for v in vs)

    def memory(kernels, cid: str) -> dict:
        return {n: {"shared": kernels[n].shared, "local": kernels[n].local} for n in names[cid]}

    return recorded_facts(units, "sm_90", known, memory, together=False)


def test_wide_bench_kernels_compile_with_nvrtc():
    """The sample above compiles, and no kernel declares static shared memory (ptxas refuses a static array over
    48 KB, so the scratch is dynamic): 1024 bytes is what sm_90 reserves in every kernel."""
    from llgen.runtime.toolchain import ToolchainUnavailable

    try:
        found, _ = wide_bench_memory(json.loads(WIDE_BENCH_SASS.read_text())["sm_90"])
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    for cid in WIDE_SAMPLE:
        for n, res in found[cid].items():
            assert res["shared"] <= 1024 and res["local"] == 0, f"{n}: static shared {res['shared']}, local {res['local']}"


def test_triton_compiles_every_wide_case_or_the_case_says_why():
    """Gluon takes every wide layout (rank 1 to 3, replicas, every dtype) as a DistributedLinearLayout; compiled for
    sm_90 without a GPU, its LOOP kernel's shared memory fits the H100's 227 KB per CTA except where the case's note
    says Triton cannot run it."""
    pytest.importorskip("triton")
    from llgen.runtime.gluon import compile_offline

    over = []
    for c in wide():
        k = compile_offline("loop", c)
        if k.metadata.shared > 227 * 1024:
            over.append(c.id)
            assert "Triton cannot run it" in c.note, c.id
    assert over == ["b2bT_256x256_f32"]


# ------------------------------------------------------------------------------- the harness on CPU threads
class _HostKernel:
    def __init__(self, module, name):
        self.module, self.name = module, name
        self.num_regs, self.local_size_bytes, self.max_dynamic_shared_size_bytes = 0, 0, 0

    def __call__(self, grid, block, args, shared_mem=0):
        self.module.launch(self.name, grid[0], block[0], args, smem=shared_mem)


_HOST_MODULES: dict = {}  # source -> its host module: the CPU shim defines the launch bounds away, so a source's
# LOOP_ONE_CTA build is its own build


class _HostRawModule:
    def __init__(self, code, options=()):  # noqa: ARG002 - CuPy's signature
        self.code, self.module = code, None

    def compile(self):
        # an empty asm pins a value on the GPU; the CPU shim defines LLGEN_KEEP away, and so does this its per-element form
        code = re.sub(r"#define LLGEN_KEEP_ELEM\(x\) asm volatile\(.*\)", "#define LLGEN_KEEP_ELEM(x) ((void)(x))", self.code)
        if code not in _HOST_MODULES:
            _HOST_MODULES[code] = host.compile(HOST_F16 + code, "sm_90")
        self.module = _HOST_MODULES[code]

    def get_function(self, name):
        return _HostKernel(self.module, name)


def host_cupy(sms: int = 1) -> types.ModuleType:
    """What llgen.runtime.bench asks of CuPy for LOOP's correctness check, on NumPy and CPU threads (llgen.runtime.host)."""
    cp = types.ModuleType("cupy")
    cp.asarray = lambda a: np.array(a, copy=True)
    cp.asnumpy = np.asarray
    cp.empty_like = np.empty_like
    cp.flatnonzero = np.flatnonzero
    cp.RawModule = _HostRawModule
    cp.get_default_memory_pool = lambda: types.SimpleNamespace(free_all_blocks=lambda: None)
    cp.cuda = types.SimpleNamespace(Device=lambda _=0: types.SimpleNamespace(attributes={"MultiProcessorCount": sms}))
    return cp


@pytest.fixture
def cpu_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", host_cupy())


@pytest.mark.usefixtures("cpu_cupy")
def test_run_case_on_cpu_threads_checks_every_variant_of_the_register_permutations():
    """LOOP and its checker agree on CPU threads: every variant of both register permutations (registers, forced
    shuffle, forced shared) gives NumPy's answer after 3 round trips, f16 through the same `+ 1` as the checker's."""
    for cid in ("regperm_f16", "regperm_i8"):
        res = runner.run_case(
            by_id(cid), runner.CaseRun("sm_90", set(), 1, False, lambda _: None, {"matrix": False}, baselines=True)
        )
        assert "error" not in res, res
        assert set(res["variants"]) >= {"llgen", "shuffle", "shared", "naive", "classic"}
        for name, r in res["variants"].items():
            assert r["loop_correct"] is True, (cid, name, r)
            assert r["kinds"] and r["cost_pred"] is not None


@pytest.mark.usefixtures("cpu_cupy")
def test_every_variant_gets_both_loop_forms_and_each_pick_its_alternating_rounds(monkeypatch):
    """Both objectives' LOOP forms on CPU threads, the clock a stand-in: every variant (forced alternatives, Triton too) has LOOP's
    throughput and one-CTA forms and both models' predictions; the throughput pick and Triton alternate rounds of
    LOOP, and the latency pick (wl1_b2dotA_i8's: the forced shared path's kernels) and Triton rounds of one CTA."""
    from llgen.cases.suite import warplocal
    from llgen.runtime.bench import timing

    grids = []

    def per_sm_ns(_run, grid, sms, _rep):
        grids.append(grid)
        return 50.0 if grid == sms else 5.0

    monkeypatch.setattr(timing, "per_sm_ns", per_sm_ns)

    def triton(m, _log):
        m.launches["triton"] = lambda *_: None
        return {"path": "triton", "loop_per_sm_ns": 6.0, "loop_lat_ns": 60.0}

    monkeypatch.setattr(measure, "triton_row", triton)
    case = next(c for c in warplocal() if c.id == "wl1_b2dotA_i8")
    res = runner.run_case(case, runner.CaseRun("sm_90", {"loop"}, 1, True, lambda _: None, {"matrix": False}, False))
    v = res["variants"]
    assert "error" not in res and set(v) == {"llgen", "shared", "triton"}  # shared_vec: the same kernels without ldmatrix
    assert v["shared"]["same_as"] == ["shared_vec", "llgen_latency", "llgen_latency_free"]  # its words already agree
    assert res["skipped"]["llgen_latency"] == "the same kernels as shared"
    for name, r in v.items():
        assert r["loop_per_sm_ns"] == 5.0 or name == "triton", name
        assert r["loop_lat_ns"] in (50.0, 60.0) and (name == "triton" or r["lat_pred"] > 0), name
        assert r.get("lat_build") == (None if name == "triton" else "one_cta") and r.get("loop_correct") is not False, name
    assert v["shared"]["lat_pred"] < v["llgen"]["lat_pred"] and v["llgen"]["cost_pred"] < v["shared"]["cost_pred"]
    assert len(v["llgen"]["loop_rounds_ns"]) == len(v["triton"]["loop_rounds_ns"]) == rules.LOOP_ROUNDS
    assert len(v["shared"]["loop_lat_rounds_ns"]) == len(v["triton"]["loop_lat_rounds_ns"]) == rules.LOOP_ROUNDS
    assert "loop_lat_rounds_ns" not in v["llgen"] and "loop_rounds_ns" not in v["shared"]
    assert grids.count(1) == 2 + 2 * rules.LOOP_ROUNDS  # one SM: each variant's one-CTA LOOP, then the rounds


@pytest.mark.usefixtures("cpu_cupy")
def test_a_wrong_loop_kernel_says_where_it_goes_wrong(monkeypatch):
    """check_loop finds the first k that fails: a LOOP that skips its first round trip is right at k = 0 (the global
    load and store) and wrong from k = 1."""
    emit = measure.emit_bench
    monkeypatch.setattr(
        measure,
        "emit_bench",
        lambda f, b, n, shape: emit(f, b, n, shape).replace("for (int i = 0; i < k; ++i)", "for (int i = 1; i < k; ++i)"),
    )
    res = runner.run_case(
        by_id("tiny_16x16_f32"), runner.CaseRun("sm_90", set(), 1, False, lambda _: None, {"matrix": False}, False)
    )
    r = res["variants"]["llgen"]
    assert r["loop_correct"] is False and r["loop_first_bad"]["k"] == 1 and r["loop_first_bad"]["share_of_tiles"] == 1.0


@pytest.mark.usefixtures("cpu_cupy")
def test_bench_never_crashes_a_failure_is_a_row(monkeypatch):
    """A variant that does not emit or compile, a Triton that cannot run and a case llgen cannot plan are rows
    that say why; the other variants are measured."""
    emit = measure.emit_bench

    def flaky(f, b, n, shape):
        if f.path == "shuffle":
            raise RuntimeError("emitter bug")
        if f.detail is not None and f.path == "shared" and not getattr(f.detail, "warp_sync", True):
            return "this is not CUDA"
        return emit(f, b, n, shape)

    monkeypatch.setattr(measure, "emit_bench", flaky)
    res = runner.run_case(
        by_id("w1_b2dotA_f16"), runner.CaseRun("sm_90", set(), 1, True, lambda _: None, {"matrix": False}, False)
    )
    v = res["variants"]
    assert v["shuffle"]["error"] == "emit: RuntimeError: emitter bug"
    assert v["llgen"]["loop_correct"] is True  # one warp: __syncwarp plans still emit
    assert v["triton"]["error"]  # here: no torch, or no GPU for it
    res = runner.run_case(
        by_id("tiny_16x16_f32"), runner.CaseRun("sm_90", set(), 1, False, lambda _: None, {"matrix": False}, False)
    )
    assert res["variants"]["llgen"]["error"].startswith("CompileFailed")
    a = by_id("tiny_16x16_f32")
    bad = Case("bad", "f32", (16, 16), 4, a.src, by_id("w1_b2b_f16").dst)
    res = runner.run_case(bad, runner.CaseRun("sm_90", set(), 1, False, lambda _: None))
    assert res["error"].startswith("LlgenError") and res["variants"] == {}


@pytest.mark.usefixtures("cpu_cupy")
def test_run_in_shards_and_merge_into_one_report(monkeypatch, tmp_path):
    """run(shard=(i, n)) takes every n-th case from the i-th and saves after each case; merge_reports puts core and
    wide pieces back in suite order into one report with both suites' tables, targets and chart."""
    monkeypatch.setattr(runner, "device", lambda _t: None)
    monkeypatch.setattr(runner, "device_info", lambda: {"device": "CPU threads", "sms": 1, "date": "d0", "commit": "x"})
    saved = []
    cases = [by_id(i) for i in ("tiny_16x16_f32", "tiny_8x8_f16", "r1_64_i8", "regperm_i8")]
    parts = []
    for i in (1, 2):
        rep = runner.run(
            cases,
            runner.CaseRun("sm_90", (), 1, False, lambda _: None, {"matrix": False}, baselines=False),
            suite="wide",
            shard=(i, 2),
            on_case=lambda r: saved.append(len(r["cases"])),
        )
        assert [c["id"] for c in rep["cases"]] == [c.id for c in cases[i - 1 :: 2]]
        parts.append(tmp_path / f"wide-{i}.json")
        report.write_json(rep, str(parts[-1]))
    assert saved == [1, 2, 1, 2]
    core_part = tmp_path / "core.json"
    report.write_json(
        {"info": {"device": "CPU threads", "suite": "core", "date": "c0", "date_end": "c1"}, "measures": [], "cases": []},
        str(core_part),
    )
    merged = merge.merge_reports(merge.read_reports([parts[1], core_part, parts[0]]))
    report.write_report(merged, str(tmp_path / "out"))
    ids = {c.id for c in cases}
    assert [c["id"] for c in merged["cases"]] == [c.id for c in wide() if c.id in ids]  # the suite's own order
    assert [r["suite"] for r in merged["info"]["runs"]] == ["wide", "core", "wide"]
    text = (tmp_path / "out" / "report.md").read_text()
    assert "## Suite wide (4 cases)" in text and "## Targets beyond core on wide" in text
    assert (tmp_path / "out" / "report.png").stat().st_size > 10_000
    with pytest.raises(LlgenError, match="shard 3/2 does not exist"):
        runner.select_shard(cases, (3, 2))
    # merged again with a full rerun of core: the wide runs keep their provenance, the replaced core run goes
    rerun = {"info": {"device": "CPU threads", "suite": "core", "date": "c2", "date_end": "c3"}, "measures": [], "cases": []}
    again = merge.merge_reports([merged, rerun])
    assert [(r["suite"], r["date"]) for r in again["info"]["runs"]] == [("wide", "d0"), ("wide", "d0"), ("core", "c2")]
    # a run stays listed while any of its cases is kept: a later run of other cases of its suite does not replace it
    part = lambda ids, date: {  # noqa: E731
        "info": {"suite": "smem", "date": date, "date_end": date, "device": "H100"},
        "cases": [{"suite": "smem", "id": i} for i in ids],
    }
    both = merge.merge_reports([part(["a", "b"], "1"), part(["c", "d"], "2")])
    assert [r["date"] for r in both["info"]["runs"]] == ["1", "2"] and len(both["cases"]) == 4
    assert [r["date"] for r in merge.merge_reports([part(["a"], "1"), part(["a", "b"], "2")])["info"]["runs"]] == ["2"]
    # the endpoint suite was named smem before: an older report's cases are that suite's, and a rerun replaces them
    renamed = {
        "info": {"suite": "endpoint", "date": "3", "date_end": "3", "device": "H100"},
        "cases": [{"suite": "endpoint", "id": "a"}],
    }
    mixed = merge.merge_reports([part(["a", "b"], "1"), renamed])
    assert [(c["suite"], c["id"]) for c in mixed["cases"]] == [("endpoint", "b"), ("endpoint", "a")]
    assert [(r["suite"], r["date"]) for r in mixed["info"]["runs"]] == [("endpoint", "1"), ("endpoint", "3")]


@pytest.mark.parametrize(
    "args,error",
    [
        (["--shard", "x"], "shard 'x' is not of the form I/N (e.g. 2/3)."),
        (["--shard", "3/2"], "shard 3/2 does not exist: use 1/2 to 2/2."),
        (["--measures", "loop,speed"], "unknown measure(s) ['speed']"),
        (["--cases", "w1_b2b_f16,nope"], "no case nope in this suite."),
    ],
)
def test_bench_rejects_bad_shards_measures_and_cases_before_the_gpu(monkeypatch, tmp_path, args, error):
    monkeypatch.setitem(sys.modules, "cupy", None)
    out = tmp_path / "wide-1.json"
    r = CliRunner().invoke(main, ["bench", "--suite", "wide", *args, "-o", str(out)])
    assert r.exit_code == 2 and r.output.startswith("error: ") and error in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1 and not out.exists()


def test_bench_merge_is_a_subcommand_with_one_line_errors(tmp_path):
    r = CliRunner().invoke(main, ["bench", "merge", "-o", str(tmp_path / "out"), str(tmp_path / "none.json")])
    assert r.exit_code == 2 and r.output.startswith("error: cannot read the bench report") and not (tmp_path / "out").exists()
    assert [c.id for c in runner.select_cases(wide(), "r1_64_i8,w1_b2b_f16")] == ["w1_b2b_f16", "r1_64_i8"]


# ---------------------------------------------------------------------------------------------- report
def _wide_report() -> dict:
    """A merged core + wide report as the device would give it, with numbers made up for the layout of the text."""

    def case(cid, suite, pick, alts, triton, **extra):
        v = {"llgen": {"path": "shared/shared", "loop_per_sm_ns": pick, "loop_correct": True, "regs": 40, "local_bytes": 0}}
        v.update({n: {"path": f"{n}/{n}", "loop_per_sm_ns": ns, "loop_correct": True} for n, ns in alts.items()})
        v["triton"] = {"path": "triton", "loop_per_sm_ns": triton} if triton else {"path": "triton", "error": "OutOfResources"}
        return {"id": cid, "suite": suite, "variants": v, "skipped": {"registers": "A -> B: no"}, **extra}

    return {
        "info": {"device": "NVIDIA H100 80GB HBM3", "sms": 132, "nvidia_smi": "580, 1980 MHz, 1980 MHz, 2619 MHz"},
        "measures": ["loop", "stream"],
        "cases": [
            case("t16x32", "core", 16.0, {"shuffle": 240.0}, 19.5),
            case("w1_b2b_f16", "wide", 40.0, {"shuffle": 30.0}, 35.0),
            case("w8_b2mma_f32", "wide", 500.0, {"shared_vec": 505.0}, 600.0),
            case("b2bT_256x256_f32", "wide", 2000.0, {}, None),
        ],
        "gather": [
            {
                "id": "gather_f32",
                "dtype": "f32",
                "shape": [32, 32],
                "axis": 1,
                "pattern": "random",
                "variants": {
                    "llgen": {"path": "shuffle", "loop_per_sm_ns": 10.0, "loop_correct": True},
                    "shared": {"path": "shared", "loop_per_sm_ns": 40.0, "loop_correct": True},
                    "triton": {"path": "triton", "loop_per_sm_ns": 12.0, "loop_correct": True},
                },
            }
        ],
    }


def test_wide_report_has_its_targets_gather_section_and_chart(tmp_path):
    report.write_report(_wide_report(), str(tmp_path))
    text = (tmp_path / "report.md").read_text()
    assert "## Suite core (1 cases)" in text and "## Core's targets, from this run" in text
    assert "| w1_b2b_f16 | shared/shared | 40.0 | 35.0 | 0.88 | shuffle 30.0 | 1.333 |" in text
    assert (
        "MISSED: the throughput pick within 2% of the fastest llgen variant (LOOP) on >= 95% of the 2 cases with another"
    ) in text
    assert (
        "worst w1_b2b_f16 1.333 (over 2%: w1_b2b_f16 1.333 (the model's prediction is not in the report))" in text
        and "Triton could not run b2bT_256x256_f32 (OutOfResources)" in text
    )
    assert "w1_b2b_f16: the model picked shared/shared but shuffle (shuffle/shuffle) measured 30.0 vs 40.0 ns" in text
    assert "- w1_b2b_f16 / registers: skipped: A -> B: no" in text
    assert "| gather_f32 | f32 | 32x32 | 1 | random | shuffle | 10.0 | 10.0 | 40.0 | 12.0 | 1.20 | 4.00 | True, True |" in text
    assert (tmp_path / "report.png").stat().st_size > 20_000


def test_pick_gap_counts_the_pick_as_the_fastest_within_two_percent():
    c = _wide_report()["cases"][2]
    assert rules.best_alternative(c) == ("shared_vec", 505.0) and rules.pick_gap(c) == 1.0
    (line,) = [t for t in targets.targets_wide({"cases": [c]}, 1980) if "the throughput pick" in t[1]]
    assert line[0] == "met" and "1/1" in line[1]


# ---------------------------------------------------------------------------------------------- gather
def test_gather_bench_kernels_compute_take_along_axis_on_cpu_threads():
    """Every gather case by every variant (pick, forced shuffle and shared), both index patterns: the LOOP kernel's
    three gathers in a row give NumPy's take_along_axis applied three times, bit for bit."""
    from llgen.runtime.reference import random_input, raw_dtype

    rng = np.random.default_rng(3)
    runs = []  # (case, variant, plan, kernel name): every LOOP in one source, one host compile for them all
    for c in gather_bench_cases():
        plans, skipped = gather.gather_variants(c)
        assert plans[0][0] == "llgen" and len(plans) + len(skipped) == 3
        runs += [(c, name, plan, f"g{len(runs) + i}") for i, (name, plan) in enumerate(plans)]
    assert {plan.path for _, _, plan, _ in runs} == {"shuffle", "shared", "registers"}
    mod = host.compile("\n".join(gather.loop_source(plan, g) for _, _, plan, g in runs), "sm_90")
    for c, name, plan, g in runs:
        for pattern in gather.PATTERNS:
            x = random_input(raw_dtype(c.dtype), 2 * int(np.prod(c.shape)), rng).reshape(2, *c.shape)
            ix = gather.index_tiles(pattern, c.shape, c.axis, 2, rng)
            y = np.zeros(x.size, x.dtype)
            args = (x.reshape(-1).copy(), ix.reshape(-1).copy(), y, 3)
            mod.launch(f"{g}_loop", 2, c.warps * 32, args, smem=gather.scratch_bytes(plan))
            assert (y == gather.expected(x, ix, c.axis, 3).reshape(-1)).all(), (c.id, name, pattern)


def test_triton_gather_compiles_for_every_gather_case():
    pytest.importorskip("triton")
    from llgen.runtime.gluon import compile_offline

    for c in gather_bench_cases():
        k = compile_offline("gather", c)
        assert k.metadata.shared <= 227 * 1024, c.id


def test_a_triton_loop_faster_than_its_own_add_is_folded_and_not_counted():
    """regperm_i8 (64x64 i8, a register permutation): LLVM folds Triton's k `+ 1`s into one add, and its LOOP read
    0.14 ns, under the 2 ns its adds alone take; such a row is not a speed-up."""

    def row(tr, shape=(64, 64), dtype="i8"):
        return {
            "shape": list(shape),
            "dtype": dtype,
            "variants": {"llgen": {"loop_per_sm_ns": 18.3}, "triton": {"loop_per_sm_ns": tr}},
        }

    assert rules.triton_folded(row(0.14)) and rules.loop_ratio(row(0.14)) is None
    # a slope of exactly 0.0 (a median of five rounds can read it) is folded too, and so not a latency ratio either
    folded = row(0.0)
    folded["variants"]["triton"]["loop_lat_ns"] = -0.33
    assert rules.triton_folded(folded) and rules.latency_ratio(folded) is None
    assert not rules.triton_folded(row(2.8, (64,), "i8")) and rules.loop_ratio(row(36.6)) == pytest.approx(2.0)


if __name__ == "__main__":
    # after an intended change in generated code: the sample's kernels compiled again, their record rewritten
    write_record(WIDE_BENCH_SASS, {"sm_90": wide_bench_memory({})[1]})
