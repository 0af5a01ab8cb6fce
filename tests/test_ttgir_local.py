"""The local ops of a TTGIR dump (``--ttgir``): ``ttg.local_alloc`` of a value and ``ttg.local_store`` (registers ->
shared memory) and ``ttg.local_load`` (shared memory -> registers) are read with their memdesc's shared encoding and
planned as endpoints (llgen.plan.endpoint) by plan, emit and check; bench lists them as skipped. Over the committed
Triton 3.6 dumps (tests/data/ttgir/) and a pipelined kernel's multi-buffer (memdesc_index) and rank-3 tile."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, invoke

from llgen.cli.commands.ttgir import bench_cases, collect
from llgen.spec.module import parse_ttgir, read_ttgir

DATA = ROOT / "tests" / "data" / "ttgir"
KERNELS = [f"{k}{t}.ttgir" for k in ("matmul", "attention_fwd") for t in ("", ".sm80", ".gfx942")]
LOCAL = re.compile(r"ttg\.local_(alloc %|store|load)")  # local_alloc without a value only allocates

PIPE = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared3 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @pipe(%a: tensor<128x64xf16, #blocked>, %t: tensor<2x64x64xf16, #blocked3>, %i: i32) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x128x64xf16, #shared, #smem, mutable> loc(#loc1)
    %s = ttg.memdesc_index %buf[%i] : !ttg.memdesc<2x128x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable, 2x128x64> loc(#loc1)
    ttg.local_store %a, %s : tensor<128x64xf16, #blocked> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable, 2x128x64> loc(#loc2)
    %v = ttg.local_load %s : !ttg.memdesc<128x64xf16, #shared, #smem, mutable, 2x128x64> -> tensor<128x64xf16, #blocked> loc(#loc3)
    %b = ttg.local_alloc %t : (tensor<2x64x64xf16, #blocked3>) -> !ttg.memdesc<2x64x64xf16, #shared3, #smem> loc(#loc4)
    %w = ttg.local_load %b : !ttg.memdesc<2x64x64xf16, #shared3, #smem> -> tensor<2x64x64xf16, #blocked3> loc(#loc4)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("pipe.py":1:0)
#loc1 = loc("pipe.py":10:8)
#loc2 = loc("pipe.py":11:8)
#loc3 = loc("pipe.py":12:8)
#loc4 = loc("pipe.py":13:8)
"""


@pytest.mark.parametrize("name", KERNELS)
def test_every_local_op_of_the_dump_is_read_with_its_sides(name):
    lines = (DATA / name).read_text().splitlines()
    [module] = read_ttgir(str(DATA / name))
    assert [o.line for o in module.local_ops] == [i + 1 for i, x in enumerate(lines) if LOCAL.search(x)]
    assert module.local_ops, "the dump holds local ops"
    for o in module.local_ops:
        text = lines[o.line - 1]
        assert o.name in text and not o.problem and o.location.file == "make_ttgir_dumps.py"
        shared, dist = (o.src, o.dst) if o.name == "ttg.local_load" else (o.dst, o.src)
        assert shared.startswith("#shared") and f"!ttg.memdesc<{o.memdesc}>" in text and f"tensor<{o.tensor}, {dist}>" in text
        assert o.path == ("local_load" if o.name == "ttg.local_load" else "local_store")


@pytest.mark.parametrize("name", KERNELS)
def test_plan_explains_every_local_op_with_its_path(name):
    res = invoke("plan", "--ttgir", str(DATA / name))
    assert res.exit_code == 0 and res.stderr == "", res.output
    lines = res.stdout.splitlines()
    [module] = read_ttgir(str(DATA / name))
    assert f", {len(module.local_ops)} local_alloc/local_store/local_load" in lines[0]
    for o in module.local_ops:
        head = lines.index(f"{o.where()} in @{o.func}: {o.name} {o.types()}")
        assert lines[head + 2] == f"  path: {o.path} " + (
            "(shared memory -> registers)" if o.path == "local_load" else "(registers -> shared memory)"
        )


def test_a_header_shows_the_types_as_the_dump_writes_them():
    res = invoke("plan", "--ttgir", str(DATA / "matmul.sm80.ttgir"))
    assert (
        "line 53 (make_ttgir_dumps.py:35:20) in @matmul: ttg.local_alloc tensor<128x64xf16, #blocked> -> "
        "!ttg.memdesc<128x64xf16, #shared, #smem>" in res.stdout
    )
    assert (
        "line 61 (make_ttgir_dumps.py:35:20) in @matmul: ttg.local_load !ttg.memdesc<128x64xf16, #shared, #smem> -> "
        "tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>" in res.stdout
    )


def test_a_multi_buffer_is_planned_over_the_buffer_the_op_sees(tmp_path):
    dump = tmp_path / "pipe.ttgir"
    dump.write_text(PIPE)
    [module] = read_ttgir(str(dump))
    ops = [(o.line, o.name, o.shape, o.src, o.dst) for o in module.local_ops]
    assert ops == [
        (10, "ttg.local_store", (128, 64), "#blocked", "#shared"),
        (11, "ttg.local_load", (128, 64), "#shared", "#blocked"),
        (12, "ttg.local_alloc", (2, 64, 64), "#blocked3", "#shared3"),
        (13, "ttg.local_load", (2, 64, 64), "#shared3", "#blocked3"),
    ]
    assert module.local_ops[0].memdesc == "128x64xf16, #shared, #smem, mutable, 2x128x64"
    _, items = collect(str(dump))
    assert [it.plan.path for it in items] == ["local_store", "local_load", "local_store", "local_load"]
    assert [it.plan.smem_bytes for it in items] == [128 * 64 * 2, 128 * 64 * 2, 2 * 64 * 64 * 2, 2 * 64 * 64 * 2]
    assert all(it.same_as is None for it in items)  # a store and a load of one buffer are two endpoints


def test_a_local_op_whose_types_disagree_is_listed_with_why(tmp_path):
    bad = PIPE.replace("-> tensor<128x64xf16, #blocked> loc(#loc3)", "-> tensor<64x64xf16, #blocked> loc(#loc3)")
    bad = bad.replace(
        "%b = ttg.local_alloc %t : (tensor<2x64x64xf16, #blocked3>) -> !ttg.memdesc<2x64x64xf16, #shared3, #smem>",
        "%b = ttg.local_alloc %t : (tensor<2x64x64xf16, #blocked3>) -> !ttg.memdesc<2x64x64xf16>",
    )
    dump = tmp_path / "bad.ttgir"
    dump.write_text(bad)
    res = invoke("plan", "--ttgir", str(dump))
    reasons = [x.removeprefix("  not planned: ") for x in res.stdout.splitlines() if x.startswith("  not planned: ")]
    assert res.exit_code == 1 and reasons == [
        "the op's tensor<64x64xf16> and !ttg.memdesc<128x64xf16> differ in shape or element type.",
        "the op's !ttg.memdesc has no shared-memory encoding.",
    ]
    assert res.stderr == "2 of 4 ttg layout ops skipped (pass --allow-skips to accept that).\n"
    swapped = PIPE.replace("-> !ttg.memdesc<128x64xf16, #shared, #smem, mutable, 2x128x64> loc(#loc2)",
                           "-> !ttg.memdesc<128x64xf16, #blocked, #smem, mutable, 2x128x64> loc(#loc2)")  # fmt: skip
    dump.write_text(swapped)
    res = invoke("plan", "--ttgir", str(dump))
    assert (
        res.exit_code == 1
        and "  not planned: the op's !ttg.memdesc encoding #blocked is not a shared-memory layout." in res.stdout
    )


def test_the_op_count_covers_local_ops():
    text = (DATA / "matmul.sm80.ttgir").read_text()
    line = next(x for x in text.splitlines() if "ttg.local_load" in x)
    with pytest.raises(Exception, match="limit of 256"):
        parse_ttgir(text.replace(line, "\n".join([line] * 300)))


def test_bench_lists_local_ops_as_skipped():
    cases, target, code = bench_cases(str(DATA / "attention_fwd.ttgir"), False)
    assert [c.id for c in cases] == ["attention_fwd_acc_l83c49", "attention_fwd_l85c55"] and target == "sm_90"
    assert code == 1  # the three local_alloc are skipped
    assert bench_cases(str(DATA / "attention_fwd.ttgir"), True)[2] == 0


def test_swizzle_of_a_file_takes_convert_layout_only():
    res = invoke("swizzle", "--ttgir", str(DATA / "matmul.sm80.ttgir"))
    assert res.exit_code == 0 and "local_" not in res.stdout and res.stdout.count("\nline ") == 1


def test_emit_writes_a_header_per_local_op_and_lists_it(tmp_path):
    out = tmp_path / "out"
    res = invoke("emit", "--ttgir", str(DATA / "matmul.sm80.ttgir"), "-o", f"{out}/")
    assert res.exit_code == 0, res.output
    index = (out / "index.txt").read_text().splitlines()
    assert index[1].startswith("One header per distinct ttg layout ops of ")
    listed = index[3:]
    assert (
        len(listed) == 5 and sum(" ttg.local_" in x and x.endswith(("path local_store", "path local_load")) for x in listed) == 4
    )
    for x in listed:
        header = out / x.split("  ")[0]
        assert header.is_file() and header.read_text().startswith("//")


def test_check_on_cpu_runs_the_local_ops():
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("no g++ for the CPU runtime")
    res = invoke("check", "--ttgir", str(DATA / "matmul.sm80.ttgir"), "--cpu", "--tiles", "2")
    assert res.exit_code == 0, res.output
    assert sum(x.endswith(":") for x in res.stdout.splitlines()) == 5  # the convert_layout and four local ops


def test_the_generic_form_is_read_as_well():
    generic = PIPE.replace(
        "%v = ttg.local_load %s : !ttg.memdesc<128x64xf16, #shared, #smem, mutable, 2x128x64> -> tensor<128x64xf16, #blocked>",
        '%v = "ttg.local_load"(%s) : (!ttg.memdesc<128x64xf16, #shared, #smem, mutable, 2x128x64>) -> tensor<128x64xf16, #blocked>',
    )
    assert generic != PIPE
    [module] = parse_ttgir(generic)
    [op] = [o for o in module.local_ops if o.line == 11]
    assert (op.name, op.shape, op.src, op.dst, op.problem) == ("ttg.local_load", (128, 64), "#shared", "#blocked", "")
