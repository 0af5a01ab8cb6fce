"""``plan --ttgir`` checks every shape op of a dump (tt.trans, tt.reshape, tt.join, tt.split, tt.expand_dims,
tt.broadcast, ttg.fp4_to_fp, ttg.memdesc_trans, ttg.memdesc_reshape) against the no-op layout llgen.shapeops
infers, on real Gluon dumps Triton 3.6 wrote (tests/data/make_ttgir_dumps.py), and plans a shape op whose result
is not that layout as a conversion from it."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
from helpers import ROOT, invoke

from llgen.shapeops.ttgir import DISAGREES, MOVES, NOOP, check_module
from llgen.spec.module import read_ttgir

DATA = ROOT / "tests" / "data" / "ttgir"
SHAPE_OPS = re.compile(
    r"= (tt\.(?:trans|reshape|join|split|expand_dims|broadcast)|ttg\.(?:fp4_to_fp|memdesc_trans|memdesc_reshape)) "
)
NOOP_TAIL = ": no-op, the result is the layout Triton infers."


def _ops_in(path) -> list[tuple[int, str]]:
    return [(i + 1, m.group(1)) for i, x in enumerate(path.read_text().splitlines()) if (m := SHAPE_OPS.search(x))]


@pytest.mark.parametrize("name", ["attention_shapes.ttgir", "mxfp4_upcast.ttgir", "attention_fwd.ttgir", "layernorm.ttgir"])
def test_every_shape_op_gets_its_line(name):
    res = invoke("plan", "--ttgir", str(DATA / name))
    assert res.exit_code == 0, res.output
    ops = _ops_in(DATA / name)
    assert ops
    lines = [x for x in res.stdout.splitlines() if any(x.startswith(f"line {n} ") and f": {op} " in x for n, op in ops)]
    assert len(lines) == len(ops), res.stdout
    assert f"{len(ops)} shape ops, each result against the layout Triton infers for it:" in res.stdout
    for line in lines:
        assert line.endswith(NOOP_TAIL), line  # Triton wrote each result: the no-op layout (a memdesc op: its view)


def test_the_attention_dump_holds_every_kind_and_its_attributes_are_read():
    module = read_ttgir(str(DATA / "attention_shapes.ttgir"))[0]
    kinds = {op.name for op in module.shape_ops}
    assert kinds == {
        "tt.expand_dims",
        "tt.broadcast",
        "tt.reshape",
        "tt.split",
        "tt.join",
        "tt.trans",
        "ttg.memdesc_trans",
        "ttg.memdesc_reshape",
    }
    checks = {c.op.line: c for c in check_module(module, module.num_warps, module.threads_per_warp)}
    by_kind = {c.op.name: c for c in checks.values()}
    assert str(by_kind["tt.trans"].shape_op) == "trans=1,0"
    assert str(by_kind["tt.split"].shape_op) == "split" and str(by_kind["tt.join"].shape_op) == "join"
    assert {str(c.shape_op) for c in checks.values() if c.op.name == "tt.expand_dims"} >= {"expand_dims=0", "expand_dims=1"}
    assert {c.status for c in checks.values()} == {NOOP}
    reshape = by_kind["ttg.memdesc_reshape"].op
    assert (reshape.src[1], reshape.dst[1]) == ((32, 64), (16, 128))


def test_the_mxfp4_dump_upcasts_with_fp4_to_fp_along_its_axis():
    res = invoke("plan", "--ttgir", str(DATA / "mxfp4_upcast.ttgir"))
    assert res.exit_code == 0, res.output
    (line,) = [x for x in res.stdout.splitlines() if ": ttg.fp4_to_fp " in x]
    assert "ttg.fp4_to_fp (fp4_to_fp=1) tensor<32x32xi8, #blocked> -> tensor<32x64xbf16, #blocked2>" in line
    assert line.endswith(NOOP_TAIL)
    broadcast3 = [x for x in res.stdout.splitlines() if "tt.broadcast (broadcast=32x2x32)" in x]
    assert len(broadcast3) == 1 and broadcast3[0].endswith(NOOP_TAIL)  # the scales, broadcast over each 32-wide group


def _edited(tmp_path):
    """attention_shapes.ttgir with tt.trans's result (and its one use) in #blocked3 instead of #blocked: still
    valid TTGIR, but no longer the no-op layout of the trans."""
    lines = (DATA / "attention_shapes.ttgir").read_text().splitlines()
    (k,) = [i for i, x in enumerate(lines) if " = tt.trans " in x]
    result = lines[k].split(" = ", 1)[0].strip()
    assert lines[k].count("-> tensor<32x64xf16, #blocked> ") == 1
    lines[k] = lines[k].replace("-> tensor<32x64xf16, #blocked> ", "-> tensor<32x64xf16, #blocked3> ")
    (u,) = [i for i, x in enumerate(lines) if i != k and f" {result} :" in x]
    lines[u] = lines[u].replace(f"{result} : tensor<32x64xf16, #blocked> ", f"{result} : tensor<32x64xf16, #blocked3> ")
    path = tmp_path / "edited.ttgir"
    path.write_text("\n".join(lines) + "\n")
    return path, k + 1


def test_a_shape_op_off_its_noop_layout_is_planned_as_a_conversion_from_it(tmp_path):
    path, line = _edited(tmp_path)
    module = read_ttgir(str(path))[0]
    (c,) = [c for c in check_module(module, 4, 32) if c.op.line == line]
    assert c.status == MOVES
    assert c.noop == "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    res = invoke("plan", "--ttgir", str(path))
    assert res.exit_code == 0, res.output
    out = res.stdout.splitlines()
    (said,) = [x for x in out if x.startswith(f"line {line} ") and "the op moves data" in x]
    assert f"not the no-op layout {c.noop}: the op moves data, planned as a conversion from it." in said
    tail = f") in @attention_shapes: tt.trans tensor<32x64xf16>, {c.noop} -> #blocked3"
    (at,) = [i for i, x in enumerate(out) if x.startswith(f"line {line} (make_ttgir_dumps.py:") and x.endswith(tail)]
    assert out[at + 1] == "  conversion: {'dim0': 32, 'dim1': 64} f16, 4 warps x 32 lanes, sm_90"
    assert out[at + 2].startswith("  path: ") and "noop" not in out[at + 2]
    rows = json.loads(invoke("plan", "--ttgir", str(path), "--json").stdout)
    (row,) = [r for r in rows if r["line"] == line]
    assert row["op"] == "tt.trans" and row["src"] == c.noop and row["dst"] == "#blocked3" and row["plan"]["path"]
    assert row["name"].startswith("attention_shapes_")


def test_emit_writes_the_shape_op_conversion_like_the_others(tmp_path):
    path, line = _edited(tmp_path)
    res = invoke("emit", "--ttgir", str(path), "-o", f"{tmp_path}/out/")
    assert res.exit_code == 0, res.output
    index = (tmp_path / "out" / "index.txt").read_text().splitlines()
    (entry,) = [x for x in index if f"line {line} " in x]
    assert entry.startswith("attention_shapes_") and ".cuh" in entry.split()[0]


def test_the_gluon_dumps_are_what_triton_writes_today():
    pytest.importorskip("triton")
    spec = importlib.util.spec_from_file_location("make_ttgir_dumps", ROOT / "tests" / "data" / "make_ttgir_dumps.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for name in script.GLUON_DUMPS:
        assert script.compile_gluon_ttgir(name) == (DATA / name).read_text(), name


def test_a_memdesc_view_whose_layout_maps_other_elements_is_named_and_not_planned(tmp_path):
    """memdesc_trans views the buffer: its result must be the source's memory layout with the dims permuted. With the
    result's encoding swapped for a plain row-major one, the line says the dump's layouts disagree, and nothing is
    planned for it."""
    text = (DATA / "attention_shapes.ttgir").read_text().splitlines()
    k = next(i for i, x in enumerate(text) if "ttg.memdesc_trans" in x)
    plain = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    text[k] = text[k].replace("-> !ttg.memdesc<64x32xf16, #shared1,", f"-> !ttg.memdesc<64x32xf16, {plain},")
    path = tmp_path / "edited.ttgir"
    path.write_text("\n".join(text) + "\n")
    module = read_ttgir(str(path))[0]
    (c,) = [c for c in check_module(module, module.num_warps, module.threads_per_warp) if c.op.name == "ttg.memdesc_trans"]
    assert c.status == DISAGREES and "not a view of the source" in c.line()
    res = invoke("plan", "--ttgir", str(path))
    assert "ttg.memdesc_trans tensor" not in res.stdout  # never planned as a conversion
