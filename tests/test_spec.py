"""Layout specs: the Triton attribute string of each family, its short form and its
constructor give the same layout; bad specs raise one-sentence LlgenErrors."""

from __future__ import annotations

import json

import pytest

import llgen
from llgen.layouts import AmdMfma, AmdWmma, NvidiaMma
from llgen.spec import Where, coalesced_blocked, parse_layout, warps_per_tile

MMA2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
MMA2_3D = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1, 1], instrShape = [1, 16, 8]}>"
MFMA_3D = (
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 1, 2], instrShape = [16, 16, 16], isTransposed = true, "
    "tilesPerWarp = [1, 2, 2]}>"
)
LINEAR = (
    "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [[4, 0], [0, 0]], block = []}>"
)

ROUND_TRIPS = [
    (
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        "blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0",
        lambda s: llgen.blocked([1, 8], [4, 8], [4, 1], [1, 0], s),
        [128, 64],
        {},
    ),
    (MMA2, "mma", lambda s: llgen.mma(2, [2, 2], [16, 8], s), [128, 128], {}),
    (
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
        "mma:v=3,wpc=4x1,instr=16x128x16",
        lambda s: llgen.mma(3, [4, 1], [16, 128, 16], s),
        [128, 128],
        {},
    ),
    (
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
        "wgmma:n=128",
        lambda s: llgen.mma(3, [4, 1], [16, 128, 16], s),
        [128, 128],
        {},
    ),
    (
        f"#ttg.dot_op<{{opIdx = 0, parent = {MMA2}, kWidth = 2}}>",
        "dot:op=0,k_width=2",
        lambda s: llgen.dot_operand(0, NvidiaMma(2, (2, 2), (16, 8)), 2, s),
        [128, 64],
        {},
    ),
    (
        f"#ttg.dot_op<{{opIdx = 1, parent = {MMA2}, kWidth = 4}}>",
        "dot:op=1,k_width=4,parent=(mma:wpc=2x2)",
        lambda s: llgen.dot_operand(1, NvidiaMma(2, (2, 2), (16, 8)), 4, s),
        [64, 128],
        {},
    ),
    (
        "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
        "mfma:32,transposed=true,instr=32x32x8,wpc=2x2",
        lambda s: llgen.mfma(3, [32, 32, 8], True, [2, 2], s),
        [128, 128],
        {"threads_per_warp": 64},
    ),
    (
        (
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = false, tilesPerWarp = [2, 1], "
            "elementBitWidth = 64}>"
        ),
        "mfma:16,tiles=2x1,bits=64,instr=16x16x16,wpc=2x2",
        lambda s: llgen.mfma(3, [16, 16, 16], False, [2, 2], s, element_bitwidth=64, tiles_per_warp=[2, 1]),
        [128, 128],
        {},
    ),
    (
        "#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>",
        "wmma:v=1,wpc=2x2",
        lambda s: llgen.wmma(1, False, [2, 2], s),
        [64, 64],
        {},
    ),
    (
        "#ttg.amd_wmma<{version = 3, isTranspose = false, warpsPerCTA = [2, 2], instrShape = [16, 16, 32]}>",
        "wmma:v=3,instr=16x16x32,wpc=2x2",
        lambda s: llgen.wmma(3, False, [2, 2], s, instr_shape=[16, 16, 32]),
        [64, 64],
        {},
    ),
    (
        f"#ttg.slice<{{dim = 1, parent = {MMA2}}}>",
        "slice:dim=1,parent=(mma:wpc=2x2)",
        lambda s: llgen.slice_layout(1, NvidiaMma(2, (2, 2), (16, 8)), s),
        [128],
        {},
    ),
    (
        "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [[4, 0], [0, 0]], block = []}>",
        "linear:register=[[0,1]],lane=[[0,2],[0,4],[0,8],[1,0],[2,0]],warp=[[4,0],[0,0]]",
        lambda s: llgen.linear([[0, 1]], [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], [[4, 0], [0, 0]], [], s),
        [8, 16],
        {},
    ),
    (
        "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
        "swizzled:vec=2,per_phase=1,max_phase=4,order=1x0",
        lambda s: llgen.swizzled_shared(2, 1, 4, [1, 0], s),
        [32, 32],
        {},
    ),
    (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
        "nvmma:128",
        lambda s: llgen.nvmma_shared(128, 16, s),
        [64, 64],
        {},
    ),
    (
        (
            "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0], "
            "CGALayout = [[0, 1], [1, 0]]}>"
        ),
        "blocked:spt=2x2,tpw=4x8,wpc=2x2,ctas=2x2",
        lambda s: llgen.blocked([2, 2], [4, 8], [2, 2], [1, 0], s, cga_layout=[[0, 1], [1, 0]]),
        [1024, 128],
        {},
    ),
    # rank 3 (batched) forms, exactly as Triton 3.6 prints them
    (MMA2_3D, "mma", lambda s: llgen.mma(2, [4, 1, 1], [1, 16, 8], s), [4, 64, 64], {}),
    (
        f"#ttg.dot_op<{{opIdx = 1, parent = {MMA2_3D}, kWidth = 2}}>",
        "dot:op=1,k_width=2,parent=(mma:wpc=4x1x1)",
        lambda s: llgen.dot_operand(1, NvidiaMma(2, (4, 1, 1), (1, 16, 8)), 2, s),
        [4, 32, 64],
        {},
    ),
    (
        MFMA_3D,
        "mfma:16,transposed=true,wpc=2x1x2,tiles=1x2x2,instr=16x16x16",
        lambda s: llgen.mfma(3, [16, 16, 16], True, [2, 1, 2], s, tiles_per_warp=[1, 2, 2]),
        [4, 64, 64],
        {},
    ),
    (
        f"#ttg.dot_op<{{opIdx = 0, parent = {MFMA_3D}, kWidth = 4}}>",
        "dot:op=0,k_width=4,parent=(mfma:16,transposed=true,wpc=2x1x2,tiles=1x2x2)",
        lambda s: llgen.dot_operand(0, AmdMfma((2, 1, 2), (1, 2, 2), (), (16, 16, 16), True), 4, s),
        [2, 32, 64],
        {},
    ),
    (
        "#ttg.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [2, 2, 1]}>",
        "wmma:v=2,transposed=true,wpc=2x2x1",
        lambda s: llgen.wmma(2, True, [2, 2, 1], s),
        [2, 32, 32],
        {},
    ),
    (
        f"#ttg.slice<{{dim = 0, parent = {MMA2_3D}}}>",
        "slice:dim=0,parent=(mma:wpc=4x1x1)",
        lambda s: llgen.slice_layout(0, NvidiaMma(2, (4, 1, 1), (1, 16, 8)), s),
        [32, 16],
        {},
    ),
    (
        f"#ttg.slice<{{dim = 2, parent = {MMA2_3D}}}>",
        "slice:dim=2,parent=(mma:wpc=4x1x1)",
        lambda s: llgen.slice_layout(2, NvidiaMma(2, (4, 1, 1), (1, 16, 8)), s),
        [4, 32],
        {},
    ),
    # a #ttg.linear over a tensor of another shape than its bases span (8 x 16): Triton resizes it
    (
        LINEAR,
        "linear:register=[[0,1]],lane=[[0,2],[0,4],[0,8],[1,0],[2,0]],warp=[[4,0],[0,0]]",
        lambda s: llgen.linear([[0, 1]], [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], [[4, 0], [0, 0]], [], s),
        [32, 64],
        {},
    ),
    (
        (
            "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0], "
            "CTAsPerCGA = [2, 2], CTASplitNum = [2, 2], CTAOrder = [1, 0]}>"
        ),
        "blocked:spt=2x2,tpw=4x8,wpc=2x2,cga=[[0,1],[1,0]]",
        lambda s: llgen.blocked([2, 2], [4, 8], [2, 2], [1, 0], s, cga_layout=[[0, 1], [1, 0]]),
        [1024, 128],
        {},
    ),
]


@pytest.mark.parametrize("attr,short,build,shape,kw", ROUND_TRIPS, ids=[r[1] for r in ROUND_TRIPS])
def test_attribute_short_form_and_constructor_agree(attr, short, build, shape, kw):
    want = build(shape)
    assert parse_layout(attr, shape, **kw) == want
    assert parse_layout(short, shape, **kw) == want


def bases(spec: str, shape: list[int], **kw) -> dict:
    return parse_layout(spec, shape, **kw).to_dict()["bases"]


def test_rank3_mma_attribute_is_tritons_layout():
    """Triton 3.6's bases for MMA2_3D over 4x32x16: warps all on the batch dim."""
    assert bases(MMA2_3D, [4, 32, 16]) == {
        "register": [[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 16, 0]],
        "lane": [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
        "warp": [[1, 0, 0], [2, 0, 0]],
        "block": [],
    }


def test_rank3_mfma_attribute_is_tritons_layout():
    """Triton 3.6's bases for MFMA_3D over 4x64x64: N globally contiguous, then M, then the batch warps."""
    assert bases(MFMA_3D, [4, 64, 64]) == {
        "register": [[0, 0, 1], [0, 0, 2], [0, 0, 16], [0, 16, 0], [0, 32, 0], [2, 0, 0]],
        "lane": [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 4], [0, 0, 8]],
        "warp": [[0, 0, 32], [1, 0, 0]],
        "block": [],
    }


def test_slice_of_rank3_attribute_is_tritons_layout():
    """Triton 3.6's bases for MMA2_3D sliced along N over 4x32: the zero registers are gone, the
    N lanes broadcast."""
    assert bases(f"#ttg.slice<{{dim = 2, parent = {MMA2_3D}}}>", [4, 32]) == {
        "register": [[0, 8], [0, 16]],
        "lane": [[0, 0], [0, 0], [0, 1], [0, 2], [0, 4]],
        "warp": [[1, 0], [2, 0]],
        "block": [],
    }


@pytest.mark.parametrize(
    "shape,want",
    [
        (
            [32, 64],
            {
                "register": [[0, 1], [0, 16], [0, 32], [8, 0], [16, 0]],
                "lane": [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]],
                "warp": [[4, 0], [0, 0]],
                "block": [],
            },
        ),
        ([4, 4], {"register": [[0, 1]], "lane": [[0, 2], [0, 0], [0, 0], [1, 0], [2, 0]], "warp": [[0, 0], [0, 0]], "block": []}),
        (
            [2, 64],
            {
                "register": [[0, 1], [0, 16], [0, 32]],
                "lane": [[0, 2], [0, 4], [0, 8], [1, 0], [0, 0]],
                "warp": [[0, 0], [0, 0]],
                "block": [],
            },
        ),
    ],
)
def test_linear_attribute_over_another_shape_is_resized_like_triton(shape, want):
    """Triton 3.6 over a larger dim appends registers (dims in the order the registers first
    move, here N before M); over a smaller one it zeroes lanes and warps and drops registers."""
    assert bases(LINEAR, shape) == want


def test_json_file_round_trips(tmp_path):
    lay = llgen.mma(2, [2, 2], [16, 8], [64, 64])
    path = tmp_path / "l.json"
    path.write_text(json.dumps(lay.to_dict()))
    assert parse_layout(f"@{path}", [64, 64]) == lay


@pytest.mark.parametrize(
    "shape,bytes_,want",
    [
        ([128, 128], 2, ((1, 8), (2, 16), (4, 1))),
        ([128, 64], 2, ((1, 8), (4, 8), (4, 1))),
        ([128, 128], 4, ((1, 4), (1, 32), (4, 1))),
        ([128, 64], 1, ((1, 16), (8, 4), (4, 1))),
    ],
)
def test_default_blocked_is_tritons_coalesced_choice(shape, bytes_, want):
    b = coalesced_blocked(shape, 4, 32, bytes_)
    assert (b.size_per_thread, b.threads_per_warp, b.warps_per_cta) == want


def test_default_mma_warps_follow_tritons_rule():
    assert warps_per_tile([128, 128], 4, (16, 8)) == (2, 2)
    assert warps_per_tile([128, 64], 4, (16, 8)) == (4, 1)
    assert warps_per_tile([16, 128], 4, (16, 8)) == (1, 4)


def test_bare_names_parse():
    for spec, kw in [
        ("blocked", {}),
        ("mma", {}),
        ("wgmma", {}),
        ("dot", {}),
        ("mfma", {}),
        ("wmma", {}),
        ("slice:dim=1", {}),
        ("swizzled", {}),
        ("nvmma", {}),
    ]:
        shape = [128] if spec.startswith("slice") else [128, 128]
        assert parse_layout(spec, shape, **kw).shape == tuple(shape)


def test_mfma_and_wmma_parents_for_dot_operands():
    got = parse_layout("dot:op=0,k_width=4,parent=(mfma:32,wpc=2x2)", [128, 64])
    assert got == llgen.dot_operand(0, AmdMfma((2, 2), (1, 1), (), (32, 32, 16)), 4, [128, 64])
    got = parse_layout("dot:op=1,k_width=8,parent=(wmma:wpc=2x2)", [64, 128])
    assert got == llgen.dot_operand(1, AmdWmma((2, 2), (1, 1), (), 2), 8, [64, 128])


@pytest.mark.parametrize(
    "spec,shape,kw,words",
    [
        ("blocked", [128, 96], {}, "96"),
        ("blocked:spt=1x3", [128, 128], {}, "3"),
        ("blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", [128, 128, 2], {}, "rank"),
        ("blocked:spt=1x8,tpw=4x4,wpc=4x1,order=1x0", [128, 128], {}, "warp size"),
        ("blocked:spt=1x8,tpw=4x8,wpc=2x1,order=1x0", [128, 128], {"num_warps": 4}, "warps"),
        ("mma:wpc=2x1", [128, 128], {"num_warps": 4}, "warps"),
        ("dot:op=0,k_width=3", [128, 64], {}, "k_width 3"),
        ("dot:op=1,parent=(wgmma)", [128, 64], {}, "operand 0"),
        ("dot:op=0,k_width=2,parent=(wmma:v=1)", [64, 64], {}, "k_width 2"),
        ("bogus", [128, 128], {}, "bogus"),
        ("blocked:zz=3", [128, 128], {}, "zz"),
        ("#ttg.blocked<{sizePerThread = [1, 8] threadsPerWarp = [4, 8]}>", [128, 128], {}, "character 38"),
        (
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}",
            [128, 128],
            {},
            "character",
        ),
        ("#ttg.fancy<{a = 1}>", [128, 128], {}, "fancy"),
        ("mfma", [128, 128], {"threads_per_warp": 32}, "64"),
        (MMA2.replace("[2, 2]", "[4, 1, 1]"), [4, 64, 64], {}, "[1, 16, 8]"),
        (
            "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1, 1], instrShape = [16, 64, 16]}>",
            [4, 64, 64],
            {},
            "[4, 1, 1]",
        ),
        (MFMA_3D.replace("[1, 2, 2]", "[2, 2]"), [4, 64, 64], {}, "[2, 2]"),
        ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [4], instrShape = [32, 32, 8], isTransposed = false}>", [128], {}, "[4]"),
        ("#ttg.amd_wmma<{version = 3, isTranspose = false, warpsPerCTA = [2, 2]}>", [64, 64], {}, "[16, 16, 16]"),
        (
            "#ttg.linear<{register = [[1, 1]], lane = [[0, 1], [1, 0], [0, 0], [0, 0], [0, 0]], warp = [], block = []}>",
            [2, 2],
            {"num_warps": 1},
            "[1, 1]",
        ),
        (
            "#ttg.linear<{register = [[0, 1], [0, 1]], lane = [[1, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [], block = []}>",
            [2, 1],
            {"num_warps": 1},
            "repeats a coordinate",
        ),
        ("dot", [128], {}, "rank 1"),
    ],
)
def test_bad_specs_raise_one_sentence(spec, shape, kw, words):
    with pytest.raises(llgen.LlgenError) as e:
        parse_layout(spec, shape, **kw)
    msg = str(e.value)
    assert words in msg
    assert msg.count(". ") == 0 and msg.endswith(".") and "\n" not in msg


@pytest.mark.parametrize(
    "content,words",
    [
        ("{not json", "not JSON"),
        ('{"bases": {"register": [[0, 1, 2]]}, "out_dims": {"dim0": 4, "dim1": 4}}', "coordinates"),
        ('{"bases": {"register": [[0, 9]]}, "out_dims": {"dim0": 4, "dim1": 4}}', "past"),
        ('{"bases": {"register": [[0, 1]]}, "out_dims": {"dim0": 3, "dim1": 4}}', "power of two"),
        ("[1, 2]", "object"),
    ],
)
def test_bad_json_layouts_raise(tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(llgen.LlgenError) as e:
        parse_layout(f"@{path}", [4, 4])
    assert words in str(e.value)


# ---------------------------------------------------------------------- input hardening (the fuzz's bad inputs)
BLOCKED = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"


@pytest.mark.parametrize(
    "spec,words",
    [
        (BLOCKED.replace("[1, 8]", "[1, \u0668]"), "malformed"),  # Arabic-Indic eight: int() would read it
        (BLOCKED.replace("[1, 8]", "[1, \u00b2]"), "malformed"),  # superscript two: str.isdigit() says yes
        (BLOCKED.replace("[1, 8]", "[-, 8]"), "malformed"),
        ("blocked:spt=1x\u0668", "not a number"),
        ("blocked:spt=1x1_0", "not a number"),  # int() reads underscores
        (BLOCKED.replace("[1, 8]", "[1, 1099511627776]"), "limit"),
        ("blocked:spt=1x1099511627776", "limit"),
        (BLOCKED.replace("}>", ", order = [1, 0]}>"), "twice"),
        ("#ttg.amd_mfma<{version = 3, version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>", "twice"),
        ("blocked:spt=1x8,size_per_thread=1x8", "twice"),
        ("[" * 40 + "]" * 40, "deep"),
        ("#ttg.slice<{dim = 0, parent = " * 40 + BLOCKED + "}>" * 40, "deep"),
        ("slice:dim=0,parent=(" * 40 + "blocked" + ")" * 40, "deep"),
        ("x" * 70000, "characters"),
        ("swizzled:order=5x0", "permutation"),
        ("swizzled:per_phase=0", "per_phase"),
        ("mfma:instr=32", "3 entries"),
        ("mfma:instr=0x0x8", "power of two"),
        ("wgmma:instr=16", "3 entries"),
        ("#ttg.slice<{dim = [1], parent = #ttg.blocked<{}>}>", "integer"),
        ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = 1}>", "true or false"),
        ("linear:register=3", "list"),
        ("#mma", "--ttgir"),
    ],
)
def test_hardened_inputs_raise_one_sentence(spec, words):
    with pytest.raises(llgen.LlgenError) as e:
        parse_layout(spec, [128, 128], 4)
    msg = str(e.value)
    assert words in msg and msg.endswith(".") and "\n" not in msg


def test_caps_on_shape_warps_and_slots():
    from llgen.spec.facts import spec_facts
    from llgen.spec.request import resolve

    with pytest.raises(llgen.LlgenError, match="limit"):
        parse_layout("blocked", [65536, 65536])
    with pytest.raises(llgen.LlgenError, match="2048 threads"):  # a block of the command line's
        resolve({"SPEC": spec_facts("blocked")}, warps=64, need_target=False)
    with pytest.raises(llgen.LlgenError, match="2048 threads"):
        resolve({"SPEC": spec_facts("mfma")}, warps=32, need_target=False)  # 32 wave64 warps
    assert parse_layout("blocked", [128, 128], 64).in_size("warp") == 64  # the library parses any layout
    with pytest.raises(llgen.LlgenError, match="slots"):
        parse_layout("blocked:spt=4096x4096,tpw=4x8,wpc=4x1", [4096, 4096])


def test_aliases_resolve_through_a_ttgir_module():
    from llgen.spec.module import parse_ttgir

    text = "\n".join(
        [
            "#blocked = " + BLOCKED,
            "#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
            "#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>",
            "#smem = #ttg.shared_memory",
        ]
    )
    [module] = parse_ttgir(text)
    aliases = module.aliases
    dot = llgen.dot_operand(0, NvidiaMma(2, (2, 2), (16, 8)), 2, [128, 64])
    assert parse_layout("#dot", [128, 64], 4, None, where=Where(aliases=aliases)) == dot
    assert (
        parse_layout("#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", [128, 64], 4, None, where=Where(aliases=aliases))
        == dot
    )
    assert parse_layout("dot:op=0,k_width=2,parent=(#mma)", [128, 64], 4, None, where=Where(aliases=aliases)) == dot
    with pytest.raises(llgen.LlgenError, match="not a layout attribute"):
        parse_layout("#smem", [128, 64], 4, None, where=Where(aliases=aliases))
    with pytest.raises(llgen.LlgenError, match="not defined"):
        parse_layout("#nope", [128, 64], 4, None, where=Where(aliases=aliases))


def test_a_chain_of_aliases_is_capped():
    from llgen.spec.module import parse_ttgir

    lines = ["#a0 = " + BLOCKED] + [f"#a{i} = #ttg.slice<{{dim = 0, parent = #a{i - 1}}}>" for i in range(1, 3000)]
    [module] = parse_ttgir("\n".join(lines))
    assert module.aliases["#a2999"].attr is None and "deep" in module.aliases["#a2999"].why


@pytest.mark.parametrize(
    "spec,kind,warps,lanes",
    [
        ("blocked", "blocked", None, None),
        (BLOCKED, "blocked", 4, 32),
        ("mma", "mma", None, None),
        ("mma:v=3", "wgmma", None, None),
        (
            "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>",
            "wgmma",
            8,
            None,
        ),
        ("dot:op=0,parent=(mfma:wpc=2x4)", "dot_op", 8, None),
        ("slice:dim=0", "slice", None, None),
        ("linear:lane=[[0,1],[0,2],[0,4],[0,8],[0,16],[1,0]],warp=[[2,0]]", "linear", 2, 64),
        ("mfma", "mfma", None, None),
        ("wmma", "wmma", None, None),
        ("swizzled", "shared", None, None),
        ("nvmma:128", "shared", None, None),
    ],
)
def test_facts_read_from_the_syntax(spec, kind, warps, lanes):
    from llgen.spec.facts import spec_facts

    f = spec_facts(spec)
    assert f.kind == kind
    assert (f.warps.value if f.warps else None, f.lanes.value if f.lanes else None) == (warps, lanes)


def test_resolve_defaults_and_contradictions():
    from llgen.spec.facts import spec_facts
    from llgen.spec.request import resolve

    def setting(src, dst, **kw):
        return resolve({"--src": spec_facts(src), "--dst": spec_facts(dst)}, **kw)

    assert setting("blocked", "mma") == setting("blocked", "mma", warps=4, target="sm_90")
    assert setting(BLOCKED, "blocked").warps == 4 and setting("mma:wpc=4x2", "blocked").warps == 8
    assert setting("blocked", "mfma").target == "gfx942" and setting("blocked", "mfma").lanes == 64
    assert setting("blocked", "wgmma").target == "sm_90"
    assert setting("blocked:tpw=8x8", "blocked").target == "gfx942"
    with pytest.raises(llgen.LlgenError, match=r"--warps says 2 warps but the warps_per_cta \[4, 2\] of --src says 8"):
        setting("mma:wpc=4x2", "blocked", warps=2)
    with pytest.raises(llgen.LlgenError, match="wgmma layouts .--dst. do not run on sm_80"):
        setting("blocked", "wgmma", target="sm_80")
    with pytest.raises(llgen.LlgenError, match="no target runs both"):
        setting("mfma", "mma")
