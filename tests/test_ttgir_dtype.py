"""The element type of a conversion agrees with what the input says of it.

With --ttgir and specs that name the dump's layouts (``--src '#blocked' --dst '#shared'``), the dtype is the one of
the dump's ops between those layouts (``tensor<64x64xi8, #blocked>`` is i8), not f16; a --dtype the dump contradicts
is an error naming both. A shared layout that states its element width (nvmma_shared's elementBitWidth, and
Triton 3.0-3.2's hasLeadingOffset shared layout through its vec) refuses a dtype of another width. Each error is one
sentence, exit status 2.
"""

from __future__ import annotations

import pytest
from helpers import invoke

from llgen.core.errors import LlgenError
from llgen.spec.module import parse_ttgir

# Triton 3.6's TTGIR of an i8 matmul for sm_80 (the i8 operands go through shared memory, the i32 accumulator is
# converted to #blocked for the store), cut to its layout ops and without locations
I8_DUMP = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shared = #ttg.swizzled_shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @matmul(%a_ptr: !tt.ptr<i8>, %b_ptr: !tt.ptr<i8>, %c_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %a_10 = tt.load %a_9 : tensor<64x64x!tt.ptr<i8>, #blocked>
    %a_11 = ttg.local_alloc %a_10 : (tensor<64x64xi8, #blocked>) -> !ttg.memdesc<64x64xi8, #shared, #smem>
    %b_15 = tt.load %b_14 : tensor<64x64x!tt.ptr<i8>, #blocked>
    %b_16 = ttg.local_alloc %b_15 : (tensor<64x64xi8, #blocked>) -> !ttg.memdesc<64x64xi8, #shared1, #smem>
    %a_17 = ttg.local_load %a_11 : !ttg.memdesc<64x64xi8, #shared, #smem> -> tensor<64x64xi8, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
    %b_18 = ttg.local_load %b_16 : !ttg.memdesc<64x64xi8, #shared1, #smem> -> tensor<64x64xi8, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>
    %c = tt.dot %a_17, %b_18, %cst_0, inputPrecision = tf32 : tensor<64x64xi8, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> * tensor<64x64xi8, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>> -> tensor<64x64xi32, #mma>
    %4 = ttg.convert_layout %c : tensor<64x64xi32, #mma> -> tensor<64x64xi32, #blocked>
    tt.store %3, %4 : tensor<64x64x!tt.ptr<i32>, #blocked>
    tt.return
  }
}
"""
DOT_A = "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>"


@pytest.fixture
def dump(tmp_path):
    path = tmp_path / "matmul_i8.ttgir"
    path.write_text(I8_DUMP)
    return str(path)


def plan(*args):
    return invoke("plan", "--shape", "64x64", *args)


def error(res) -> str:
    """The one error line of a run that failed on bad input (exit status 2)."""
    assert res.exit_code == 2, res.output
    line = res.stderr.strip()
    assert line.startswith("error: ") and "\n" not in line and line.endswith("."), line
    return line


def test_the_dump_holds_i8_and_i32_ops():
    (module,) = parse_ttgir(I8_DUMP)
    assert [(op.name, op.element) for op in module.all_ops()] == [
        ("ttg.local_alloc", "i8"),
        ("ttg.local_alloc", "i8"),
        ("ttg.local_load", "i8"),
        ("ttg.local_load", "i8"),
        ("ttg.convert_layout", "i32"),
    ]
    assert [op.line for op in module.ops_between("#shared", " #blocked ")] == [9]  # either way round, spaces aside
    assert module.ops_between("#mma", "#shared") == [] and len(module.ops_between("#blocked", "#mma")) == 1


@pytest.mark.parametrize(
    "src,dst,want",
    [
        ("#blocked", "#shared", "i8"),  # a local_alloc of tensor<64x64xi8, #blocked>
        ("#shared1", "#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>", "i8"),  # a local_load
        ("#mma", "#blocked", "i32"),  # the convert_layout of the accumulator
        ("#blocked", "#mma", "i32"),  # the same conversion the other way round
        (DOT_A, "#blocked", "f16"),  # no op between them: the default
    ],
)
def test_aliases_take_the_dtype_of_the_dumps_op(dump, src, dst, want):
    res = plan("--ttgir", dump, "--src", src, "--dst", dst)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0].startswith(f"conversion: {{'dim0': 64, 'dim1': 64}} {want},"), res.stdout


def test_a_dtype_that_agrees_with_the_dump_is_taken(dump):
    res = plan("--ttgir", dump, "--src", "#blocked", "--dst", "#shared", "--dtype", "int8")
    assert res.exit_code == 0 and " i8, " in res.stdout.splitlines()[0], res.output


def test_a_dtype_the_dump_contradicts_is_an_error(dump):
    line = error(plan("--ttgir", dump, "--src", "#blocked", "--dst", "#shared", "--dtype", "f16"))
    assert "--dtype f16 contradicts" in line and "ttg.local_alloc at line 9" in line and "tensor<64x64xi8>" in line
    line = error(plan("--ttgir", dump, "--src", "#mma", "--dst", "#blocked", "--dtype", "i8"))
    assert "--dtype i8 contradicts" in line and "tensor<64x64xi32>" in line


def test_two_element_types_between_the_same_layouts_need_a_dtype(tmp_path):
    convert = "    %4 = ttg.convert_layout %c : tensor<64x64xi32, #mma> -> tensor<64x64xi32, #blocked>\n"
    path = tmp_path / "two.ttgir"
    path.write_text(I8_DUMP.replace(convert, convert + convert.replace("%4", "%5").replace("xi32", "xf32")))
    line = error(plan("--ttgir", str(path), "--src", "#mma", "--dst", "#blocked"))
    assert "i32 and f32" in line and "pass --dtype" in line
    res = plan("--ttgir", str(path), "--src", "#mma", "--dst", "#blocked", "--dtype", "f32")
    assert res.exit_code == 0 and " f32, " in res.stdout.splitlines()[0], res.output


def test_the_whole_dump_plans_each_op_in_its_own_dtype(dump):
    res = invoke("plan", "--ttgir", dump, "--json")
    assert res.exit_code == 0, res.output
    import json

    ops = json.loads(res.stdout)
    assert [(op["element"], op["plan"]["dtype"]) for op in ops] == [("i8", "i8")] * 4 + [("i32", "i32")]


NVMMA8 = "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8}>"


def test_a_dtype_against_nvmma_shareds_element_width_is_an_error():
    line = error(plan("--src", "blocked", "--dst", NVMMA8, "--dtype", "f16"))
    assert "--dtype f16 has 16-bit elements" in line and "elementBitWidth = 8" in line and "--dst" in line
    line = error(plan("--src", NVMMA8, "--dst", "blocked", "--dtype", "f32"))
    assert "--dtype f32 has 32-bit elements" in line and "elementBitWidth = 8" in line and "--src" in line
    line = error(plan("--src", "blocked", "--dst", NVMMA8))  # nothing said the dtype: the default is named
    assert "default dtype f16" in line and "elementBitWidth = 8" in line and "i8" in line
    for dtype in ("i8", "f8e4m3", "e5m2"):
        res = plan("--src", "blocked", "--dst", NVMMA8, "--dtype", dtype)
        assert res.exit_code == 0 and "path: local_store" in res.stdout, res.output


def test_a_dtype_against_an_old_leading_offset_layout_is_an_error():
    """Triton 3.0-3.2's wgmma shared layout built vec as 128 / element bits: vec = 16 is an 8-bit element."""
    old = "#triton_gpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], hasLeadingOffset = true}>"
    line = error(plan("--src", "blocked", "--dst", old, "--dtype", "bf16"))
    assert "--dtype bf16 has 16-bit elements" in line and "elementBitWidth = 8" in line
    assert plan("--src", "blocked", "--dst", old, "--dtype", "i8").exit_code == 0


def test_a_dumps_op_whose_memdesc_contradicts_its_tensor_is_skipped(tmp_path):
    text = I8_DUMP.replace(
        "#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0]}>", f"#shared1 = {NVMMA8}"
    )
    text = text.replace(
        "(tensor<64x64xi8, #blocked>) -> !ttg.memdesc<64x64xi8, #shared1",
        "(tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared1",
    )
    path = tmp_path / "odd.ttgir"
    path.write_text(text)
    res = invoke("plan", "--ttgir", str(path))
    assert res.exit_code == 1, res.output  # planned, one op skipped
    reasons = [x for x in res.stdout.splitlines() if x.startswith("  not planned: ")]
    assert reasons == [
        "  not planned: the op's tensor<64x64xf16> has 16-bit elements, but the nvmma_shared layout of --dst states "
        "elementBitWidth = 8 (a dtype of that width: f8e4m3, f8e5m2, i8, e8m0)."
    ]


def test_the_dtype_check_is_in_the_api_too():
    from llgen.core.dtypes import dtype
    from llgen.spec.pair import Stated, parse_pair

    with pytest.raises(LlgenError, match="--dtype f16 has 16-bit elements"):
        parse_pair("blocked", NVMMA8, (64, 64), Stated(dtype("f16")), shared_ok=True)
    with pytest.raises(LlgenError, match="the default dtype f16"):
        parse_pair("blocked", NVMMA8, (64, 64), shared_ok=True)
    assert parse_pair("blocked", NVMMA8, (64, 64), Stated(dtype("i8")), shared_ok=True).dtype.name == "i8"
