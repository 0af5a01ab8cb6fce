"""`llgen bench` on a machine without a GPU: its errors, its report, and the plans its ncu worker rebuilds."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from llgen.cases.suite import core, wide
from llgen.cli import main
from llgen.plan.variants import variant_table, variants
from llgen.runtime.bench import counters, device, measure, report, rules, targets, timing
from llgen.runtime.reference import loop_input, plus_one, raw_dtype


def test_bench_without_cupy_is_one_sentence(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "cupy", None)
    r = CliRunner().invoke(main, ["bench", "--suite", "core", "-o", str(tmp_path / "b")])
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: CuPy is not installed") and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()


def test_bench_rejects_unknown_measures():
    r = CliRunner().invoke(main, ["bench", "--suite", "core", "--measures", "loop,speed"])
    assert r.exit_code == 2 and "unknown measure(s) ['speed']" in r.output


@pytest.mark.parametrize("options", [{}, {"smem_budget": 16 * 1024}])
def test_the_ncu_worker_rebuilds_every_variant(tmp_path, options):
    """The worker under ncu plans each case as the bench did, with the same plan options (--smem-budget)."""
    cases = core()[:3]
    path = counters.save_cases(cases, tmp_path / "cases.json", options)
    got = dict(counters.wavefront_plans(path, "sm_90"))
    for c in cases:
        for v in variants(c, "sm_90", options):
            assert got[f"{c.id}_{v.name}_fwd"] == v.fwd and got[f"{c.id}_{v.name}_bwd"] == v.bwd


def _report(ncu_rows: dict, monkeypatch) -> dict:
    """A report as `run` returns it for one case (t16x32), with the measured rows `ncu.measure` would give."""
    case = core()[0]
    rows = {}
    for v in variants(case, "sm_90"):
        rows[v.name] = {
            "path": f"{v.fwd.path}/{v.bwd.path}",
            "loop_per_sm_ns": 16.0 if v.name == "llgen" else 140.0,
            "loop_lat_ns": 40.0,
            "stream_ratio": 0.997,
            "regs": 50,
            "local_bytes": 0,
            "loop_correct": True,
            "wavefronts_pred": measure._wavefronts(v.fwd, v.bwd),
            "ideal_clocks": 32,
        }
    rows["triton"] = {"path": "triton", "loop_per_sm_ns": 19.5, "regs": 54, "stream_ratio": 0.997}
    made = {
        "info": {
            "device": "NVIDIA H100 80GB HBM3",
            "sms": 132,
            "nvidia_smi": "580.159.04, 1980 MHz, 1980 MHz, 2619 MHz",
            "date": "2026-11-23 06:35:18 UTC",
            "date_end": "2026-11-23 06:37:45 UTC",
        },
        "measures": ["loop", "stream", "wavefronts"],
        "cases": [{"id": case.id, "variants": rows}],
    }
    from llgen.runtime import ncu

    monkeypatch.setattr(
        ncu, "measure", lambda *_: {"rows": ncu_rows, "metrics": [], "rc": 0, "timed_out": False, "seconds": 1.0, "out": ""}
    )
    counters.measure_wavefronts([case], "sm_90", made, log=lambda _: None)
    return made


def _row(plan, st=None, ld=None):
    from llgen.runtime import ncu

    pred = ncu.prediction(plan)
    meas = {ncu.WF_ST: pred["pred_st_wf"] if st is None else st, ncu.WF_LD: pred["pred_ld_wf"] if ld is None else ld}
    return ncu.compare_launches(pred, [meas, meas])


def test_report_shows_measured_wavefronts_next_to_the_prediction(tmp_path, monkeypatch):
    case = core()[0]
    vs = {v.name: v for v in variants(case, "sm_90")}
    rows = {
        f"{case.id}_{n}_{t}": _row(getattr(v, t)) for n, v in vs.items() for t in ("fwd", "bwd") if getattr(v, t).path == "shared"
    }
    rows[f"{case.id}_naive_fwd"] = _row(vs["naive"].fwd, ld=17)  # one counter off the prediction
    made = _report(rows, monkeypatch)
    llgen = made["cases"][0]["variants"]["llgen"]
    assert llgen["wavefronts_meas"]["fwd"]["verdict"] == "match" and llgen["wavefronts_meas"]["fwd"]["st"] == 16
    paths = report.write_report(made, str(tmp_path))
    assert sorted(p.name for p in paths) == ["report.json", "report.md", "report.png"]
    text = (tmp_path / "report.md").read_text()
    assert "| t16x32 | shared/shared | 16.0 | 19.5 | 1.22 |" in text and "| 64/64 |" in text  # 16+16 each way
    assert "- t16x32 llgen fwd: store 16 / 16, load 16 / 16, floor 32 (match)" in text
    assert "t16x32: naive fwd wavefronts measured st 16 / ld 17, predicted 16 / 256 (MISMATCH)" in text
    assert (tmp_path / "report.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "report.json").read_text())["cases"][0]["variants"]["llgen"]["wavefronts_meas"]


def test_report_without_ncu_says_not_measured(tmp_path, monkeypatch):
    report.write_report(_report({}, monkeypatch), str(tmp_path))
    text = (tmp_path / "report.md").read_text()
    assert "| -/64 |" in text and "(not measured)" in text


@pytest.mark.parametrize("dtype,k", [("f16", 3), ("f32", 2), ("i8", 5)])
def test_loop_reference_adds_one_per_round_trip(dtype, k):
    import numpy as np

    raw = raw_dtype(dtype).type
    x = loop_input(dtype, raw, 64, np.random.default_rng(0))
    y = plus_one(dtype, x, k)
    if dtype == "i8":
        assert (y == (x + k).astype(raw)).all()
    else:
        f = {"f16": np.float16, "f32": np.float32}[dtype]
        assert np.allclose(y.view(f).astype(np.float64), x.view(f).astype(np.float64) + k, rtol=1e-2, atol=0.07)


def _pair(case, target="sm_90", **kw):
    from llgen.plan import plan_conversion

    return plan_conversion(case.src, case.dst, case.dtype, target, **kw), plan_conversion(
        case.dst, case.src, case.dtype, target, **kw
    )


def test_bench_kernels_compile_without_local_memory_and_no_more_registers_than_triton():
    """The code-health target: no local memory, and no more registers than Triton. Triton's registers are the committed report's (read on the H100), and our
    NVRTC is pinned to the device's 13.0.88, so the counts here are the ones the device gives."""
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda

    src = "\n".join(emit_bench(*_pair(c), c.id, bench_shape(*_pair(c))) for c in core())
    try:
        cubin = compile_cuda(src, "sm_90")
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    report = json.loads((Path(__file__).parents[1] / "bench" / "report.json").read_text())
    triton = {c["id"]: c["variants"]["triton"]["regs"] for c in report["cases"] if "regs" in c["variants"].get("triton", {})}
    for c in core():
        for k in ("loop", "stream", "copy"):
            res = cubin.kernels[f"{c.id}_{k}"]
            assert res.stack == 0 and res.local == 0, f"{c.id}_{k}: stack {res.stack}, local {res.local}"
        regs = cubin.kernels[f"{c.id}_loop"].registers
        assert regs <= triton[c.id], f"{c.id}: {regs} registers in the LOOP kernel, Triton's has {triton[c.id]}"


def test_loop_one_cta_keeps_a_loop_ptxas_spills_in_registers():
    """r18_178_i64's LOOP (2 warps, 32 i64 a thread each way): under ptxas's own register budget it takes 80
    registers and a stack frame, and rereads the lane id every step; bench then builds it with LOOP_ONE_CTA, which
    leaves it no stack. The emitted text is the same either way (a macro picks the bounds)."""
    from llgen.cases.suite import suite
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda

    case = next(c for c in suite("wide") if c.id == "r18_178_i64")
    src = emit_bench(*_pair(case), "b", bench_shape(*_pair(case)))
    try:
        plain = compile_cuda(src, "sm_90").kernels["b_loop"]
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    one = compile_cuda(src, "sm_90", (device.LOOP_ONE_CTA,)).kernels["b_loop"]
    assert plain.stack > 0
    assert one.stack == 0 and one.local == 0


def test_the_one_cta_build_of_a_warp_local_shuffle_loop_holds_more_registers_and_no_local_memory():
    """wl4_mma2dotA_i8's pick (shuffles within each warp): under ptxas's own budget its LOOP keeps few registers (56)
    and waits out each SHFL; built for one CTA (the build its one-CTA latency is timed on) it takes more (80) to keep
    the shuffles in flight, and still no stack or local memory. (wl4_mma2b_f32, the case here until its f32 selects
    became FSEL, now takes 95 registers in both builds.)"""
    from llgen.cases.suite import warplocal
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda

    case = next(c for c in warplocal() if c.id == "wl4_mma2dotA_i8")
    fwd, bwd = _pair(case)
    assert fwd.path == bwd.path == "shuffle"
    src = emit_bench(fwd, bwd, "b", bench_shape(fwd, bwd))
    try:
        own = compile_cuda(src, "sm_90").kernels["b_loop"]
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    one = compile_cuda(src, "sm_90", (device.LOOP_ONE_CTA,)).kernels["b_loop"]
    assert one.registers > own.registers, (one.registers, own.registers)
    assert one.stack == one.local == own.stack == own.local == 0


@pytest.mark.parametrize("spills", [False, True])
def test_the_one_cta_latency_is_timed_on_the_loop_built_for_one_cta(monkeypatch, spills):
    """With LOOP measured, every variant's LOOP is built twice in the same compile_all batch: ptxas's own budget for
    throughput, LOOP_ONE_CTA for the one-CTA latency; each number is timed on its own build, and the row names both
    builds and the registers of both. Where the own build spills it already is the one-CTA build: two builds, not
    three, and both numbers come from it. A source without the bound is built once."""
    from llgen.cases.suite import warplocal

    builds, timed, spilling = [], [], [spills]

    class Kernel:  # CuPy's RawKernel, by the flags its module was built with
        def __init__(self, one):
            self.one, self.num_regs, self.max_dynamic_shared_size_bytes = one, 120 if one else 90, 0
            self.local_size_bytes = 16 if spilling[0] and not one else 0

        def __call__(self, grid, block, args, shared_mem=0):  # noqa: ARG002 - CuPy's signature
            timed.append((self.one, grid[0]))

    class Module:  # CuPy's RawModule
        def __init__(self, code, options=()):  # noqa: ARG002
            self.one = device.LOOP_ONE_CTA in options
            builds.append(self.one)

        def compile(self):
            pass

        def get_function(self, _name):
            return Kernel(self.one)

    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(RawModule=Module))
    monkeypatch.setattr(measure, "check_loop", lambda *_: {"loop_correct": True})
    monkeypatch.setattr(timing, "per_sm_ns", lambda run, grid, _sms, _rep: run(64, grid) or 1.0)
    case = next(c for c in warplocal() if c.id == "wl4_mma2b_f32")
    vs, _ = variant_table(case, "sm_90", baselines=False)
    m = types.SimpleNamespace(case=case, measures={"loop"}, launches={}, lat_launches={}, sms=2, rep=1, x=0, y=0)
    m.threads, m.grid, m.loop_ref = case.warps * 32, 64, None
    res = {"variants": {}, "skipped": {}}
    measure.run_variants(m, vs, res, False, lambda _: None)
    assert sorted(res["variants"]) == ["llgen", "shared"] and sorted(builds) == [False, False, True, True]
    assert timed == [(spills, 64), (True, 2)] * 2  # each variant's throughput (32 CTAs an SM), then its one CTA
    own = "one_cta" if spills else "throughput"
    for r in res["variants"].values():
        assert (r["loop_build"], r["lat_build"], r["loop_one_cta"]) == (own, "one_cta", spills)
        assert (r["regs"], r["lat_regs"], r["lat_local_bytes"]) == (120 if spills else 90, 120, 0)
    builds.clear()
    spilling[0] = False
    lone = {"k": None}
    device.compile_all({"k": "void b_loop(int k)"}, lone=lone)
    assert lone == {"k": None} and builds == [False]


@pytest.mark.parametrize("case_id", ["t16x32", "b2mma_f32", "lanes_f32", "b2dotA_i8"])
def test_bench_kernels_compute_what_numpy_says(case_id):
    """On CPU threads (llgen.runtime.host): LOOP adds 1 per round trip, STREAM and copy add s to every element, over
    an odd number of tiles so a two-tile step meets the end of the tensor (and, where a CTA runs several one-warp
    groups, most groups find no tile at all)."""
    import numpy as np

    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime import host

    case = next(c for c in core() if c.id == case_id)
    fwd, bwd = _pair(case, matrix=False)
    mod = host.compile(emit_bench(fwd, bwd, "b", bench_shape(fwd, bwd)), "sm_90")
    raw = raw_dtype(fwd.dtype).type
    tile, threads, rng = 1 << case.src.total_out_bits, case.warps * 32, np.random.default_rng(4)
    x = loop_input(case.dtype, raw, tile * 3, rng)
    y = np.zeros_like(x)
    mod.launch("b_loop", 3, threads, (x, y, 2))
    assert (y == plus_one(case.dtype, x, 2)).all()
    shape = bench_shape(fwd, bwd)
    s = raw(3)
    want = np.stack([((v.astype(np.uint64) + 3) % (1 << (8 * x.itemsize))).astype(raw) for v in x])
    for kernel in ("b_stream", "b_copy"):
        out = np.zeros_like(x)
        smem = shape.stream_smem if kernel == "b_stream" else 0
        mod.launch(kernel, 1, threads * shape.groups, (x, out, 3, s), smem=smem)
        assert (out == want).all(), kernel


def test_the_ideal_assumes_the_max_sm_clock_not_an_idle_reading():
    assert rules.sm_clock_mhz({"nvidia_smi": "580.159.04, 345 MHz, 1980 MHz, 2619 MHz"}) == 1980
    assert rules.sm_clock_mhz({"nvidia_smi": "unavailable"}) is None


def test_report_marks_a_wrong_stream_kernel_and_a_loop_miss(tmp_path, monkeypatch):
    """The exact column covers STREAM as well as LOOP; a LOOP miss names both sides' share of the ideal."""
    made = _report({}, monkeypatch)
    llgen = made["cases"][0]["variants"]["llgen"]
    llgen.update(stream_correct=False, loop_per_sm_ns=19.6)
    report.write_report(made, str(tmp_path))
    text = (tmp_path / "report.md").read_text()
    assert "| t16x32 | shared/shared | 19.6 | 19.5 |" in text and text.split("\n| t16x32 |")[1].split("\n")[0].endswith(
        "| False |"
    )
    ideal = 32 / 1980 * 1e3  # ns: 32 clocks at the max SM clock
    assert (
        f"MISSED: LOOP, Triton / llgen >= 1.0 on every case: t16x32 0.995 (llgen {100 * ideal / 19.6:.1f}%, "
        f"Triton {100 * ideal / 19.5:.1f}% of the ideal) below"
    ) in text


@pytest.mark.parametrize("ns,busy,status", [(16.2, 99.1, "physical"), (16.2, 90.0, "MISSED"), (17.0, 99.1, "MISSED")])
def test_a_loop_tie_is_physical_only_at_the_ideal_with_the_pipe_busy(monkeypatch, ns, busy, status):
    """Triton 0.1% ahead of llgen is "physical" only where llgen runs at >= 98% of its ideal and ncu finds its LSU
    data pipe >= 98% busy: then no kernel can be more than 2% faster. Slack in either leaves it MISSED."""
    made = _report({}, monkeypatch)
    v = made["cases"][0]["variants"]
    v["llgen"].update(loop_per_sm_ns=ns, loop_rounds_ns=[ns] * 5, pipe={"busy_pct": busy})
    v["triton"].update(
        loop_per_sm_ns=ns * 0.999, loop_rounds_ns=[ns * 0.99, ns * 1.004, ns * 0.999, ns, ns], pipe={"busy_pct": 99.0}
    )
    (line,) = [t for t in targets.targets(made, 1980) if "Triton / llgen >= 1.0" in t[1]]
    assert line[0] == status
    assert f"LSU data pipe busy {busy:.1f}% / 99.0%" in line[1] and "alternating rounds 0.990-1.004" in line[1]


@pytest.mark.parametrize("alu,status", [(98.9, "physical"), (97.4, "MISSED"), (None, "MISSED")])
def test_a_loop_tie_far_from_the_ideal_is_physical_only_with_the_alu_pipe_full(monkeypatch, alu, status):
    """A LOOP at 35% of its ideal (mma2b_f8e5m2: the ideal counts wavefronts, the tile's `+ 1` on bytes fills the
    integer ALU) is "physical" only where ncu finds llgen's integer ALU pipe >= 98% busy."""
    made = _report({}, monkeypatch)
    v = made["cases"][0]["variants"]
    v["llgen"].update(loop_per_sm_ns=50.0, loop_rounds_ns=[50.0] * 5, pipe={"busy_pct": 36.0, "alu_busy_pct": alu})
    v["triton"].update(loop_per_sm_ns=49.6, loop_rounds_ns=[49.6] * 5, pipe={"busy_pct": 37.0, "alu_busy_pct": 98.9})
    (line,) = [t for t in targets.targets(made, 1980) if "Triton / llgen >= 1.0" in t[1]]
    assert line[0] == status
    assert ("integer ALU pipe busy" in line[1]) == (alu is not None)
    assert alu is None or f"integer ALU pipe busy {alu:.1f}% / 98.9%" in line[1]


def test_stream_keeps_the_fastest_tiles_a_step_that_do_not_spill():
    """STREAM's tiles a step (rules.STREAM_UNROLLS): the fastest STREAM among kernels without a stack frame wins
    (w1_b2mma_f32's two tiles spilled and ran slower), and where every choice spills, the fastest of all."""
    assert timing.fastest_unroll({1: 1.00, 2: 0.98}, {1: 0, 2: 0}) == 2
    assert timing.fastest_unroll({1: 1.00, 2: 0.98}, {1: 0, 2: 96}) == 1
    assert timing.fastest_unroll({1: 1.00, 2: 0.98}, {1: 8, 2: 96}) == 2


def test_the_copy_roofline_is_a_memcpy_of_the_same_bytes_in_the_same_rounds(monkeypatch):
    made = _report({}, monkeypatch)
    made["cases"][0]["coalesced_a"] = True
    llgen = made["cases"][0]["variants"]["llgen"]
    got = {}
    for x, status in ((0.951, "met"), (0.925, "MISSED")):
        llgen.update(copy_vs_d2d=x, copy_GBps=2850.0)
        got[status] = [t for t in targets.targets(made, 1980) if "device-to-device" in t[1]]
    want = "our copy kernel >= 93% of a device-to-device copy of the same bytes where A is coalesced: lowest 95.1%"
    assert got["met"] == [("met", want)]
    assert got["MISSED"][0][0] == "MISSED" and "t16x32 92.5%" in got["MISSED"][0][1]


def test_stream_rounds_rotate_the_order_and_keep_medians(monkeypatch):
    calls = []
    monkeypatch.setattr(timing, "median_ms", lambda fn, _rep: fn())
    fns = {
        n: (lambda n=n: calls.append(n) or {"stream": 2.0, "copy": 1.0, "d2d": 0.9}[n] + 0.01 * len(calls))
        for n in ("stream", "copy", "d2d")
    }
    t = timing.rotating_rounds(fns, 3, rep=1)
    assert calls == ["stream", "copy", "d2d", "copy", "d2d", "stream", "d2d", "stream", "copy"]
    assert t["copy"] == pytest.approx(1.04)  # its rounds were calls 2, 4 and 9: 1.02, 1.04, 1.09


@pytest.mark.parametrize("case_id,tiles", [("t16x32", 19), ("b2dotA_i8", 3)])
def test_check_bench_passes_the_bench_kernels_and_catches_wrong_ones(case_id, tiles):
    """gpu-check's check of the bench kernels (runtime.check.check_bench), here on CPU threads: eight one-warp groups
    per CTA over an odd tile count pass, and so does LOOP's two-buffer scratch; a copy that skips its last tile and
    a LOOP that runs one round trip too few are caught."""
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime import host
    from llgen.runtime.check import BenchLaunch, check_bench

    case = next(c for c in core() if c.id == case_id)
    fwd, bwd = _pair(case, matrix=False)
    src = emit_bench(fwd, bwd, "b", bench_shape(fwd, bwd))
    r = check_bench(host.compile(src, "sm_90"), fwd, bwd, "b", launch=BenchLaunch(tiles=tiles, grid=2))
    assert r.ok and r.elems == 3 * tiles * (1 << case.src.total_out_bits)
    head, copy = src.rsplit("for (int t = ", 1)  # the copy is the last kernel: make it skip tile 0
    for broken, kernel in (
        (head + "for (int t = 1 + " + copy, "copy"),
        (src.replace("for (int i = 0; i < k; ++i)", "for (int i = 1; i < k; ++i)"), "loop"),
    ):
        bad = check_bench(host.compile(broken, "sm_90"), fwd, bwd, "b", launch=BenchLaunch(tiles=tiles, grid=2))
        assert not bad.ok and bad.first_bad_tile["kernel"] == kernel


def test_loop_scratch_gives_each_direction_a_buffer_only_where_the_other_barrier_covers_it():
    from dataclasses import replace

    from llgen.core.target import target
    from llgen.plan import plan_conversion
    from llgen.plan.benchshape import LoopScratch, loop_scratch

    by_id = {c.id: c for c in core()}
    assert loop_scratch(*_pair(by_id["b2bT_f16"])) == LoopScratch(65536, 32768)
    fwd, bwd = _pair(by_id["t16x32"])  # one warp: __syncwarp is nearly free, a second buffer is not
    assert fwd.detail.warp_sync and bwd.detail.warp_sync and loop_scratch(fwd, bwd) == LoopScratch(2048, 0)
    lanes = by_id["lanes_f32"]  # a shuffle has no barrier to lend: the shared side keeps its own
    shfl = plan_conversion(lanes.src, lanes.dst, lanes.dtype, "sm_90")
    shared = plan_conversion(lanes.dst, lanes.src, lanes.dtype, "sm_90", path="shared")
    assert loop_scratch(shfl, shared) == LoopScratch(shared.detail.scratch_bytes, 0)
    b2b = by_id["b2bT_f16"]  # two 32 KB buffers need 64 KB in one CTA, and room for two such 4-warp CTAs an SM
    for room, two in ((128 * 1024, True), (128 * 1024 - 1, False)):
        tgt = replace(target("sm_90"), smem_per_cta=room)
        pair = [plan_conversion(s, d, b2b.dtype, tgt) for s, d in ((b2b.src, b2b.dst), (b2b.dst, b2b.src))]
        assert loop_scratch(*pair).two_buffers == two
    wide_f32 = next(c for c in wide() if c.id == "b2bT_f32")  # 2 x 64 KB would leave one 4-warp CTA an SM: one buffer
    assert loop_scratch(*_pair(wide_f32)) == LoopScratch(65536, 0)


def test_two_scratch_buffers_leave_one_barrier_per_conversion_in_the_loop():
    """b2bT_f16's LOOP kernel has 2 BAR per round trip (4 with one buffer); the STREAM kernel, one buffer, keeps 4."""
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, disassemble

    case = next(c for c in core() if c.id == "b2bT_f16")
    try:
        sass = disassemble(compile_cuda(emit_bench(*_pair(case), "b", bench_shape(*_pair(case))), "sm_90"))
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    bars = {k: sum(n for op, n in sass[f"b_{k}"].opcodes.items() if op.startswith("BAR")) for k in ("loop", "stream")}
    assert bars == {"loop": 2, "stream": 4}


def test_pipe_counters_are_measured_for_close_cases_only_and_land_on_both_sides(monkeypatch):
    """measure_pipes asks ncu about the LOOP kernels of cases where llgen is not clearly ahead (Triton / llgen under
    PIPE_TIE), launched by loop_launches in a worker: llgen's <case>_loop, then Triton's loop_kernel."""
    from llgen.runtime import ncu

    made = _report({}, monkeypatch)
    seen = []

    def fake(call, kernels, _timeout, _log_dir):
        seen.append((call.split()[0], kernels))
        return {
            "kernels": {"t16x32_loop": [{ncu.PIPE_BUSY: 99.2}], "loop_kernel": [{ncu.PIPE_BUSY: 98.7}]},
            "rc": 0,
            "timed_out": False,
            "seconds": 1.0,
            "out": "",
        }

    monkeypatch.setattr(ncu, "pipe_busy", fake)
    counters.measure_pipes(core()[:1], "sm_90", made, log=lambda _: None)
    assert seen == []  # 19.5 / 16.0: llgen is clearly ahead
    made["cases"][0]["variants"]["llgen"]["loop_per_sm_ns"] = 19.4
    counters.measure_pipes(core()[:1], "sm_90", made, log=lambda _: None)
    assert seen == [("llgen.runtime.bench.counters:loop_launches", "regex:_loop$|^loop_kernel$")]
    v = made["cases"][0]["variants"]
    assert v["llgen"]["pipe"]["busy_pct"] == 99.2 and v["triton"]["pipe"]["busy_pct"] == 98.7


@pytest.mark.parametrize("path,groups,two_buffers", [("shuffle", 8, False), ("shared", 1, True)])
def test_the_bench_shape_follows_the_plans_barrier_on_hip(path, groups, two_buffers):
    """A one-warp wave64 conversion (gfx942): by shuffles it has no barrier, so eight share a STREAM CTA; through
    shared memory it takes __syncthreads, so its STREAM CTA is its own and LOOP gives each direction a buffer. Both
    compute what NumPy says on CPU threads."""
    import numpy as np

    from llgen.emit import emit_bench
    from llgen.layouts import blocked
    from llgen.plan import plan_conversion
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime import host

    a, b = blocked([1, 4], [4, 16], [1, 1], [1, 0], (16, 64)), blocked([4, 1], [16, 4], [1, 1], [0, 1], (16, 64))
    fwd, bwd = (plan_conversion(s, d, "f32", "gfx942", path=path) for s, d in ((a, b), (b, a)))
    shape = bench_shape(fwd, bwd)
    assert (shape.groups, shape.loop.two_buffers) == (groups, two_buffers)
    mod = host.compile(emit_bench(fwd, bwd, "b", bench_shape(fwd, bwd)), "gfx942")
    x = np.random.default_rng(5).integers(0, 1 << 32, 3 * 1024, dtype=np.uint32)
    for kernel in ("b_stream", "b_copy"):
        out = np.zeros_like(x)
        smem = shape.stream_smem if kernel == "b_stream" else 0
        mod.launch(kernel, 1, 64 * shape.groups, (x, out, 3, np.uint32(7)), smem=smem)
        assert (out == x + np.uint32(7)).all(), kernel


def test_one_cta_slope_spans_many_round_trips(monkeypatch):
    """A lone CTA's LOOP is timed over KS_ONE_CTA, the rest over KS: a timer step of 0.5 us moved a one-CTA slope over
    64 round trips by 4 ns a conversion, over 1024 by a quarter of a nanosecond."""
    from llgen.runtime.bench.rules import KS, KS_ONE_CTA

    def median_ms(fn, _rep):
        return fn()

    monkeypatch.setattr(timing, "median_ms", median_ms)
    seen = []

    def run(k, _grid):
        seen.append(k)
        step = 0.0005  # ms: what the event timer resolves
        return round((0.003 + k * 2 * 251.7e-6) / step) * step  # 3 us to launch, 251.7 ns a conversion

    assert abs(timing.per_sm_ns(run, 132, 132, 1) - 251.7) < 0.25
    assert seen == list(KS_ONE_CTA)  # 0.52 ms at the lower K: long enough
    seen.clear()
    timing.per_sm_ns(run, 132 * 32, 132, 1)
    assert seen == [KS[0], 16 * KS[0], 16 * KS[1]]  # 0.035 ms at K = 64: 16 times as many steps reach 0.5 ms


def test_short_launches_are_lengthened_before_the_slope(monkeypatch):
    """Both K double until the launch at the lower one runs MIN_LAUNCH_MS: the mixed suite's launches of 30-100 us
    measured their slope 1.4-1.5x short (session 26). A loop that folds to nothing stops at MAX_K_SCALE."""
    from llgen.runtime.bench.rules import MAX_K_SCALE, MIN_LAUNCH_MS

    assert timing.long_launch_scale(MIN_LAUNCH_MS) == 1
    assert timing.long_launch_scale(MIN_LAUNCH_MS / 3) == 4
    assert timing.long_launch_scale(0.0) == MAX_K_SCALE
    monkeypatch.setattr(timing, "median_ms", lambda fn, _rep: fn())
    seen = []

    def run(k, _grid):
        seen.append(k)
        return 0.002 + k * 1e-4  # 2 us to launch, 0.1 us a step: 8.4 us at 64 steps

    assert abs(timing.per_sm_ns(run, 132 * 4, 132, 1, per_k=1) - 0.1e3 * 132 / (132 * 4)) < 1e-6
    assert seen == [64, 64 * 64, 128 * 64]  # 8.4 us x 64 >= 0.5 ms


def test_a_wrong_result_makes_bench_exit_non_zero(tmp_path, monkeypatch):
    """A wrong LOOP or STREAM kernel of llgen's is a failed run, not only a line under Flags: `llgen bench` and
    `llgen bench merge` name it and exit 1 (Triton's own rows only flag)."""
    import json

    made = _report({}, monkeypatch)
    made["cases"][0]["variants"]["triton"]["loop_correct"] = False
    assert report.wrong_results(made) == []
    made["cases"][0]["variants"]["shared"] = dict(made["cases"][0]["variants"]["llgen"], stream_correct=False)
    made["gather"] = [{"id": "g", "pattern": "rows", "variants": {"llgen": {"loop_correct": False}}}]
    assert report.wrong_results(made) == ["t16x32 / shared", "gather g (rows) / llgen"]
    made["gather"] = []
    part = tmp_path / "part.json"
    part.write_text(json.dumps(made))
    r = CliRunner().invoke(main, ["bench", "merge", "-o", str(tmp_path / "out"), str(part)])
    assert r.exit_code == 1 and "1 kernel(s) gave wrong results: t16x32 / shared" in r.output, r.output
    del made["cases"][0]["variants"]["shared"]
    part.write_text(json.dumps(made))
    r = CliRunner().invoke(main, ["bench", "merge", "-o", str(tmp_path / "out"), str(part)])
    assert r.exit_code == 0, r.output


def test_the_loops_sixteen_bit_integer_add_is_one_instruction_a_word_as_tritons():
    """bf16's and i16's `+ 1` between a round trip's conversions is Triton's int16 add on the raw bits: one
    VIADD.16x2 a word on sm_90 (__vadd2), not the three-op SWAR add that kept wl1_swap5_bf16's LOOP step at 773
    instructions against Triton's 539 (515 with it); the host shim's __vadd2 runs the same sums on CPU threads."""
    from llgen.cases.suite import warplocal
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.runtime.toolchain import compile_cuda, disassemble

    case = next(c for c in warplocal() if c.id == "wl1_swap5_bf16")
    v = variants(case, "sm_90", baselines=False)[0]
    sass = disassemble(compile_cuda(emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd)), "sm_90"))
    loop = next(s for name, s in sass.items() if name.endswith("loop")).loop()
    assert loop["VIADD.16x2"] == v.fwd.n_out // 2 and not loop["LOP3.LUT"]


def test_the_mixed_suite_times_its_loops_over_long_launches(monkeypatch):
    """The mixed suite's LOOP (CTAS_PER_SM CTAs an SM) is timed over KS_MIXED: its launches over 64 and 128 steps ran
    30-300 us and measured a slope 1.4-1.5x short of Nsight Compute's cycles (session 26). Every throughput slope the
    mixed bench takes goes through KS_MIXED, and a lone CTA's still through KS_ONE_CTA."""
    import inspect

    from llgen.runtime.bench import mixed
    from llgen.runtime.bench.rules import KS_MIXED, KS_ONE_CTA

    monkeypatch.setattr(timing, "median_ms", lambda fn, _rep: fn())
    seen = []

    def run(k, _grid):
        seen.append(k)
        return k * 1e-3

    timing.per_sm_ns(run, 132 * 4, 132, 1, per_k=1, ks=KS_MIXED)
    assert seen == list(KS_MIXED) and KS_MIXED[0] >= 512  # 0.512 ms at the lower K: long enough
    seen.clear()
    timing.per_sm_ns(run, 132, 132, 1, per_k=1, ks=KS_MIXED)
    assert seen == list(KS_ONE_CTA)
    src = inspect.getsource(mixed.run_case)
    throughput = [line for line in src.splitlines() if "per_sm_ns(" in line and "grid_max, sms" in line]
    assert len(throughput) == 2 and all("ks=KS_MIXED" in line for line in throughput)
