"""llgen.runtime: references, poisoning, bitwise comparison, the clear errors without a GPU runtime, the
check logic end to end on a CPU stand-in (the simulator plays the GPU), reports, random layouts, and the
gpu-check script's parsers. Tests marked `gpu` run the real checks and skip where CuPy has no GPU."""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import json
import re
import subprocess
import sys
import types

import numpy as np
import pytest
from click.testing import CliRunner

from llgen.cases.suite import core
from llgen.cli import main
from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.plan.variants import CHECKED
from llgen.randlayout import random_cases, random_layout, random_plans
from llgen.runtime import Batching, CheckRuns, RuntimeUnavailable, check, check_many, ncu
from llgen.runtime.cases import gather_plans, random_jobs, suite_jobs
from llgen.runtime.compile import compile as compile_source
from llgen.runtime.compile import device
from llgen.runtime.gpucheck_sanitizer import parse_sanitizer
from llgen.runtime.gpucheck_settings import Settings
from llgen.runtime.gpucheck_state import State
from llgen.runtime.reference import (
    bits,
    expected_output,
    expected_slots,
    first_bad_slot,
    mismatches,
    poison_value,
    poisoned,
    random_input,
    raw_dtype,
    slot_ids,
)
from llgen.runtime.report import ReportHead, counts, markdown, write_report
from llgen.verify.simulate import simulate

RAWS = [np.uint8, np.uint16, np.uint32, np.uint64]


@functools.cache
def _suite_plans(suites=("core",)) -> tuple:
    """The suites' distinct plans, planned once for the module (collection and several tests read them)."""
    jobs = [j for name in suites for j in suite_jobs(name, "sm_90")[0]]
    return tuple(j for j in jobs if j.same_as is None)


# ------------------------------------------------------------------------------------ a CPU "GPU"
class SimModule:
    """Stands in for a compiled module: the debug and tile kernels run through llgen.verify.simulate, so check()'s whole
    path (poisoning, launches, downloads, comparisons, first bad slot) is exercised without a GPU."""

    lang = "sim"

    def __init__(self, plans: dict, corrupt=None):
        self.plans, self.corrupt, self.launches = plans, corrupt, []
        self._ids = {}

    def _slot_elems(self, name):
        if name not in self._ids:
            plan = self.plans[name]
            self._ids[name] = simulate(plan).out.reshape(-1)  # element id per slot, -1 if never written
        return self._ids[name]

    def to_device(self, host):
        return np.array(host, copy=True)

    def filled(self, n, dtype, value):
        return np.full(n, value, dtype=dtype)

    def to_host(self, dev):
        return np.array(dev, copy=True)

    def synchronize(self):
        pass

    def launch(self, kernel, grid, block, args, **_):  # smem= (keyword) is the real modules' dynamic shared memory
        name, kind = kernel.rsplit("_", 1)
        plan = self.plans[name]
        self.launches.append((kernel, grid, block))
        assert block == plan.warps * plan.lanes
        ids = self._slot_elems(name)
        written = ids >= 0
        if kind == "debug":
            x, slots = args
            slots[written] = x[ids[written]]
            if self.corrupt:
                self.corrupt(slots)
        else:
            xs, out, num_tiles = args
            tile = 1 << plan.src.total_out_bits
            xs2, out2 = xs.reshape(num_tiles, tile), out.reshape(num_tiles, tile)
            dst = slot_ids(plan)
            out2[:, dst[written]] = xs2[:, ids[written]]


def sim_compiler(plans_by_name: dict, fail: set = frozenset()):
    """A compile() stand-in: finds the kernels in the source and serves them from the simulator."""
    from llgen.runtime.compile import CompileFailed

    def compile_(source, _target):
        names = re.findall(r"void __launch_bounds__\([\d, ]+\) (\w+)_debug\(", source)
        if any(n in fail for n in names):
            raise CompileFailed(f"error: cannot compile {sorted(set(names) & fail)}")
        return SimModule({n: plans_by_name[n] for n in names})

    return compile_


# ------------------------------------------------------------------------------------ references
@pytest.mark.parametrize("raw", RAWS)
def test_random_input_is_never_zero_nor_poison_and_fresh(raw):
    rng = np.random.default_rng(0)
    a, b = random_input(raw, 1 << 16, rng), random_input(raw, 1 << 16, rng)
    assert a.dtype == raw and (a != 0).all() and (a != poison_value(raw)).all()
    assert (a != b).any()
    p = poisoned(raw, 7)
    assert p.dtype == raw and (p == np.iinfo(raw).max).all()


def test_raw_dtypes_follow_widths():
    for name, raw in (
        ("f8e4m3", np.uint8),
        ("f8e5m2", np.uint8),
        ("i8", np.uint8),
        ("bf16", np.uint16),
        ("f16", np.uint16),
        ("f32", np.uint32),
        ("f64", np.uint64),
        ("i64", np.uint64),
    ):
        assert raw_dtype(name) == np.dtype(raw)


def test_bitwise_compare_sees_nan_payloads_and_signed_zeros():
    # 8-bit floats travel as their uint8 codes: e4m3 NaN 0x7f equals itself; -0 (0x80) is not +0 (0x00)
    e = np.array([0x7F, 0x80, 0xFF, 0x01], dtype=np.uint8)
    g = np.array([0x7F, 0x00, 0xFF, 0x01], dtype=np.uint8)
    assert mismatches(e, g).tolist() == [1]
    # the same with real floats: a float comparison would call NaN != NaN and -0 == +0; the bits say otherwise
    h = np.array([np.nan, -0.0, 1.0], dtype=np.float16)
    k = np.array([np.nan, 0.0, 1.0], dtype=np.float16)
    assert mismatches(h, k).tolist() == [1]
    assert bits(h).dtype == np.uint16
    nan1 = np.array([0x7E01], dtype=np.uint16).view(np.float16)
    nan2 = np.array([0x7E02], dtype=np.uint16).view(np.float16)
    assert mismatches(nan1, nan2).tolist() == [0]  # different NaN payloads differ
    with pytest.raises(ValueError):
        mismatches(np.zeros(2, np.uint8), np.zeros(2, np.uint16))


@pytest.mark.parametrize("job", _suite_plans(), ids=lambda j: j.label)
def test_expected_slots_agree_with_the_simulator(job):
    plan = job.plan
    x = random_input(raw_dtype(plan.dtype), 1 << plan.src.total_out_bits, np.random.default_rng(1))
    sim = simulate(plan, x.astype(np.int64))
    assert (expected_slots(plan, x) == sim.expected.reshape(-1)).all()
    out = expected_output(plan, np.tile(x, 3), 3)
    assert (out == np.tile(x, 3)).all()  # B is surjective: every element written with its own value


def test_first_bad_slot_names_warp_lane_register_and_element():
    case = next(c for c in core() if c.id == "b2mma_f32")
    plan = plan_conversion(case.src, case.dst, case.dtype, "sm_90")
    x = random_input(np.uint32, 1 << plan.src.total_out_bits, np.random.default_rng(2))
    exp = expected_slots(plan, x)
    got = exp.copy()
    i = (2 * plan.lanes + 5) * plan.n_out + 3  # warp 2, lane 5, register 3
    got[i] = poison_value(np.uint32)
    bad = first_bad_slot(plan, exp, got)
    assert (bad.warp, bad.lane, bad.register) == (2, 5, 3)
    assert bad.expected == int(exp[i]) and bad.got == 0xFFFFFFFF
    assert bad.element == int(slot_ids(plan)[i])
    r, c = bad.coords
    assert r * plan.src.shape[1] + c == bad.element
    assert "never written" in str(bad) and "warp 2, lane 5, register 3" in str(bad)


# ------------------------------------------------------------------------------------ errors without a runtime
def test_no_cupy_is_one_clear_sentence(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError, installed or not
    with pytest.raises(RuntimeUnavailable, match=r"^CuPy is not installed .*install llgen\[cuda\]"):
        compile_source('extern "C" __global__ void k() {}', "sm_90")
    with pytest.raises(RuntimeUnavailable, match="CuPy is not installed"):
        device("sm_90")


def test_cupy_without_gpu_is_one_clear_sentence(monkeypatch):
    fake = types.ModuleType("cupy")
    fake.is_available = lambda: False
    monkeypatch.setitem(sys.modules, "cupy", fake)
    with pytest.raises(RuntimeUnavailable, match=r"no CUDA GPU is available \(cupy.is_available\(\) is false\)"):
        compile_source("", "sm_90")


def test_no_hip_python_is_no_rocm_runtime(monkeypatch):
    monkeypatch.setitem(sys.modules, "hip", None)
    with pytest.raises(RuntimeUnavailable, match="^no ROCm runtime found: hip-python could not be loaded"):
        compile_source("", "gfx942")
    with pytest.raises(RuntimeUnavailable, match="^no ROCm runtime found"):
        device("gfx90a")


class _BrokenHipFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """hip-python installed but its ROCm libraries missing: importing it raises what dlopen raises."""

    def __init__(self, exc):
        self.exc = exc

    def find_spec(self, name, _path=None, _target=None):
        if name == "hip" or name.startswith("hip."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, _spec):
        return None

    def exec_module(self, _module):
        raise self.exc


@pytest.mark.parametrize(
    "exc",
    [
        OSError("libamdhip64.so: cannot open shared object file: No such file or directory"),
        ImportError("libhiprtc.so.6: cannot open shared object file"),
        RuntimeError("HIP runtime could not be loaded"),
    ],
)
def test_hip_python_without_rocm_libraries_is_no_rocm_runtime(monkeypatch, exc):
    for m in [m for m in sys.modules if m == "hip" or m.startswith("hip.")]:
        monkeypatch.delitem(sys.modules, m)
    finder = _BrokenHipFinder(exc)
    monkeypatch.setattr(sys, "meta_path", [finder] + sys.meta_path)
    with pytest.raises(RuntimeUnavailable, match="^no ROCm runtime found: hip-python could not be loaded") as ei:
        compile_source("", "gfx942")
    assert "\n" not in str(ei.value)


def test_hip_runtime_failing_at_first_call_is_no_rocm_runtime(monkeypatch):
    pkg = types.ModuleType("hip")
    hip = types.ModuleType("hip.hip")

    def count():
        raise OSError("libamdhip64.so: cannot open shared object file")

    hip.hipGetDeviceCount = count
    pkg.hip, pkg.hiprtc = hip, types.ModuleType("hip.hiprtc")
    monkeypatch.setitem(sys.modules, "hip", pkg)
    with pytest.raises(RuntimeUnavailable, match="^no ROCm runtime found: the HIP runtime library could not be loaded"):
        compile_source("", "gfx942")


def test_llgen_check_without_runtime_exits_2_with_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setitem(sys.modules, "hip", None)
    runner = CliRunner()
    r = runner.invoke(main, ["check", "--suite", "core"])
    assert r.exit_code == 2, r.output
    assert r.output.strip().startswith("error: CuPy is not installed") and len(r.output.strip().splitlines()) == 1
    r = runner.invoke(main, ["check", "--random", "3", "--target", "gfx942"])
    assert r.exit_code == 2 and "error: no ROCm runtime found" in r.output


def test_cli_start_up_imports_neither_numpy_nor_the_runtime():
    code = "import sys, llgen.cli; print('numpy' in sys.modules, 'llgen.runtime' in sys.modules, 'cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "False"]


# ------------------------------------------------------------------------------------ check() on the simulator
@pytest.mark.parametrize("job", _suite_plans(), ids=lambda j: j.label)
def test_check_passes_every_suite_kernel_on_the_simulator(job):
    mod = SimModule({job.name: job.plan})
    res = check(job.plan, how=CheckRuns(tiles=5, runs=2), name=job.name, label=job.label, module=mod, sms=1)
    assert res.ok, res.to_json()
    assert res.runs == 2 and res.slots == job.plan.warps * job.plan.lanes * job.plan.n_out
    assert res.tiles == 5 and res.grid == 2 and res.elems == 5 << job.plan.src.total_out_bits
    assert [k for k, *_ in mod.launches] == [f"{job.name}_debug", f"{job.name}_kernel"] * 2


def test_check_counts_replicas():
    # a random pair with broadcast (zero) columns in B holds some elements in several slots: each replica is compared
    plans = [p for p in random_plans(40, 3, "sm_90") if slot_ids(p).size > np.unique(slot_ids(p)).size]
    assert plans, "some random B layouts broadcast"
    p = plans[0]
    res = check(p, how=CheckRuns(tiles=2), name="k", module=SimModule({"k": p}), sms=1)
    assert res.ok and res.replicas > 0


def test_check_reports_the_first_bad_slot():
    case = next(c for c in core() if c.id == "t16x32")
    plan = plan_conversion(case.src, case.dst, case.dtype, "sm_90")

    def swap(slots):  # warp 0, lane 3: registers 0 and 1 swapped
        i = 3 * plan.n_out
        slots[i], slots[i + 1] = slots[i + 1].copy(), slots[i].copy()

    res = check(plan, how=CheckRuns(tiles=4, seed=11), name="t", module=SimModule({"t": plan}, corrupt=swap), sms=1)
    assert not res.ok and res.slot_bad == 2 and res.tile_bad == 0
    b = res.first_bad
    assert (b.warp, b.lane, b.register) == (0, 3, 0)
    # the same seed, the same input: the report reproduces
    again = check(plan, how=CheckRuns(tiles=4, seed=11), name="t", module=SimModule({"t": plan}, corrupt=swap), sms=1)
    assert again.first_bad == b


def test_check_many_batches_and_isolates_compile_failures():
    items = [(f"r{i}", p) for i, p in enumerate(random_plans(7, 4, "sm_90"))]
    by_name = {label: p for label, p in items}
    seen = []
    res = check_many(
        items,
        how=CheckRuns(tiles=3),
        batching=Batching(3),
        sms=2,
        compiler=sim_compiler(by_name, fail={"r4"}),
        on_result=seen.append,
    )
    assert [r.label for r in res] == [label for label, _ in items] == [r.label for r in seen]
    assert [r.ok for r in res] == [True, True, True, True, False, True, True]
    assert res[4].error.startswith("compile failed") and "r4" in res[4].error
    c = counts(res)
    assert c["kernels"] == 7 and c["failed"] == 1 and c["errors"] == 1 and c["slot_mismatches"] == 0


def test_launch_error_is_a_result_not_a_crash():
    plan = random_plans(1, 5, "sm_90")[0]

    class Crashing(SimModule):
        def launch(self, *_args, **_kwargs):
            raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")

    res = check(plan, how=CheckRuns(tiles=2), name="k", module=Crashing({"k": plan}), sms=1)
    assert not res.ok and "illegal memory access" in res.error


def test_batched_source_compiles_with_nvrtc():
    """check_many concatenates emitted kernels into one source: that must compile as one translation unit."""
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, disassemble

    items = [(j.name, j.plan) for j in _suite_plans()[:6]] + [(f"r{i}", p) for i, p in enumerate(random_plans(6, 9, "sm_90"))]
    src = "\n".join(emit(p, "kernel", n) for n, p in items)
    try:
        cubin = compile_cuda(src, "sm_90")
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    kernels = disassemble(cubin)
    for n, _ in items:
        assert kernels[f"{n}_debug"] is not None and kernels[f"{n}_kernel"] is not None


# ------------------------------------------------------------------------------------ cases, random layouts
def test_suite_jobs_cover_every_variant_and_drop_repeats():
    jobs, skipped = suite_jobs("core", "sm_90")
    cases = {c.id for c in core()}
    assert {j.case for j in jobs} == cases
    for j in jobs:
        assert j.variant in dict(CHECKED)
        if "path" in dict(CHECKED)[j.variant]:  # the pick and free pairing choose their own
            assert j.plan.path == dict(CHECKED)[j.variant]["path"]
    labels = [j.label for j in jobs]
    assert len(labels) == len(set(labels))
    for j in jobs:
        if j.same_as:
            first = next(k for k in jobs if k.label == j.same_as)
            assert first.plan.detail == j.plan.detail
    assert all("shuffle" in s for s in skipped)
    assert len({j.name for j in jobs}) == len(jobs)
    assert all(re.fullmatch(r"[A-Za-z_]\w*", j.name) for j in jobs)


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_random_cases_are_deterministic_valid_and_named(target):
    a, b = random_cases(30, 12, target), random_cases(30, 12, target)
    assert [lab for lab, _ in a] == [lab for lab, _ in b]
    assert [p.detail for _, p in a] == [p.detail for _, p in b]
    assert len({lab for lab, _ in a}) == 30
    for _, p in a:
        assert p.lanes == (32 if target == "sm_90" else 64)
        assert p.src.is_surjective() and p.dst.is_surjective()
    assert {p.path for _, p in random_cases(60, 1, target)} >= {"shared", "shuffle"}
    assert len(random_jobs(5, 2, target)) == 5


def test_random_layout_is_a_distributed_layout_of_the_shape():
    import random

    rng = random.Random(0)
    lay = random_layout(rng, (16, 16), 4, "sm_90", family="linear")
    assert lay.in_size("lane") == 32 and lay.in_size("warp") == 4 and lay.shape == (16, 16)
    assert lay.is_distributed()


# ------------------------------------------------------------------------------------ reports
def _results():
    items = [(f"k{i}", p) for i, p in enumerate(random_plans(3, 6, "sm_90"))]
    res = check_many(items, how=CheckRuns(tiles=2), sms=1, compiler=sim_compiler(dict(items)))
    return res


def test_report_writer(tmp_path):
    res = _results()
    res[1].slot_bad, res[1].first_bad = 1, None
    dev = {"name": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "sms": 132, "driver": "580.00", "runtime": "CUDA 13.0"}
    md, js = write_report(
        tmp_path / "rep",
        head=ReportHead("t", dev, "2026-11-22 00:00:00 UTC"),
        results=res,
        sections=[("Extra", "hello")],
        extra={"seed": 3},
    )
    assert md.name == "rep.md" and js.name == "rep.json"
    data = json.loads(js.read_text())
    assert data["device"]["name"].startswith("NVIDIA H100") and data["device"]["driver"] == "580.00"
    assert data["date"] == "2026-11-22 00:00:00 UTC" and data["seed"] == 3
    assert data["counts"]["kernels"] == 3 and data["counts"]["slot_mismatches"] == 1 and data["counts"]["failed"] == 1
    assert len(data["results"]) == 3 and data["results"][0]["ok"] is True
    text = md.read_text()
    assert "NVIDIA H100" in text and "driver 580.00" in text and "## Extra" in text and "MISMATCH" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep.json", "rep.md"]  # no temporary files left
    assert "3 kernels, 1 slot mismatches" in markdown("t", dev, "now", res)


# ------------------------------------------------------------------------------------ llgen gpu-check
def test_gpu_check_parses_sanitizer_summaries():
    mem = "========= COMPUTE-SANITIZER\nworker: a ok\n========= ERROR SUMMARY: 0 errors\n"
    assert parse_sanitizer(mem)["errors"] == 0
    race = "========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)\n"
    r = parse_sanitizer(race)
    assert r["hazard_errors"] == 1 and r["hazard_warnings"] == 2
    assert parse_sanitizer("nothing")["errors"] is None
    assert parse_sanitizer("========= ERROR SUMMARY: 1,204 errors")["errors"] == 1204


def test_ncu_csv_is_parsed():
    text = "\n".join(
        [
            "==PROF== Connected to process 123",
            "worker: t16x32_default_debug",
            (
                '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC",'
                f'"{ncu.WF_LD}","{ncu.WF_ST}","{ncu.INST_LD}","{ncu.INST_ST}"'
            ),
            '"","","","","","","","","","","","","","",""',
            '"0","123","python3","host","t16x32_default_debug","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","16","16","16","16"',
            '"1","123","python3","host","b2mma_f32_default_debug","1","7","(128, 1, 1)","(1, 1, 1)","0","9.0","1,024","512","256","128"',
        ]
    )
    text += '\n"2","123","python3","host","t16x32_default_debug","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","17","16","16","16"'
    m = ncu.parse_ncu_csv(text)
    assert set(m) == {"t16x32_default_debug", "b2mma_f32_default_debug"}
    assert m["b2mma_f32_default_debug"][0][ncu.WF_LD] == 1024.0
    assert [x[ncu.WF_LD] for x in m["t16x32_default_debug"]] == [16.0, 17.0]  # two launches, in order
    assert m["t16x32_default_debug"][0][ncu.INST_ST] == 16.0


def test_a_kernel_over_the_prediction_is_measured_again_with_its_slot_stores_fenced(monkeypatch, tmp_path):
    """measure(): a debug kernel that counted more wavefronts than predicted runs again with a barrier before its slot
    stores; exactly the prediction then is FENCED_MATCH (the excess was traffic beside the conversion, design §7.5),
    over it still stays MISMATCH; a kernel that matched, or counted fewer, is not run again."""
    plans = [(j.label.replace("/", "_"), j.plan) for j in _suite_plans() if j.plan.path == "shared"][:4]
    (a, pa), (b, pb), (c, pc), (d, pd) = plans

    def counts(p, extra=0):
        pred = ncu.prediction(p)
        return {ncu.WF_ST: pred["pred_st_wf"], ncu.WF_LD: pred["pred_ld_wf"] + extra}

    calls = []

    def fake(worker_args, kernels, *_):
        calls.append((worker_args, kernels))
        res = {"metrics": [], "rc": 0, "timed_out": False, "seconds": 0.0, "out": ""}
        if len(worker_args) == 2:  # as emitted: a and c over, b exact, d under
            got = {a: counts(pa, 30), b: counts(pb), c: counts(pc, 7), d: counts(pd, -2)}
            return res, {f"{n}_debug": [m, m] for n, m in got.items()}
        got = {a: counts(pa), c: counts(pc, 3)}  # fenced: a exact, c still over
        return res, {f"{n}_fenced_debug": [m, m] for n, m in got.items()}

    monkeypatch.setattr(ncu, "_counters", fake)
    rows = ncu.measure(plans, "m:f", 10, tmp_path, log=lambda *_: None)["rows"]
    assert calls[1] == (["sm_90", "m:f", f"{a},{c}"], "regex:_fenced_debug$")
    assert [rows[n]["verdict"] for n in (a, b, c, d)] == [ncu.FENCED_MATCH, "match", "MISMATCH", "MISMATCH"]
    assert rows[a]["ld_wf"] == ncu.prediction(pa)["pred_ld_wf"] + 30 and "barrier" in rows[a]["note"]
    assert rows[c]["fenced_launches"][0][1] == ncu.prediction(pc)["pred_ld_wf"] + 3


def test_the_fence_keeps_a_large_tiles_slot_stores_after_its_shared_loads():
    """wgmma2b_128x256_f32 at 32 KB (4 rounds): as emitted, ptxas stores finished slots (STG) before the last
    round's shared loads; with fence_slot_stores no STG comes before the last LDS (SASS on sm_90)."""
    from llgen.cases.suite import wide
    from llgen.emit import emit
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, disassemble

    c = next(x for x in wide() if x.id == "wgmma2b_128x256_f32")
    p = plan_conversion(c.src, c.dst, c.dtype, "sm_90", smem_budget=32 * 1024)
    source = emit(p, "kernel", "k") + ncu.fence_slot_stores(emit(p, "kernel", "f"), "f")
    try:
        kernels = disassemble(compile_cuda(source, "sm_90"))
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    sass = {n: kernels[f"{n}_debug"].text for n in ("k", "f")}
    ops = {n: re.findall(r"\b(STG|LDS)\b", text) for n, text in sass.items()}
    last_lds = {n: max(i for i, op in enumerate(o) if op == "LDS") for n, o in ops.items()}
    assert "STG" in ops["k"][: last_lds["k"]]
    assert "STG" not in ops["f"][: last_lds["f"]]


def test_ncu_counters_are_compared_with_the_prediction():
    job = next(j for j in _suite_plans() if j.label == "t16x32/llgen")
    pred = ncu.prediction(job.plan)
    assert pred["pred_st_wf"] == job.plan.detail.predicted_store_wavefronts
    meas = {ncu.WF_ST: pred["pred_st_wf"], ncu.WF_LD: pred["pred_ld_wf"], ncu.INST_ST: 1, ncu.INST_LD: 1}
    assert ncu.compare_wavefronts(pred, meas)["verdict"] == "match"
    meas[ncu.WF_LD] += 1
    assert ncu.compare_wavefronts(pred, meas)["verdict"] == "MISMATCH"
    assert ncu.compare_wavefronts(pred, {})["verdict"] == "not measured"
    exact = {ncu.WF_ST: pred["pred_st_wf"], ncu.WF_LD: pred["pred_ld_wf"]}
    off = {ncu.WF_ST: pred["pred_st_wf"], ncu.WF_LD: pred["pred_ld_wf"] + 1}
    assert ncu.compare_launches(pred, [exact, exact])["verdict"] == "match"
    row = ncu.compare_launches(pred, [off, exact])
    assert row["verdict"] == "unstable" and row["ld_wf"] == pred["pred_ld_wf"] + 1 and "launches (st, ld)" in row["note"]
    assert ncu.compare_launches(pred, [off, off])["verdict"] == "MISMATCH"
    assert ncu.compare_launches(pred, [])["verdict"] == "not measured"
    assert ncu.choose_metrics(None) == ncu.CORE_METRICS
    known = {m.rsplit(".", 1)[0] for m in ncu.CORE_METRICS} | {"smsp__inst_executed_op_ldsm"}
    assert ncu.choose_metrics(known) == ncu.CORE_METRICS + ["smsp__inst_executed_op_ldsm.sum"]


def test_gpu_check_without_a_gpu_exits_2_and_writes_nothing(monkeypatch, tmp_path):
    """No CuPy: one line, exit status 2, and no report or log folder, neither the default one nor bench/'s."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.chdir(tmp_path)
    for args in ([], ["-o", "bench/gpu-check"]):
        r = CliRunner().invoke(main, ["gpu-check", *args])
        assert r.exit_code == 2, r.output
        assert r.output.startswith("error: CuPy is not installed") and len(r.output.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_gpu_check_has_click_help_and_one_line_usage_errors():
    r = CliRunner().invoke(main, ["gpu-check", "--help"], prog_name="llgen")
    assert r.exit_code == 0 and r.output.startswith("Usage: llgen gpu-check [OPTIONS]")
    assert "--sanitize-random INTEGER" in r.output and "llgen-gpu-check/gpu-check" in r.output
    r = subprocess.run(
        [sys.executable, "-m", "llgen.cli", "gpu-check", "--runs", "x"], capture_output=True, text=True, check=False
    )
    assert r.returncode == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1


def test_gpu_check_report_from_a_partial_run(tmp_path, monkeypatch):
    monkeypatch.delenv("OUT", raising=False)
    st = State(Settings(random=3, seed=6, tiles=2, runs=1, budget=60, ncu_random=0, prefix=str(tmp_path / "gc")))
    st.device = {"name": "fake", "arch": "sm_90", "sms": 1, "driver": "0", "runtime": "none"}
    st.random_results = _results()
    job = next(j for j in _suite_plans() if j.plan.path == "shared")
    row = ncu.compare_wavefronts(ncu.prediction(job.plan), {})
    row.update({"kernel": job.label, "group": "suite", "dtype": "f32"})
    st.record["ncu_rows"] = [row]
    st.part("correctness", "PASS", "3 pairs")
    data = json.loads((tmp_path / "gc.json").read_text())
    assert data["parts"]["correctness"]["status"] == "PASS" and data["counts"]["kernels"] == 3
    text = (tmp_path / "gc.md").read_text()
    assert "correctness  PASS" in text and "not measured" in text


def test_tools_run_under_a_timeout():
    r = ncu.run_proc([sys.executable, "-c", "import time; print('x', flush=True); time.sleep(30)"], 1.5)
    assert r["timed_out"] and r["seconds"] < 10 and "x" in r["out"]


# ------------------------------------------------------------------------------------ gpu-check: cut short by the budget
def _cut_state(tmp_path, monkeypatch, **kw):
    monkeypatch.delenv("OUT", raising=False)
    monkeypatch.setattr(State, "save", lambda _self: None)  # no report files: the parts' records are what is checked
    st = State(Settings(**{"random": 5, "runs": 1, "budget": 420, "prefix": str(tmp_path / "gc"), **kw}))
    st.device = {"name": "fake", "arch": "sm_90", "sms": 1, "driver": "0", "runtime": "none"}
    return st


def _fake_result(label, bad=0):
    from llgen.runtime.check import CheckResult

    return CheckResult(label, label, "shared", "f32", "sm_90", 1, (16, 32), slots=512, elems=512, runs=1, tile_bad=bad)


@pytest.mark.parametrize("bad", [0, 1])
def test_correctness_cut_short_by_the_budget_is_not_finished_unless_a_pair_was_wrong(tmp_path, monkeypatch, bad):
    from llgen.runtime import gpucheck

    jobs = [types.SimpleNamespace(label=f"r{i}", plan=None) for i in range(2000)]
    monkeypatch.setattr(gpucheck, "suite_unique", lambda: ([types.SimpleNamespace(label="s0", plan=None)], [], []))
    monkeypatch.setattr(gpucheck, "random_list", lambda n, _seed: jobs[:n])
    monkeypatch.setattr(gpucheck, "run_gathers", lambda **_: [])
    monkeypatch.setattr(gpucheck, "run_bench_kernels", lambda **_: [])

    now = [0.0]
    monkeypatch.setattr(gpucheck, "time", types.SimpleNamespace(monotonic=lambda: now[0]))

    def check_many(items, on_result, **_):  # the part's share of the budget runs out at the 251st random pair
        for i, (label, _plan) in enumerate(items):
            if label == "r250":
                now[0] = 1e9
            on_result(_fake_result(label, bad if i == 3 else 0))

    monkeypatch.setattr(gpucheck, "check_many", check_many)
    st = _cut_state(tmp_path, monkeypatch, random=2000)
    st.share(100, 420)
    gpucheck.part_correctness(st)
    part = st.record["parts"]["correctness"]
    assert len(st.random_results) == 251 and part["stopped"]
    if not bad:
        assert part["status"] == "INCOMPLETE"
        assert part["detail"] == (
            "not finished: 251/2000 random pairs checked in its 100 s share of the budget, all exact; suite 1 kernels, all exact"
        )
    else:  # a wrong element is a failure however far the part got
        assert part["status"] == "FAIL" and "1 element mismatches" in part["detail"]
        assert part["detail"].endswith("(not finished: 251/2000 random pairs checked in its 100 s share of the budget)")


def _killed_ncu(rows, **extra):
    return {"rows": rows, "metrics": ["m"], "rc": -9, "timed_out": True, "seconds": 60.0, "out": "worker: x_debug", **extra}


@pytest.mark.parametrize("measured", ["none", "as predicted", "one off"])
def test_ncu_killed_at_its_share_of_the_budget_is_not_finished(tmp_path, monkeypatch, measured):
    from llgen.runtime import gpucheck

    jobs = [j for j in _suite_plans() if j.plan.path == "shared"][:3]
    monkeypatch.setattr(
        gpucheck,
        "ncu_jobs",
        lambda *_: [types.SimpleNamespace(name=j.label, label=j.label, group="suite", plan=j.plan) for j in jobs],
    )

    def measure(plans, *_a, **_k):
        rows = {}
        for i, (name, plan) in enumerate(plans):
            p = ncu.prediction(plan)
            exact = {ncu.WF_ST: p["pred_st_wf"], ncu.WF_LD: p["pred_ld_wf"] + (measured == "one off")}
            rows[name] = ncu.compare_launches(p, [exact, exact] if measured != "none" and i == 0 else [])
        return _killed_ncu(rows)

    monkeypatch.setattr(gpucheck, "measure", measure)
    st = _cut_state(tmp_path, monkeypatch)
    st.share(60, 420)
    gpucheck.part_ncu(st)
    part = st.record["parts"]["ncu"]
    if measured == "one off":  # a counter that disagrees is a failure, whether or not the rest was measured
        assert part["status"] == "FAIL" and part["detail"].startswith("0/1 measured kernels match")
        return
    assert part["status"] == "INCOMPLETE" and part["timed_out"] and part["rc"] == -9
    n = 0 if measured == "none" else 1
    assert part["detail"] == (
        f"not finished: {n}/3 shared kernels measured before ncu was stopped at its 60 s share of the budget (rc -9), "
        + ("none compared" if measured == "none" else "all as predicted")
    )


def test_endpoint_ncu_killed_at_its_share_of_the_budget_is_not_finished(tmp_path, monkeypatch):
    from llgen.runtime import endpoint_cases, gpucheck
    from llgen.runtime.endpoint_random import random_cases as endpoint_random_cases

    cases = [c for c in endpoint_random_cases(6, 7) if not c.cpu][:2]
    monkeypatch.setattr(endpoint_cases, "ncu_cases", lambda: (cases, []))
    monkeypatch.setattr(
        gpucheck,
        "measure_endpoints",
        lambda items, *_a: _killed_ncu({n: ncu.compare_launches(ncu.endpoint_prediction(p), []) for n, p in items}),
    )
    st = _cut_state(tmp_path, monkeypatch)
    st.share(50, 420)
    gpucheck.part_endpoint_ncu(st)
    part = st.record["parts"]["endpoint-ncu"]
    assert part["status"] == "INCOMPLETE" and "FAIL" not in part["detail"] and "0/132" not in part["detail"]
    assert part["detail"].startswith("not finished: 0/4 endpoint check kernels measured before ncu was stopped at its 50 s")


@pytest.mark.parametrize("found", ["", "========= Invalid __global__ read of size 4 bytes\n=========     at 0x70 in k\n"])
def test_a_sanitizer_killed_at_its_share_of_the_budget_is_not_finished_unless_it_reported_an_error(tmp_path, monkeypatch, found):
    from llgen.runtime import gpucheck_sanitizer as gs

    out = "========= COMPUTE-SANITIZER\nworker: s0 ok\nworker: s1 ok\n" + found + "worker: s2 ok\n"
    monkeypatch.setattr(gs, "tool_path", lambda _name: "/fake/compute-sanitizer")
    monkeypatch.setattr(gs, "run_proc", lambda _cmd, _timeout: {"rc": -9, "out": out, "timed_out": True, "seconds": 40.0})
    st = _cut_state(tmp_path, monkeypatch)
    st.share(40, 420)
    gs.part_sanitizer(st, "memcheck")
    part = st.record["parts"]["memcheck"]
    if found:
        assert part["status"] == "FAIL" and "Invalid __global__ read of size 4 bytes" in part["detail"]
    else:
        assert part["status"] == "INCOMPLETE" and part["detail"] == (
            "not finished: 3 suite, random and endpoint kernels checked, no error reported, before memcheck was stopped "
            "at its 40 s share of the budget (rc -9)"
        )


def test_the_verdict_tells_a_failure_from_a_run_the_budget_cut_short(tmp_path, monkeypatch):
    """main: INCOMPLETE (exit 4) when parts did not finish and nothing was wrong, FAIL (exit 1) once anything was;
    the summary says which parts and how long a run of every part takes; a part started with no time left is not
    finished, not skipped."""
    from llgen.runtime import gpucheck
    from llgen.runtime.gpucheck_settings import full_run_seconds

    monkeypatch.delenv("OUT", raising=False)
    monkeypatch.setattr(gpucheck, "device", lambda _t: types.SimpleNamespace(to_json=lambda: {"name": "fake", "sms": 1}))
    monkeypatch.setattr(gpucheck, "tool_path", lambda _n: None)
    statuses, spent = {}, [True]

    def fake(name):
        def run(st):
            st.part(name, statuses.get(name, "PASS"), "cut" if statuses.get(name) == "INCOMPLETE" else "done")
            if name == "ncu" and spent:
                st.deadline = gpucheck.time.monotonic()  # the budget is spent: the parts after it cannot start

        return run

    for name in ("correctness", "endpoints", "ncu", "endpoint-ncu"):
        monkeypatch.setattr(gpucheck, f"part_{name.replace('-', '_')}", fake(name))
    monkeypatch.setattr(gpucheck, "part_sanitizer", lambda st, tool: fake(tool)(st))
    settings = Settings(budget=420, prefix=str(tmp_path / "gc"))
    statuses.update({"correctness": "INCOMPLETE"})
    assert gpucheck.main(settings) == 4
    data = json.loads((tmp_path / "gc.json").read_text())
    assert data["verdict"] == "INCOMPLETE"
    late = ("endpoint-ncu", "memcheck", "synccheck", "racecheck")
    assert [data["parts"][t]["status"] for t in late] == ["INCOMPLETE"] * 4
    assert (
        data["parts"]["memcheck"]["detail"].startswith("not finished: not started") and "seconds" not in data["parts"]["memcheck"]
    )
    text = (tmp_path / "gc.md").read_text()
    need = full_run_seconds(settings)
    assert (
        "verdict: INCOMPLETE - nothing wrong found, but correctness, endpoint-ncu, memcheck, synccheck, racecheck did not finish in "
        f"--budget 420 s: every part at these counts needs about {need} s here" in text
    )
    assert "FAIL" not in text
    statuses.update({"endpoints": "FAIL"})
    assert gpucheck.main(settings) == 1
    text = (tmp_path / "gc.md").read_text()
    assert "verdict: FAIL - endpoints found something wrong (or crashed); correctness, endpoint-ncu, memcheck" in text
    statuses.clear()
    spent.clear()  # the budget lasts
    assert gpucheck.main(settings) == 0 and "verdict: PASS - every part that ran finished" in (tmp_path / "gc.md").read_text()


def test_the_time_a_full_run_needs_is_read_from_how_far_this_run_got(tmp_path, monkeypatch):
    """The correctness part stopped at 250 of 2000 random pairs after a 100 s suite and 50 s of pairs needs 500 s;
    finished parts count what they took; a part never started counts its expected time."""
    from llgen.runtime.gpucheck_report import needed_seconds
    from llgen.runtime.gpucheck_settings import expected_seconds

    st = _cut_state(tmp_path, monkeypatch, random=2000, skip=frozenset({"ncu", "endpoints", "synccheck", "racecheck"}))
    st.record["parts"] = {
        "correctness": {"status": "INCOMPLETE", "seconds": 150.0, "suite_s": 100.0, "random_done": 250, "random_total": 2000},
        "memcheck": {"status": "PASS", "seconds": 40.0},
    }
    # endpoint-ncu goes with --skip endpoints
    assert needed_seconds(st) == int(-(-(1.05 * (500 + 40) + 10) // 10) * 10) == 580
    st.record["parts"]["memcheck"] = {"status": "INCOMPLETE", "detail": "not finished: not started"}
    want = 1.05 * (500 + expected_seconds(st.args)["memcheck"]) + 10
    assert needed_seconds(st) == int(-(-want // 10) * 10)


def test_each_part_gets_what_it_needs_when_the_budget_holds_every_part():
    """The default budget (llgen gpu-check's and Settings') covers every part at the default counts."""
    from llgen.runtime.gpucheck_settings import DEFAULT_BUDGET, PARTS, expected_seconds, full_run_seconds

    s = Settings()
    need = expected_seconds(s)
    assert set(need) == set(PARTS) and sum(need.values()) <= full_run_seconds(s) <= DEFAULT_BUDGET == s.budget
    assert next(p for p in main.commands["gpu-check"].params if p.name == "budget").default == DEFAULT_BUDGET
    st = State(Settings(budget=full_run_seconds(s), prefix="/tmp/llgen-test-unused"))
    st.share(need["correctness"], sum(need.values()))
    assert st.slot >= need["correctness"]
    st = State(Settings(budget=sum(need.values()) / 2, prefix="/tmp/llgen-test-unused"))
    st.share(need["correctness"], sum(need.values()))
    assert abs(st.slot - need["correctness"] / 2) < 1  # half the time: half of what it needs, as every part


# ------------------------------------------------------------------------------------ on a GPU
def _gpu():
    try:
        import cupy
    except ImportError:
        pytest.skip("CuPy is not installed")
    try:
        if not cupy.is_available():
            pytest.skip("cupy.is_available() is false")
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"CuPy cannot reach a GPU: {e}")


@pytest.mark.gpu
def test_gpu_every_suite_kernel_by_every_path():
    _gpu()
    jobs = _suite_plans()
    res = check_many([(j.label, j.plan) for j in jobs], how=CheckRuns(tiles=64, runs=2))
    bad = [(r.label, r.error, str(r.first_bad)) for r in res if not r.ok]
    assert not bad, bad


@pytest.mark.gpu
def test_gpu_random_pairs():
    _gpu()
    res = check_many([(j.label, j.plan) for j in random_jobs(60, 21, "sm_90")], how=CheckRuns(tiles=16, runs=1))
    bad = [(r.label, r.error, str(r.first_bad)) for r in res if not r.ok]
    assert not bad, bad


@pytest.mark.gpu
def test_gpu_llgen_check_command(tmp_path):
    _gpu()
    r = CliRunner().invoke(main, ["check", "--random", "5", "--seed", "3", "--tiles", "8", "--report", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["counts"]["kernels"] == 5 and data["counts"]["failed"] == 0 and data["device"]["name"]


# ------------------------------------------------------------------------------------ gpu_check end to end, faked
FAKE_CUPY = '''
"""Just enough of CuPy for llgen gpu-check (llgen.runtime.gpucheck): each kernel moves the tile as its layouts say (read from the
A/B comments of the emitted source), so the harness, not the kernels, is what this exercises."""
import json, re, types
import numpy as np
from llgen.core.layout import LinearLayout
from llgen.verify.simulate import element_ids
__version__ = "0-fake"
def is_available():
    return True
class CompileException(Exception):
    pass
class _Fn:
    def __init__(self, kind, ids, tile):
        self.kind, self.ids, self.tile = kind, ids, tile
    def __call__(self, grid, block, args, shared_mem=0):
        if self.kind == "debug":
            x, slots = args
            slots[:] = x[self.ids]
        else:
            xs, out, n = args
            out.reshape(int(n), self.tile)[:, self.ids] = xs.reshape(int(n), self.tile)[:, self.ids]
class _Gather:
    def __init__(self, kind, layout, axis, ids):
        self.kind, self.shape, self.axis, self.ids = kind, tuple(layout.shape), axis, ids
    def __call__(self, grid, block, args, shared_mem=0):
        x, ix, out = args[:3]
        want = np.take_along_axis(x.reshape(-1, *self.shape), ix.reshape(-1, *self.shape).astype(np.int64), 1 + self.axis)
        out[:] = want.reshape(-1) if self.kind == "kernel" else want.reshape(-1)[self.ids]
class _AddS:
    """A bench source's STREAM or copy kernel as NumPy: every element plus s, in the raw bits."""
    def __call__(self, grid, block, args, shared_mem=0):
        x, out, _, s = args
        out[:] = x + s
class _AddK:
    """A bench source's LOOP kernel as NumPy: k round trips add k in the tile's arithmetic."""
    def __init__(self, dtype):
        self.dtype = dtype
    def __call__(self, grid, block, args, shared_mem=0):
        from llgen.runtime.reference import plus_one
        x, out, k = args
        out[:] = plus_one(self.dtype, x, int(k))
class RawModule:
    def __init__(self, code, options=()):
        self.fns, name, warps, lanes, a, axis = {}, None, 0, 0, None, 0
        for line in code.splitlines():
            if line.startswith("// Generated by llgen: benchmark kernels for "):
                bench = line.split(" for ")[1].split(",")[0]
                self.fns[bench + "_stream"] = self.fns[bench + "_copy"] = _AddS()
            elif line.startswith("//   ") and "_loop:" in line and "dtype (" in line:
                self.fns[bench + "_loop"] = _AddK(line.split("dtype (")[1].split(")")[0])
            elif line.startswith("// ") and (": convert a " in line or ": gather along axis " in line):
                name = line[3:].split(":")[0]
                if re.search(r"[(][0-9]+ warps? x ", line):  # the conversion's
                    warps, lanes = map(int, re.findall(r"[(]([0-9]+) warps? x ([0-9]+) lanes", line)[-1])
                axis = int(line.split("axis ")[1].split()[0]) if "gather" in line else 0
            elif line.startswith("// Generated by llgen for "):  # the gather's
                warps, lanes = map(int, re.findall(r"[(]([0-9]+) warps? x ([0-9]+) lanes", line)[0])
            elif line.startswith("// L = "):
                lay = LinearLayout.from_dict(json.loads(line[7:]))
                ids = element_ids(lay, warps, lanes).reshape(-1)
                self.fns[name + "_debug"] = _Gather("debug", lay, axis, ids)
                self.fns[name + "_kernel"] = _Gather("kernel", lay, axis, ids)
            elif line.startswith("// A = "):
                a = LinearLayout.from_dict(json.loads(line[7:]))
            elif line.startswith("// B = "):
                b = LinearLayout.from_dict(json.loads(line[7:]))
                ids = element_ids(b, warps, lanes).reshape(-1)
                tile = 1 << a.total_out_bits
                self.fns[name + "_debug"] = _Fn("debug", ids, tile)
                self.fns[name + "_kernel"] = _Fn("kernel", ids, tile)
    def compile(self):
        pass
    def get_function(self, name):
        return self.fns[name]
def asarray(a):
    return np.array(a, copy=True)
def asnumpy(a):
    return np.array(a, copy=True)
class _Device:
    id = 0
    def synchronize(self):
        pass
def _props(i):
    return {"name": b"Fake H100", "major": 9, "minor": 0, "multiProcessorCount": 4}
cuda = types.SimpleNamespace(Device=_Device, set_allocator=lambda a=None: None,
                             compiler=types.SimpleNamespace(CompileException=CompileException),
                             runtime=types.SimpleNamespace(getDeviceProperties=_props, driverGetVersion=lambda: 13000,
                                                           runtimeGetVersion=lambda: 13000))
'''

FAKE_NCU = """#!PYTHON
import subprocess, sys
args = sys.argv[1:]
if "--query-metrics" in args:
    print("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld   wavefronts\\nsmsp__inst_executed_op_ldsm  ldsm")
    sys.exit(0)
opts, i, log = {}, 0, None
while args[i].startswith("-"):
    if args[i] in ("--csv",):
        i += 1
    else:
        opts[args[i]] = args[i + 1]
        i += 2
metrics = opts["--metrics"].split(",")
out = subprocess.run(args[i:], capture_output=True, text=True).stdout
print(out)
rows = ['"ID","Kernel Name",' + ",".join(f'"{m}"' for m in metrics), '"","",' + ",".join('""' for m in metrics)]
names = [ln.split()[1] for ln in out.splitlines() if ln.startswith("worker: ") and ln.endswith("_debug")]
for k, n in enumerate(names):
    rows.append(f'"{k}","{n}",' + ",".join('"7"' for m in metrics))
open(opts["--log-file"], "w").write("==PROF== fake\\n" + "\\n".join(rows) + "\\n")
"""

FAKE_SANITIZER = """#!PYTHON
import subprocess, sys
args = sys.argv[1:]
tool = args[args.index("--tool") + 1]
r = subprocess.run(args[4:], capture_output=True, text=True)
print(r.stdout + r.stderr)
if tool == "racecheck":
    print("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)")
else:
    print("========= ERROR SUMMARY: 0 errors")
sys.exit(r.returncode)
"""


def test_gpu_check_end_to_end_on_a_fake_gpu(tmp_path):
    """The whole script, workers and tool runs included, against a fake CuPy, ncu and compute-sanitizer."""
    (tmp_path / "py" / "cupy").mkdir(parents=True)
    (tmp_path / "py" / "cupy" / "__init__.py").write_text(FAKE_CUPY)
    (tmp_path / "bin").mkdir()
    for name, text in (("ncu", FAKE_NCU), ("compute-sanitizer", FAKE_SANITIZER)):
        p = tmp_path / "bin" / name
        p.write_text(text.replace("PYTHON", sys.executable))
        p.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    env = {
        **__import__("os").environ,
        "PYTHONPATH": str(tmp_path / "py"),
        "OUT": str(out),
        "PATH": f"{tmp_path / 'bin'}:{__import__('os').environ['PATH']}",
    }
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "llgen.cli",
            "gpu-check",
            "--random",
            "6",
            "--ncu-random",
            "2",
            "--tiles",
            "4",
            "--runs",
            "1",
            "--budget",
            "240",
            "--bench-kernels",
            "picks",  # core's picks: every variant's bench kernels run on CPU threads in tests/test_scratch_rule.py and test_bench.py
            "--skip",
            "endpoints",  # the fake CuPy runs conversion kernels only (tests/test_endpoint_gpucheck.py covers endpoints)
            "-o",
            str(tmp_path / "gc"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert r.returncode == 1, r.stdout + r.stderr  # ncu's fake counters (7 everywhere) cannot match every prediction
    data = json.loads((tmp_path / "gc.json").read_text())
    parts = data["parts"]
    assert [parts[k]["status"] for k in ("correctness", "memcheck", "synccheck", "racecheck")] == ["PASS"] * 4, parts
    assert parts["ncu"]["status"] == "FAIL" and data["device"]["name"] == "Fake H100"
    both = ("core", "regressions")
    n_shared = sum(1 for j in _suite_plans(both) if j.plan.path == "shared")
    rows = data["ncu_rows"]
    assert n_shared <= len(rows) <= n_shared + 2
    assert all(row["verdict"] != "not measured" for row in rows)
    assert "smsp__inst_executed_op_ldsm.sum" in data["ncu_metrics"]
    gathers = len(gather_plans("sm_90")) + len(core())  # and each core case's bench kernels (check_bench)
    assert parts["memcheck"]["kernels"] == len(_suite_plans(both)) + gathers + 6  # 6 random pairs under the sanitizers too
    assert data["counts"]["failed"] == 0 and data["counts"]["kernels"] == len(_suite_plans(both)) + gathers + 6
    assert (out / "gc.md").exists() and (out / "gc.json").exists() and (out / "gpu-check-logs" / "ncu.csv").exists()
    assert r.stdout.strip().splitlines()[-1].startswith("wrote ")
