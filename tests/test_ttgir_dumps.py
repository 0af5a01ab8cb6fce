"""Whole TTGIR input (``--ttgir``) on real dumps Triton 3.6 wrote on a CPU (tests/data/ttgir/, made by
tests/data/make_ttgir_dumps.py): the reader finds each module's settings, aliases and convert_layout ops with
their lines, shapes, dtypes and locations; aliases resolve in specs; ``plan --ttgir`` lists and plans every op,
``emit --ttgir`` writes one header per distinct conversion and an index; what llgen cannot move is listed with
one sentence."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
from helpers import ROOT, invoke

from llgen.core.errors import LlgenError
from llgen.spec import Where, parse_layout
from llgen.spec.module import parse_ttgir, read_ttgir

DATA = ROOT / "tests" / "data" / "ttgir"
DUMPS = sorted(p.name for p in DATA.iterdir())


def test_the_dumps_are_there():
    for kernel in ("matmul", "softmax", "layernorm", "attention_fwd"):
        assert (DATA / f"{kernel}.ttgir").exists()
    assert "layernorm.mlir-dump.txt" in DUMPS and "attention_fwd.gfx942.ttgir" in DUMPS


# (file, ttg.num-warps, threads per warp, ttg.target, [(line, shape, element, src, dst)])
EXPECTED = {
    "matmul.ttgir": (4, 32, "cuda:90", [(75, (128, 128), "f16", "#mma", "#blocked1")]),
    "softmax.ttgir": (4, 32, "cuda:90", []),
    "layernorm.ttgir": (
        4,
        32,
        "cuda:90",
        [
            (76, (256,), "f32", "#blocked1", "#ttg.slice<{dim = 0, parent = #blocked}>"),
            (83, (256,), "f32", "#blocked1", "#ttg.slice<{dim = 0, parent = #blocked}>"),
        ],
    ),
    "attention_fwd.ttgir": (
        8,
        32,
        "cuda:90",
        [
            (109, (128, 64), "f16", "#mma", "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>"),
            (124, (128, 64), "f16", "#mma", "#blocked"),
        ],
    ),
    "attention_fwd.gfx942.ttgir": (
        8,
        64,
        "hip:gfx942",
        [(122, (128, 1), "f32", "#mma1", "#mma"), (140, (128, 1), "f32", "#mma1", "#mma")],
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reader_finds_settings_and_ops(name):
    [module] = read_ttgir(str(DATA / name))
    warps, lanes, target, ops = EXPECTED[name]
    assert (module.num_warps, module.threads_per_warp, module.target) == (warps, lanes, target)
    assert [(o.line, o.shape, o.element, o.src, o.dst) for o in module.ops] == ops
    lines = (DATA / name).read_text().splitlines()
    assert all("ttg.convert_layout" in lines[o.line - 1] for o in module.ops)
    assert all(o.location.file == "make_ttgir_dumps.py" and o.func for o in module.ops)


def test_mlir_dump_takes_the_last_ttgir_module():
    [module] = read_ttgir(str(DATA / "layernorm.mlir-dump.txt"))
    text = (DATA / "layernorm.mlir-dump.txt").read_text().splitlines()
    assert "IR Dump Before ConvertTritonGPUToLLVM" in text[module.line - 1]
    assert [o.src for o in module.ops] == ["#blocked1", "#blocked1"] and module.num_warps == 4
    same = [(o.shape, o.element, o.src, o.dst, o.location) for o in read_ttgir(str(DATA / "layernorm.ttgir"))[0].ops]
    assert [(o.shape, o.element, o.src, o.dst, o.location) for o in module.ops] == same


@pytest.mark.parametrize("name", DUMPS)
def test_every_alias_of_every_dump_parses(name):
    for module in read_ttgir(str(DATA / name)):
        for alias, value in module.aliases.items():
            if alias in ("#smem",):
                assert value.attr is None and value.why.endswith(".")
                continue
            assert value.attr is not None, value.why
            lanes, warps = module.threads_per_warp, module.num_warps
            if "shared" not in value.attr[0]:
                rank = len(value.attr[1].get("warpsPerCTA", value.attr[1].get("order", [0, 0])))
                parse_layout(alias, [64] * rank, warps, lanes, where=Where(aliases=module.aliases))


def test_aliases_resolve_in_specs_and_dot_op_parents():
    path = str(DATA / "attention_fwd.sm80.ttgir")
    res = invoke(
        "plan",
        "--ttgir",
        path,
        "--src",
        "#mma",
        "--dst",
        "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>",
        "--shape",
        "128x64",
    )
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("conversion: {'dim0': 128, 'dim1': 64} f16, 8 warps x 32 lanes, sm_80")
    res = invoke("plan", "--ttgir", path, "--src", "#mma", "--dst", "dot:op=0,k_width=2,parent=(#mma)", "--shape", "128x64")
    assert res.exit_code == 0, res.output
    res = invoke("layout", "#mma", "--ttgir", path, "--json")
    assert res.exit_code == 0 and len(json.loads(res.stdout)["bases"]["warp"]) == 3


def test_layout_lists_the_aliases():
    res = invoke("layout", "--ttgir", str(DATA / "matmul.ttgir"))
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert (
        "#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>" in lines
    )
    assert any(line.startswith("#smem: ") for line in lines)


def test_module_settings_are_defaults_and_contradictions_name_both():
    path = str(DATA / "attention_fwd.gfx942.ttgir")
    res = invoke("plan", "--ttgir", path, "--src", "#mma1", "--dst", "#mma", "--shape", "128x1")
    assert res.exit_code == 0 and "8 warps x 64 lanes, gfx942" in res.stdout
    res = invoke("plan", "--ttgir", path, "--src", "#mma1", "--dst", "#mma", "--shape", "128x1", "--target", "gfx90a")
    assert res.exit_code == 2 and "--target says gfx90a" in res.stderr and "hip:gfx942" in res.stderr
    res = invoke("plan", "--ttgir", path, "--src", "#mma1", "--dst", "#mma", "--shape", "128x1", "--warps", "4")
    assert res.exit_code == 2 and "--warps says 4" in res.stderr and "ttg.num-warps" in res.stderr


def test_plan_lists_every_op_with_its_setting_and_plan():
    path = str(DATA / "attention_fwd.ttgir")
    res = invoke("plan", "--ttgir", path)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "ttg.num-warps 8, ttg.threads-per-warp 32, ttg.target cuda:90; 2 ttg.convert_layout, 3 local_alloc" in out
    assert "line 109 (make_ttgir_dumps.py:83:49) in @attention_fwd: tensor<128x64xf16>, #mma -> #ttg.dot_op<" in out
    assert "line 124 (make_ttgir_dumps.py:85:55) in @attention_fwd: tensor<128x64xf16>, #mma -> #blocked" in out
    assert out.count("conversion: {'dim0': 128, 'dim1': 64} f16, 8 warps x 32 lanes, sm_90") == 3  # and line 53's store
    rows = json.loads(invoke("plan", "--ttgir", path, "--json").stdout)
    assert [r["line"] for r in rows] == [53, 74, 104, 109, 124] and all(r["plan"]["path"] for r in rows)
    assert [r["op"] for r in rows[2:4]] == ["ttg.local_alloc", "ttg.convert_layout"]
    assert rows[0]["num_warps"] == 8 and rows[0]["target"] == "cuda:90" and rows[0]["element"] == "f16"


def test_repeated_conversions_point_at_the_first():
    res = invoke("plan", "--ttgir", str(DATA / "layernorm.ttgir"))
    assert res.exit_code == 0 and "the same conversion as line 76 (make_ttgir_dumps.py:60:30)" in res.stdout


def test_an_mfma_dump_is_planned_for_its_amd_target():
    res = invoke("plan", "--ttgir", str(DATA / "attention_fwd.gfx942.ttgir"))
    assert res.exit_code == 0 and "8 warps x 64 lanes, gfx942" in res.stdout


def test_emit_writes_one_header_per_distinct_conversion_and_an_index(tmp_path):
    out = tmp_path / "third_party"
    path = str(DATA / "layernorm.ttgir")
    res = invoke("emit", "--ttgir", path, "-o", f"{out}/")
    assert res.exit_code == 0, res.output
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 2 and names[0] == "index.txt" and re.fullmatch(r"layernorm_out_l60c30_[0-9a-f]{6}\.cuh", names[1])
    index = (out / "index.txt").read_text().splitlines()
    assert index[0].startswith("Generated by llgen ") and f"llgen emit --ttgir {path} -o {out}/" in index[0]
    assert sum(f"{names[1]}  line" in line for line in index) == 2  # both ops, one header
    again = invoke("emit", "--ttgir", path, "-o", f"{out}/")
    assert again.exit_code == 0 and sorted(p.name for p in out.iterdir()) == names


def test_emit_needs_a_folder_and_takes_name_as_a_prefix(tmp_path):
    path = str(DATA / "matmul.ttgir")
    res = invoke("emit", "--ttgir", path)
    assert res.exit_code == 2 and "-o DIR/" in res.stderr
    res = invoke("emit", "--ttgir", path, "-o", f"{tmp_path}/", "--name", "2x")
    assert res.exit_code == 2 and "--name '2x' is not a C++ identifier" in res.stderr
    res = invoke("emit", "--ttgir", path, "--src", "#mma")
    assert res.exit_code == 2 and "both --src and --dst" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_unsupported_ops_are_listed_with_a_reason(tmp_path):
    text = (DATA / "matmul.ttgir").read_text()
    line = next(x for x in text.splitlines() if "ttg.convert_layout" in x)
    extra = [
        line.replace("xf16", "xi1").replace("%11 =", "%99 ="),
        line.replace("xf16", "x!tt.ptr<f16>"),
        line.replace("xf16", "xf8E4M3FNUZ"),
        line.replace("#blocked1>", "#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>>"),
        line.replace("#blocked1>", "#nope>"),
        line.replace(" : tensor<128x128xf16, #mma>", " : tensor<128x128xf16>"),
    ]
    dump = tmp_path / "odd.ttgir"
    dump.write_text(text.replace(line, "\n".join([line, *extra])))
    res = invoke("plan", "--ttgir", str(dump))
    assert res.exit_code == 1, res.output  # it ran, but some ops were skipped
    reasons = [x for x in res.stdout.splitlines() if x.startswith("  not planned: ")]
    assert len(reasons) == 6 and all(r.endswith(".") for r in reasons)
    assert "sub-byte" in reasons[0] and "pointers" in reasons[1] and "f8E4M3FNUZ" in reasons[2]
    assert "wmma" in reasons[3] and "#nope" in reasons[4] and "source tensor type has no layout encoding" in reasons[5]
    assert res.stderr == "6 of 9 ttg layout ops skipped (pass --allow-skips to accept that).\n"  # 2 local_alloc
    accepted = invoke("plan", "--ttgir", str(dump), "--allow-skips")
    assert accepted.exit_code == 0 and accepted.stdout == res.stdout and "accepted by --allow-skips" in accepted.stderr
    out = tmp_path / "out"
    res = invoke("emit", "--ttgir", str(dump), "-o", str(out))
    headers = ["index.txt", "matmul_l38c48", "matmul_x_l35c20", "matmul_y_l36c20"]  # and a hash of the code
    assert res.exit_code == 1 and sorted(re.sub(r"_[0-9a-f]{6}\.cuh$", "", p.name) for p in out.iterdir()) == headers
    assert sum(line.startswith("not written") for line in (out / "index.txt").read_text().splitlines()) == 6
    skipped = [x for x in res.stderr.splitlines() if x.startswith("skipped line ")]
    assert len(skipped) == 6 and "line 76 (make_ttgir_dumps.py:38:48) in @matmul: tensor<128x128xi1>" in skipped[0]
    assert invoke("emit", "--ttgir", str(dump), "-o", str(out), "--allow-skips").exit_code == 0


def test_a_file_whose_every_op_is_skipped_exits_1(tmp_path):
    """Every tensor 65536x65536 (over the tile cap): nothing is planned, and that is not a success."""
    dump = tmp_path / "huge.ttgir"
    dump.write_text(
        (DATA / "attention_fwd.ttgir").read_text().replace("128x64x", "65536x65536x").replace("64x64x", "65536x65536x")
    )
    res = invoke("plan", "--ttgir", str(dump))
    assert res.exit_code == 1 and res.stdout.count("not planned: shape 65536x65536 is over llgen's limit") == 5
    out = tmp_path / "out"
    res = invoke("emit", "--ttgir", str(dump), "-o", f"{out}/")
    assert res.exit_code == 1 and "0 conversion(s) of 5 ttg layout ops written" in res.stderr
    assert res.stderr.count("skipped line ") == 5 and res.stderr.endswith(
        "5 of 5 ttg layout ops skipped (pass --allow-skips to accept that).\n"
    )
    assert [p.name for p in out.iterdir()] == ["index.txt"]
    assert invoke("emit", "--ttgir", str(dump), "-o", f"{out}/", "--allow-skips").exit_code == 0
    res = invoke("check", "--ttgir", str(dump), "--cpu", "--allow-skips")
    assert res.exit_code == 2 and "has no ttg.convert_layout that llgen plans" in res.stderr  # nothing left to run


def test_a_file_with_every_op_planned_exits_0():
    res = invoke("plan", "--ttgir", str(DATA / "attention_fwd.ttgir"))
    assert res.exit_code == 0 and res.stderr == ""


def test_bad_dimensions_say_what_is_wrong_with_them(tmp_path):
    text = (DATA / "matmul.ttgir").read_text()
    line = next(x for x in text.splitlines() if "ttg.convert_layout" in x)
    bad = ["-1x128", "?x128", "0x128", "128x99999999999"]
    dump = tmp_path / "dims.ttgir"
    dump.write_text(text.replace(line, "\n".join(line.replace("128x128xf16, #mma>", f"{d}xf16, #mma>") for d in bad)))
    res = invoke("plan", "--ttgir", str(dump))
    reasons = [x.removeprefix("  not planned: ") for x in res.stdout.splitlines() if x.startswith("  not planned: ")]
    assert res.exit_code == 1 and reasons == [
        "dimension 0 of the op's source tensor<-1x128xf16> is -1, not a positive size.",
        "dimension 0 of the op's source tensor<?x128xf16> is dynamic (?): llgen moves tiles of a fixed shape.",
        "dimension 0 of the op's source tensor<0x128xf16> is 0: the tensor holds no element.",
        "dimension 1 of the op's source tensor<128x99999999999xf16> is 99999999999, over llgen's limit of 16777216.",
    ]
    assert "tensor<-1x128xf16>, #mma -> #blocked1" in res.stdout  # the header shows the type as written
    same = line.replace("128x128xf16, #mma>", "64x128xf16, #mma>")
    dump.write_text(text.replace(line, same))
    res = invoke("plan", "--ttgir", str(dump))
    assert "not planned: the op's source tensor<64x128xf16> and destination tensor<128x128xf16> differ in shape" in res.stdout


def test_too_many_conversions_are_refused_before_any_is_planned():
    text = (DATA / "matmul.ttgir").read_text()
    line = next(x for x in text.splitlines() if "ttg.convert_layout" in x)
    with pytest.raises(LlgenError, match="limit of 256"):
        parse_ttgir(text.replace(line, "\n".join([line] * 300)))


def test_not_a_dump():
    with pytest.raises(LlgenError, match="not a TTGIR dump"):
        parse_ttgir("hello\nworld\n", "x.txt")
    res = invoke("plan", "--ttgir", str(ROOT / "README.md"))
    assert res.exit_code == 2 and res.stderr.count("\n") == 1


def test_check_on_cpu_runs_every_distinct_conversion():
    pytest.importorskip("numpy")
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("no g++ for the CPU runtime")
    res = invoke("check", "--ttgir", str(DATA / "attention_fwd.gfx942.ttgir"), "--cpu", "--tiles", "2")
    assert res.exit_code == 0, res.output
    assert "1 kernels: 0 slot mismatches" in res.stdout


def test_the_dumps_are_what_triton_writes_today():
    """Compile the kernels again (Triton 3.6, CPU) and compare: the committed dumps are the script's output."""
    pytest.importorskip("triton")
    spec = importlib.util.spec_from_file_location("make_ttgir_dumps", ROOT / "tests" / "data" / "make_ttgir_dumps.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for name in ("matmul.ttgir", "layernorm.ttgir"):
        kernel, backend, arch, warp = script.DUMPS[name]
        assert script.compile_ttgir(kernel, backend, arch, warp) == (DATA / name).read_text(), name


def test_swizzle_takes_every_op_of_the_file_or_the_pair_given():
    path = str(DATA / "attention_fwd.ttgir")
    res = invoke("swizzle", "--ttgir", path)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].endswith("ttg.target cuda:90; 2 ttg.convert_layout")
    heads = [i for i, x in enumerate(lines) if x.startswith("line ")]
    assert [lines[i].split(":")[0] for i in heads] == ["line 109 (make_ttgir_dumps.py", "line 124 (make_ttgir_dumps.py"]
    one = invoke("swizzle", "--ttgir", path, "--src", "#mma", "--dst", "#blocked", "--shape", "128x64")
    assert one.exit_code == 0 and one.stdout.splitlines()[0].startswith("layout ")
    # the second op's table is the pair's own, indented under its header line
    table = [x.removeprefix("  ") for x in lines[heads[1] + 1 :]]
    assert table == one.stdout.splitlines()
    assert invoke("swizzle").stdout != res.stdout  # not the default pair
    res = invoke("swizzle", "--ttgir", path, "--src", "#mma")
    assert res.exit_code == 2 and "both --src and --dst" in res.stderr


def test_swizzle_of_a_file_with_skipped_ops_exits_1():
    res = invoke("swizzle", "--ttgir", str(DATA / "layernorm.ttgir"), "--warps", "2")
    assert res.exit_code == 2 and "ttg.num-warps" in res.stderr  # a contradiction is bad input, not a skip
    text = (DATA / "matmul.ttgir").read_text()
    line = next(x for x in text.splitlines() if "ttg.convert_layout" in x)
    dump = text.replace(line, "\n".join([line, line.replace("xf16", "xi1")]))
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "odd.ttgir").write_text(dump)
        res = invoke("swizzle", "--ttgir", f"{folder}/odd.ttgir")
        assert res.exit_code == 1 and "  not planned: i1 is a sub-byte type" in res.stdout
        assert res.stderr == "1 of 2 ttg.convert_layout skipped (pass --allow-skips to accept that).\n"
        assert invoke("swizzle", "--ttgir", f"{folder}/odd.ttgir", "--allow-skips").exit_code == 0


def test_emit_of_a_file_warns_of_a_conversion_over_255_registers(tmp_path):
    dump = tmp_path / "big.ttgir"
    dump.write_text((DATA / "matmul.ttgir").read_text().replace("128x128xf16", "256x256xf32"))
    for cmd in (["plan", "--ttgir", str(dump)], ["emit", "--ttgir", str(dump), "-o", f"{tmp_path}/out/"]):
        res = invoke(*cmd)
        warnings = [x for x in res.stderr.splitlines() if x.startswith("warning: ")]
        assert res.exit_code == 0 and len(warnings) == 1, res.output
        assert warnings[0].startswith("warning: line 75 (make_ttgir_dumps.py:38:48): the conversion holds 512 registers")


def test_check_of_a_file_with_a_skipped_op_runs_the_rest_and_exits_1(tmp_path):
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("no g++ for the CPU runtime")
    text = (DATA / "attention_fwd.gfx942.ttgir").read_text()
    line = next(x for x in text.splitlines() if "ttg.convert_layout" in x)
    dump = tmp_path / "odd.ttgir"
    dump.write_text(text.replace(line, "\n".join([line, line.replace("xf32", "xi1")])))
    res = invoke("check", "--ttgir", str(dump), "--cpu", "--tiles", "2")
    assert res.exit_code == 1 and "1 kernels: 0 slot mismatches" in res.stdout, res.output
    assert "i1 is a sub-byte type" in res.stderr and "skipped (pass --allow-skips to accept that)." in res.stderr
    res = invoke("check", "--ttgir", str(dump), "--cpu", "--tiles", "2", "--allow-skips")
    assert res.exit_code == 0, res.output
