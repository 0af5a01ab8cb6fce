"""Each layout family pinned to worked examples, without Triton: the examples of docs/design.md §2, PTX's
documented mma fragments, and the paper's Figure 1 layout A."""

from __future__ import annotations

import pytest

import llgen
from llgen.layouts import AmdMfma, AmdWmma, Blocked, NvidiaMma


def bases(layout, dim):
    return [list(v) for v in layout.to_dict()["bases"][dim]]


def test_blocked_with_clusters_matches_layouts_md():
    lay = llgen.blocked(
        [2, 2], [4, 8], [2, 2], [1, 0], [1024, 128], cga_layout=llgen.layouts.cga_from_split([2, 2], [2, 2], [1, 0])
    )
    assert bases(lay, "register") == [[0, 1], [1, 0], [0, 32], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0]]
    assert bases(lay, "lane") == [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]]
    assert bases(lay, "warp") == [[0, 16], [8, 0]]
    assert bases(lay, "block") == [[0, 64], [512, 0]]


def test_blocked_is_the_papers_figure_1_layout_a():
    """Figure 1a: 16x16, spt 2x2, tpw 4x8, wpc 2x1. Hardware bits v0..v7 map to logical
    j0, i0, j1, j2, j3, i1, i2, i3 (i = row, j = column)."""
    lay = llgen.blocked([2, 2], [4, 8], [2, 1], [1, 0], [16, 16])
    want = [(0, 1), (1, 0), (0, 2), (0, 4), (0, 8), (2, 0), (4, 0), (8, 0)]
    got = [lay.basis(n, i) for n, k in lay.ins for i in range(k)]
    assert got == want


def test_blocked_smaller_tensor_broadcasts_lanes_and_warps():
    lay = llgen.blocked([1, 8], [4, 8], [4, 1], [1, 0], [4, 4])
    assert bases(lay, "register") == [[0, 1], [0, 2], [0, 0]]
    assert bases(lay, "lane") == [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]]
    assert bases(lay, "warp") == [[0, 0], [0, 0]]


def test_mma_v2_accumulator_is_ptx_m16n8_fragment():
    """PTX mma.m16n8 C fragment: lane l holds rows l/4 and l/4+8, columns 2*(l%4) + {0,1}."""
    lay = llgen.mma(2, [1, 1], [16, 8], [16, 8])
    for lane in range(32):
        for reg in range(4):
            got = lay.apply({"register": reg, "lane": lane})
            assert (got["dim0"], got["dim1"]) == (lane // 4 + 8 * (reg // 2), 2 * (lane % 4) + reg % 2)


def test_mma_v2_repeats_n_before_m():
    assert bases(llgen.mma(2, [1, 1], [16, 8], [32, 32]), "register") == [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]]


def test_mma_v3_tile_and_column_major_warps():
    lay = llgen.mma(3, [4, 1], [16, 32, 16], [64, 32])
    assert bases(lay, "register") == [[0, 1], [8, 0], [0, 8], [0, 16]]
    assert bases(lay, "lane") == [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]
    assert bases(llgen.mma(3, [4, 2], [16, 32, 16], [64, 64]), "warp") == [[16, 0], [32, 0], [0, 32]]


def test_mma_v2_operand_a_is_ptx_m16n8k16_fragment():
    """PTX mma.m16n8k16 .f16 A fragment: a_i of lane l is row l/4 + 8*((i/2)%2), column
    2*(l%4) + i%2 + 8*(i/4)."""
    lay = llgen.dot_operand(0, NvidiaMma(2, (1, 1), (16, 8)), 2, [16, 16])
    for lane in range(32):
        for i in range(8):
            got = lay.apply({"register": i, "lane": lane})
            assert (got["dim0"], got["dim1"]) == (lane // 4 + 8 * ((i // 2) % 2), 2 * (lane % 4) + i % 2 + 8 * (i // 4))


def test_mma_v2_operand_b_is_ptx_m16n8k16_fragment():
    """B fragment: b_i of lane l is row (K) 2*(l%4) + i%2 + 8*(i/2), column (N) l/4."""
    lay = llgen.dot_operand(1, NvidiaMma(2, (1, 1), (16, 8)), 2, [16, 8])
    for lane in range(32):
        for i in range(4):
            got = lay.apply({"register": i, "lane": lane})
            assert (got["dim0"], got["dim1"]) == (2 * (lane % 4) + i % 2 + 8 * (i // 2), lane // 4)


def test_dot_operands_with_k_width_8_match_layouts_md():
    parent = NvidiaMma(2, (1, 1), (16, 8))
    a = llgen.dot_operand(0, parent, 8, [16, 64])
    assert bases(a, "register") == [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]]
    assert bases(a, "lane") == [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]
    b = llgen.dot_operand(1, parent, 8, [64, 8])
    assert bases(b, "register") == [[1, 0], [2, 0], [4, 0], [32, 0]]
    assert bases(b, "lane") == [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]]


def test_dot_operand_warps_broadcast_along_k():
    a = llgen.dot_operand(0, NvidiaMma(2, (2, 2), (16, 8)), 2, [128, 64])
    assert bases(a, "warp") == [[0, 0], [16, 0]]


@pytest.mark.parametrize(
    "instr,reg,lane",
    [
        (32, [[1, 0], [2, 0], [8, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]),
        (16, [[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]]),
    ],
)
def test_mfma_tiles_match_layouts_md(instr, reg, lane):
    lay = llgen.mfma(3, [instr, instr, 8], False, [1, 1], [instr, instr])
    assert bases(lay, "register") == reg and bases(lay, "lane") == lane


def test_mfma_transposed_swaps_dims():
    plain = llgen.mfma(3, [32, 32, 8], False, [1, 1], [32, 32])
    trans = llgen.mfma(3, [32, 32, 8], True, [1, 1], [32, 32])
    assert bases(trans, "register") == [v[::-1] for v in bases(plain, "register")]


def test_mfma_n_is_globally_contiguous_with_tiles_per_warp():
    lay = llgen.mfma(3, [16, 16, 16], False, [2, 2], [128, 128], tiles_per_warp=[2, 2])
    assert bases(lay, "register") == [[1, 0], [2, 0], [0, 16], [0, 64], [16, 0], [64, 0]]
    assert bases(lay, "warp") == [[0, 32], [32, 0]]


def test_mfma_f64_holds_one_row_per_register_group():
    lay = llgen.mfma(3, [16, 16, 4], False, [1, 1], [16, 16], element_bitwidth=64)
    assert bases(lay, "register") == [[4, 0], [8, 0]]
    assert bases(lay, "lane") == [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]]


@pytest.mark.parametrize(
    "version,reg,lane",
    [
        (1, [[2, 0], [4, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]),
        (2, [[1, 0], [2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]]),
        (3, [[1, 0], [2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]]),
    ],
)
def test_wmma_tiles_match_layouts_md(version, reg, lane):
    lay = llgen.wmma(version, False, [1, 1], [16, 16], instr_shape=[16, 16, 32 if version == 3 else 16])
    assert bases(lay, "register") == reg and bases(lay, "lane") == lane


def test_wmma_v1_operand_duplicates_the_half_waves():
    lay = llgen.dot_operand(0, AmdWmma((1, 1), (1, 1), (), 1), 16, [16, 16])
    assert bases(lay, "lane")[4] == [0, 0]


def test_mfma_operand_lanes():
    lay = llgen.dot_operand(0, AmdMfma((1, 1), (1, 1), (), (32, 32, 8)), 4, [32, 8])
    assert bases(lay, "register") == [[0, 1], [0, 2]]
    assert bases(lay, "lane") == [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]


def test_slice_drops_zero_registers_and_keeps_broadcast_lanes():
    lay = llgen.slice_layout(1, NvidiaMma(2, (2, 2), (16, 8)), [128])
    assert lay.to_dict() == {
        "bases": {"register": [[8], [32], [64]], "lane": [[0], [0], [1], [2], [4]], "warp": [[0], [16]], "block": []},
        "out_dims": {"dim0": 128},
    }


def test_slice_of_blocked_has_the_parents_lanes():
    lay = llgen.slice_layout(0, Blocked((1, 4), (4, 8), (2, 2), (1, 0)), [64])
    assert lay.shape == (64,) and lay.in_size("lane") == 32


def test_linear_is_given_explicitly():
    lay = llgen.linear([[0, 1]], [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], [[4, 0]], [], [8, 16])
    assert bases(lay, "warp") == [[4, 0]] and lay.is_distributed()


def test_linear_over_a_larger_shape_adds_registers_in_register_order():
    """Triton repeats a linear layout first along the dim its registers first move along (dim0
    here), then the others from the last dim to the first."""
    lay = llgen.linear([[1, 0], [0, 1]], [[0, 2], [0, 4], [2, 0], [4, 0], [0, 8]], [[8, 0]], [], [64, 64])
    assert bases(lay, "register") == [[1, 0], [0, 1], [16, 0], [32, 0], [0, 16], [0, 32]]


def test_linear_over_a_smaller_shape_drops_registers_and_broadcasts_the_rest():
    lay = llgen.linear([[0, 1], [1, 0]], [[0, 2], [0, 4], [2, 0], [4, 0], [0, 8]], [[8, 0]], [], [4, 4])
    assert bases(lay, "register") == [[0, 1], [1, 0]]
    assert bases(lay, "lane") == [[0, 2], [0, 0], [2, 0], [0, 0], [0, 0]] and bases(lay, "warp") == [[0, 0]]


def test_linear_of_rank_3_resizes_each_dim():
    lay = llgen.linear([[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 2, 0], [2, 0, 0]], [[0, 0, 2]], [], [2, 8, 16])
    assert bases(lay, "register") == [[1, 0, 0], [0, 0, 1], [0, 0, 4], [0, 0, 8], [0, 4, 0]]
    assert bases(lay, "lane") == [[0, 1, 0], [0, 2, 0], [0, 0, 0]] and lay.shape == (2, 8, 16)


def test_mma_v2_of_rank_3_puts_warps_on_the_batch():
    lay = llgen.mma(2, [4, 1, 1], [1, 16, 8], [4, 64, 64])
    assert bases(lay, "register") == [[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 16, 0], [0, 32, 0]]
    assert bases(lay, "warp") == [[1, 0, 0], [2, 0, 0]]


def test_mfma_of_rank_3_adds_batch_warps_last():
    lay = llgen.mfma(3, [32, 32, 8], False, [2, 2, 1], [4, 64, 64])
    assert bases(lay, "register") == [[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0], [0, 0, 32], [2, 0, 0]]
    assert bases(lay, "warp") == [[0, 32, 0], [1, 0, 0]]


def test_mfma_4x64_operand_walks_16_k_tiles():
    """The 64-wide operand of a 4x64 mfma (B) holds 16 K tiles of k_width registers even when K is smaller."""
    lay = llgen.dot_operand(1, AmdMfma((1, 1), (1, 1), (), (4, 64, 4)), 4, [64, 64])
    assert bases(lay, "register")[:2] == [[1, 0], [2, 0]] and lay.in_size("register") == 64


def test_slice_of_rank_3_blocked_is_rank_2():
    lay = llgen.slice_layout(1, Blocked((1, 2, 4), (2, 4, 4), (1, 2, 2), (2, 1, 0)), [8, 64])
    assert lay.shape == (8, 64) and lay.is_surjective()


def test_swizzled_shared_matches_layouts_md():
    lay = llgen.swizzled_shared(2, 1, 4, [1, 0], [4, 8])
    assert bases(lay, "offset") == [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]
    assert lay.is_memory_layout()


@pytest.mark.parametrize(
    "swizzle,shape,want",
    [
        (128, [8, 64], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]),
        (32, [128, 16], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8], [8, 0], [16, 0], [32, 0], [64, 0]]),
    ],
)
def test_nvmma_shared_matches_layouts_md(swizzle, shape, want):
    assert bases(llgen.nvmma_shared(swizzle, 16, shape), "offset") == want


@pytest.mark.parametrize("swizzle", [32, 64, 128])
def test_nvmma_shared_is_cute_swizzle(swizzle):
    """CuTe Swizzle<B,4,3> on byte addresses: bits [4, 4+B) ^= bits [7, 7+B), B = log2(swizzle/16)."""
    lay = llgen.nvmma_shared(swizzle, 16, [64, swizzle // 2])
    b = (swizzle // 16).bit_length() - 1
    inv = lay.invert()
    for row in range(64):
        for col in range(swizzle // 2):
            plain = 2 * (row * (swizzle // 2) + col)
            mask = ((1 << b) - 1) << 4
            want = (plain ^ ((plain >> 3) & mask)) // 2
            assert inv.apply({"dim0": row, "dim1": col})["offset"] == want


def test_nvmma_shared_zero_swizzle_is_identity():
    lay = llgen.nvmma_shared(0, 16, [16, 32])
    assert all(lay.apply({"offset": x}) == {"dim0": x // 32, "dim1": x % 32} for x in range(512))


def padded_buffer(enc: llgen.PaddedShared) -> list:
    """The buffer of a padded layout: the element (a tuple) at each position, None for padding."""
    lay = enc.native()
    buf = [None] * enc.padded_offset(lay.in_size("offset") - 1) + [None]
    for x in range(lay.in_size("offset")):
        buf[enc.padded_offset(x)] = tuple(lay.apply({"offset": x, "block": 0}).values())
    return buf


def test_padded_shared_is_gluons_documented_buffer():
    """The three pictures of Gluon's PaddedSharedLayout docstring (elements as (row, col) or (x,), p padding)."""
    two_pairs = padded_buffer(llgen.PaddedShared.identity([(2, 1), (4, 2)], [1, 0], [4, 2]))
    assert two_pairs == [(0, 0), (0, 1), None, (1, 0), (1, 1), None, None, None, (2, 0), (2, 1), None, (3, 0), (3, 1)]
    remap = padded_buffer(llgen.PaddedShared.spanning([(2, 2)], [[2], [1]], []))
    assert remap == [(0,), (2,), None, None, (1,), (3,)]
    rows = padded_buffer(llgen.PaddedShared.spanning([(8, 1)], [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]], []))
    assert [rows[i] for i in (0, 4, 8, 9, 17, 18, 26, 27)] == [(0, 0), (2, 0), None, (4, 0), None, (1, 0), None, (5, 0)]
    assert len(rows) == 35 and rows.count(None) == 3


def test_padded_size_leaves_no_padding_after_the_last_element():
    enc = llgen.PaddedShared.identity([(64, 8)], [1, 0], [128, 64])
    assert enc.padded_elements() == 128 * 64 + 127 * 8 and enc.padded_bytes(2) == 2 * (128 * 64 + 127 * 8)
    assert llgen.PaddedShared.identity([(64, 8)], [0], [32]).padded_elements() == 32


def test_amd_rotating_shared_rotates_the_phase_per_block():
    """Rows within one block of per_phase * max_phase rows are the swizzled layout's; the next block
    starts at phase 1 (row 4 XORs like row 1), the one after at phase 2."""
    rot = llgen.amd_rotating_shared(2, 1, 4, [1, 0], [16, 32])
    swz = llgen.swizzled_shared(2, 1, 4, [1, 0], [16, 32])
    assert bases(rot, "offset")[:7] == bases(swz, "offset")[:7]
    assert bases(rot, "offset")[7:] == [[4, 2], [8, 4]] and bases(swz, "offset")[7:] == [[4, 0], [8, 0]]


def test_shared_linear_keeps_its_bases_and_shape():
    lay = llgen.shared_linear([[0, 1], [1, 1], [0, 0]], [[0, 2]], [2, 4], alignment=128)
    assert lay.to_dict() == {"bases": {"offset": [[0, 1], [1, 1], [0, 0]], "block": [[0, 2]]}, "out_dims": {"dim0": 2, "dim1": 4}}


@pytest.mark.parametrize(
    "call",
    [
        lambda: llgen.blocked([3, 1], [4, 8], [4, 1], [1, 0], [64, 64]),
        lambda: llgen.blocked([1, 1], [4, 8], [4, 1], [1, 0], [64]),
        lambda: llgen.blocked([1, 1], [4, 8], [4, 1], [0, 0], [64, 64]),
        lambda: llgen.mma(4, [2, 2], [16, 8], [64, 64]),
        lambda: llgen.dot_operand(1, NvidiaMma(3, (4, 1), (16, 64, 16)), 2, [64, 64]),
        lambda: llgen.dot_operand(0, NvidiaMma(2, (2, 2), (16, 8)), 3, [64, 64]),
        lambda: llgen.dot_operand(0, AmdWmma((1, 1), (1, 1), (), 1), 4, [64, 64]),
        lambda: llgen.nvmma_shared(48, 16, [64, 64]),
        lambda: llgen.mma(2, [4, 1, 1], [16, 8], [4, 64, 64]),  # rank 3 needs [1, 16, 8]
        lambda: llgen.mma(3, [4, 1, 1], [16, 64, 16], [4, 64, 64]),  # wgmma has no batch dim
        lambda: llgen.mma(2, [4], [16, 8], [64]),
        lambda: llgen.mfma(3, [32, 32, 8], False, [4], [64]),
        lambda: llgen.mfma(3, [32, 32, 8], False, [2, 2, 1], [4, 64, 64], tiles_per_warp=[2, 2]),
        lambda: llgen.mfma(3, [64, 4, 4], False, [2, 2], [64, 64]),  # 64x4 must be transposed
        lambda: llgen.mfma(3, [8, 8, 4], False, [2, 2], [64, 64]),
        lambda: llgen.wmma(3, False, [2, 2], [64, 64]),  # v3 has no 16x16x16
        lambda: llgen.wmma(2, False, [2, 2, 1], [4, 8, 64]),
        lambda: llgen.linear([[1, 1]], [[0, 1], [1, 0]], [], [], [2, 2]),  # a basis moving along two dims
        lambda: llgen.linear([[0, 1], [0, 1]], [[1, 0]], [], [], [2, 1]),  # a repeated coordinate cannot shrink
        lambda: llgen.linear([[0, 3]], [[1, 0], [0, 1]], [], [], [2, 2]),  # coordinate 3 cannot shrink
        lambda: llgen.linear([[0, 1]], [[1, 0]], [], [], [4, 4, 4]),
        lambda: llgen.slice_layout(0, llgen.Linear(((0, 1),), ((1, 0), (0, 4)), (), ((0, 2),)), [4]),  # CTA share not contiguous
        lambda: llgen.blocked([], [], [], [], []),
        lambda: llgen.shared_linear([[0, 1], [0, 1]], [], [1, 2]),  # two offsets, one element
        lambda: llgen.shared_linear([[0, 1], [1, 0]], [], [4, 4]),  # Triton does not resize it
        lambda: llgen.shared_linear([[0, 1]], [], [2], alignment=3),
        lambda: llgen.padded_shared([(64, 8), (64, 4)], [[0, 1]], [], [1, 2]),  # an interval twice
        lambda: llgen.padded_shared([(48, 8)], [[0, 1]], [], [1, 2]),
        lambda: llgen.padded_shared([], [[0, 1]], [], [1, 2]),
        lambda: llgen.padded_shared([(64, 8)], [[1, 1], [0, 1]], [], [2, 2]),  # a basis moving along two dims
        lambda: llgen.padded_shared([(64, 8)], [[0, 1], [0, 1]], [], [1, 2]),  # not a bijection
        lambda: llgen.amd_rotating_shared(2, 2, 8, [0, 1], [8, 32], cga_layout=[[1, 0], [0, 1]]),  # swizzle past a CTA
    ],
)
def test_bad_parameters_raise_llgen_error(call):
    with pytest.raises(llgen.LlgenError):
        call()
