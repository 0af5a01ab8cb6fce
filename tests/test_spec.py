"""Layout specs: the Triton attribute string of each family, its short form and its
constructor give the same layout; bad specs raise one-sentence LlgenErrors."""

from __future__ import annotations

import json

import llgen
import pytest
from llgen.layouts import AmdMfma, AmdWmma, NvidiaMma
from llgen.spec import coalesced_blocked, parse_layout, warps_per_tile

MMA2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"

ROUND_TRIPS = [
    ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", lambda s: llgen.blocked([1, 8], [4, 8], [4, 1], [1, 0], s), [128, 64], {}),
    (MMA2, "mma", lambda s: llgen.mma(2, [2, 2], [16, 8], s), [128, 128], {}),
    ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
     "mma:v=3,wpc=4x1,instr=16x128x16", lambda s: llgen.mma(3, [4, 1], [16, 128, 16], s), [128, 128], {}),
    ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
     "wgmma:n=128", lambda s: llgen.mma(3, [4, 1], [16, 128, 16], s), [128, 128], {}),
    (f"#ttg.dot_op<{{opIdx = 0, parent = {MMA2}, kWidth = 2}}>", "dot:op=0,k_width=2",
     lambda s: llgen.dot_operand(0, NvidiaMma(2, (2, 2), (16, 8)), 2, s), [128, 64], {}),
    (f"#ttg.dot_op<{{opIdx = 1, parent = {MMA2}, kWidth = 4}}>", "dot:op=1,k_width=4,parent=(mma:wpc=2x2)",
     lambda s: llgen.dot_operand(1, NvidiaMma(2, (2, 2), (16, 8)), 4, s), [64, 128], {}),
    ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
     "mfma:32,transposed=true,instr=32x32x8,wpc=2x2", lambda s: llgen.mfma(3, [32, 32, 8], True, [2, 2], s), [128, 128],
     {"threads_per_warp": 64}),
    (("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = false, tilesPerWarp = [2, 1], "
     "elementBitWidth = 64}>"), "mfma:16,tiles=2x1,bits=64,instr=16x16x16,wpc=2x2",
     lambda s: llgen.mfma(3, [16, 16, 16], False, [2, 2], s, element_bitwidth=64, tiles_per_warp=[2, 1]), [128, 128], {}),
    ("#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>", "wmma:v=1,wpc=2x2",
     lambda s: llgen.wmma(1, False, [2, 2], s), [64, 64], {}),
    ("#ttg.amd_wmma<{version = 3, isTranspose = false, warpsPerCTA = [2, 2], instrShape = [16, 16, 32]}>",
     "wmma:v=3,instr=16x16x32,wpc=2x2", lambda s: llgen.wmma(3, False, [2, 2], s, instr_shape=[16, 16, 32]), [64, 64], {}),
    (f"#ttg.slice<{{dim = 1, parent = {MMA2}}}>", "slice:dim=1,parent=(mma:wpc=2x2)",
     lambda s: llgen.slice_layout(1, NvidiaMma(2, (2, 2), (16, 8)), s), [128], {}),
    ("#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [[4, 0], [0, 0]], block = []}>",
     "linear:register=[[0,1]],lane=[[0,2],[0,4],[0,8],[1,0],[2,0]],warp=[[4,0],[0,0]]",
     lambda s: llgen.linear([[0, 1]], [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], [[4, 0], [0, 0]], [], s), [8, 16], {}),
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
     "swizzled:vec=2,per_phase=1,max_phase=4,order=1x0", lambda s: llgen.swizzled_shared(2, 1, 4, [1, 0], s), [32, 32], {}),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>", "nvmma:128",
     lambda s: llgen.nvmma_shared(128, 16, s), [64, 64], {}),
    (("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0], "
     "CGALayout = [[0, 1], [1, 0]]}>"), "blocked:spt=2x2,tpw=4x8,wpc=2x2,ctas=2x2",
     lambda s: llgen.blocked([2, 2], [4, 8], [2, 2], [1, 0], s, cga_layout=[[0, 1], [1, 0]]), [1024, 128], {}),
    (("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0], "
     "CTAsPerCGA = [2, 2], CTASplitNum = [2, 2], CTAOrder = [1, 0]}>"), "blocked:spt=2x2,tpw=4x8,wpc=2x2,cga=[[0,1],[1,0]]",
     lambda s: llgen.blocked([2, 2], [4, 8], [2, 2], [1, 0], s, cga_layout=[[0, 1], [1, 0]]), [1024, 128], {}),
]


@pytest.mark.parametrize("attr,short,build,shape,kw", ROUND_TRIPS, ids=[r[1] for r in ROUND_TRIPS])
def test_attribute_short_form_and_constructor_agree(attr, short, build, shape, kw):
    want = build(shape)
    assert parse_layout(attr, shape, **kw) == want
    assert parse_layout(short, shape, **kw) == want


def test_json_file_round_trips(tmp_path):
    lay = llgen.mma(2, [2, 2], [16, 8], [64, 64])
    path = tmp_path / "l.json"
    path.write_text(json.dumps(lay.to_dict()))
    assert parse_layout(f"@{path}", [64, 64]) == lay


@pytest.mark.parametrize("shape,bytes_,want", [
    ([128, 128], 2, ((1, 8), (2, 16), (4, 1))), ([128, 64], 2, ((1, 8), (4, 8), (4, 1))),
    ([128, 128], 4, ((1, 4), (1, 32), (4, 1))), ([128, 64], 1, ((1, 16), (8, 4), (4, 1))),
])
def test_default_blocked_is_tritons_coalesced_choice(shape, bytes_, want):
    b = coalesced_blocked(shape, 4, 32, bytes_)
    assert (b.size_per_thread, b.threads_per_warp, b.warps_per_cta) == want


def test_default_mma_warps_follow_tritons_rule():
    assert warps_per_tile([128, 128], 4, (16, 8)) == (2, 2)
    assert warps_per_tile([128, 64], 4, (16, 8)) == (4, 1)
    assert warps_per_tile([16, 128], 4, (16, 8)) == (1, 4)


def test_bare_names_parse():
    for spec, kw in [("blocked", {}), ("mma", {}), ("wgmma", {}), ("dot", {}), ("mfma", {}), ("wmma", {}),
                     ("slice:dim=1", {}), ("swizzled", {}), ("nvmma", {})]:
        shape = [128] if spec.startswith("slice") else [128, 128]
        assert parse_layout(spec, shape, **kw).shape == tuple(shape)


def test_mfma_and_wmma_parents_for_dot_operands():
    got = parse_layout("dot:op=0,k_width=4,parent=(mfma:32,wpc=2x2)", [128, 64])
    assert got == llgen.dot_operand(0, AmdMfma((2, 2), (1, 1), (), (32, 32, 16)), 4, [128, 64])
    got = parse_layout("dot:op=1,k_width=8,parent=(wmma:wpc=2x2)", [64, 128])
    assert got == llgen.dot_operand(1, AmdWmma((2, 2), (1, 1), (), 2), 8, [64, 128])


@pytest.mark.parametrize("spec,shape,kw,words", [
    ("blocked", [128, 96], {}, "96"),
    ("blocked:spt=1x3", [128, 128], {}, "3"),
    ("blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", [128, 128, 2], {}, "rank"),
    ("blocked:spt=1x8,tpw=4x4,wpc=4x1,order=1x0", [128, 128], {}, "warp size"),
    ("blocked:spt=1x8,tpw=4x8,wpc=2x1,order=1x0", [128, 128], {}, "warps"),
    ("mma:wpc=2x1", [128, 128], {}, "warps"),
    ("dot:op=0,k_width=3", [128, 64], {}, "k_width 3"),
    ("dot:op=1,parent=(wgmma)", [128, 64], {}, "operand 0"),
    ("dot:op=0,k_width=2,parent=(wmma:v=1)", [64, 64], {}, "k_width 2"),
    ("bogus", [128, 128], {}, "bogus"),
    ("blocked:zz=3", [128, 128], {}, "zz"),
    ("#ttg.blocked<{sizePerThread = [1, 8] threadsPerWarp = [4, 8]}>", [128, 128], {}, "character 38"),
    ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}", [128, 128], {},
     "character"),
    ("#ttg.fancy<{a = 1}>", [128, 128], {}, "fancy"),
    ("mfma", [128, 128], {"threads_per_warp": 32}, "64"),
])
def test_bad_specs_raise_one_sentence(spec, shape, kw, words):
    with pytest.raises(llgen.LlgenError) as e:
        parse_layout(spec, shape, **kw)
    msg = str(e.value)
    assert words in msg
    assert msg.count(". ") == 0 and msg.endswith(".") and "\n" not in msg


@pytest.mark.parametrize("content,words", [
    ("{not json", "not JSON"),
    ('{"bases": {"register": [[0, 1, 2]]}, "out_dims": {"dim0": 4, "dim1": 4}}', "coordinates"),
    ('{"bases": {"register": [[0, 9]]}, "out_dims": {"dim0": 4, "dim1": 4}}', "past"),
    ('{"bases": {"register": [[0, 1]]}, "out_dims": {"dim0": 3, "dim1": 4}}', "power of two"),
    ('[1, 2]', "object"),
])
def test_bad_json_layouts_raise(tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(llgen.LlgenError) as e:
        parse_layout(f"@{path}", [4, 4])
    assert words in str(e.value)
