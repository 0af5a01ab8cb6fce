"""The random layout generator: real families with valid parameters, the spread of shapes, ranks,
warps and dtypes the property tests rely on, replicas, and determinism."""

from __future__ import annotations

import random

import pytest

import llgen.layouts as L
from llgen.core.layout import LinearLayout
from llgen.randlayout import (
    DTYPES,
    Pair,
    draw_context,
    draw_layout,
    draw_pair,
    families_for,
    has_replicas,
    pair_stats,
    random_cases,
    random_pairs,
    tile_bytes,
    top_family,
)

TARGETS = {"sm_90": 1000, "gfx942": 1000}  # 2,000 pairs, one wave32 and one wave64 target


@pytest.fixture(scope="module")
def pairs() -> dict[str, list[Pair]]:
    return {t: random_pairs(n, 11, t) for t, n in TARGETS.items()}


def _key(p: Pair):
    return p.label, p.a, p.b, p.dtype, p.target, p.family_a, p.family_b


def test_same_seed_same_pairs(pairs):
    for t in TARGETS:
        assert [_key(p) for p in random_pairs(150, 11, t)] == [_key(p) for p in pairs[t][:150]]
        assert _key(draw_pair(11, 123, t)) == _key(pairs[t][123])
    assert [_key(p) for p in random_pairs(50, 12, "sm_90")] != [_key(p) for p in pairs["sm_90"][:50]]


def test_pairs_share_shape_warps_and_lanes(pairs):
    for t, ps in pairs.items():
        lanes = 32 if t == "sm_90" else 64
        for p in ps:
            assert p.a.outs == p.b.outs and p.target == t and p.dtype in DTYPES
            assert p.a.in_size("warp") == p.b.in_size("warp")
            assert p.a.in_size("lane") == p.b.in_size("lane") == lanes
            assert p.label.startswith("r11_") and p.label.endswith(f"_{p.dtype}")


def test_every_layout_is_surjective_and_distributed(pairs):
    for ps in pairs.values():
        for p in ps:
            for lay in (p.a, p.b):
                assert lay.is_surjective() and lay.is_distributed(), p.label
                assert not any(lay.flat_cols("block")), p.label


def test_every_family_appears_on_each_lane_width(pairs):
    for t, lanes in (("sm_90", 32), ("gfx942", 64)):
        stats = pair_stats(pairs[t])
        assert set(stats["families"]) == set(families_for(lanes)), t
        fams = set(stats["family_detail"])
        # slices of the matrix families, transposes and reshapes of others
        parents = {f[len("slice(") : -1] for f in fams if f.startswith("slice(")}
        matrix = {"mma_v2", "mma_v2_dot", "wmma", "wmma_dot", "mma_v3"} if lanes == 32 else {"mfma", "mfma_dot"}
        assert parents >= {"blocked"} | matrix, t
        assert any(f.startswith("linear(trans ") for f in fams) and any(f.startswith("linear(reshape ") for f in fams)
    assert "mfma" not in families_for(32) and "mma_v2" not in families_for(64) and "wmma" not in families_for(64)


def test_batched_wgmma_operands_are_drawn(pairs):
    """Operand A of a rank-3 wgmma (Triton builds it, not the batched accumulator), and slices of it."""
    drawn = {(f, len(p.a.shape)) for p in pairs["sm_90"] for f in (p.family_a, p.family_b)}
    assert ("mma_v3_dot", 3) in drawn and ("slice(mma_v3_dot)", 2) in drawn and ("mma_v3", 3) not in drawn
    rng = random.Random(4)
    encs = [draw_layout(rng, (2, 64, 64), 4, "sm_90", "f16", family="mma_v3_dot").encoding for _ in range(20)]
    assert all(e.operand_index == 0 and e.parent.version == 3 and e.parent.rank == 3 for e in encs)


def test_ranks_warps_and_dtypes_spread(pairs):
    for t, ps in pairs.items():
        stats = pair_stats(ps)
        assert set(stats["ranks"]) == {1, 2, 3}, t
        assert set(stats["warps"]) == {1, 2, 4, 8}, t
        assert set(stats["dtypes"]) == set(DTYPES), t
        rank3 = {top_family(f) for p in ps if len(p.a.shape) == 3 for f in (p.family_a, p.family_b)}
        assert rank3 >= ({"mma_v2", "mma_v2_dot", "wmma", "wmma_dot"} if t == "sm_90" else {"mfma", "mfma_dot"}), t


def test_shapes_from_one_element_to_scratch_rounds(pairs):
    for t, ps in pairs.items():
        stats = pair_stats(ps)
        assert stats["single_element"] and stats["rank1"], t
        assert any(len(p.a.shape) == 2 and 1 in p.a.shape and p.a.total_out_bits >= 4 for p in ps), t  # 1x64, 64x1
        assert stats["over_64k"] > 0, t
        small = sum(1 << p.a.total_out_bits <= 8192 for p in ps)
        assert small >= 0.9 * len(ps), t
        # registers repeat somewhere: a tile several times a layout's coverage
        assert any(p.a.in_size("register") >= 16 and not has_replicas(p.a) for p in ps), t
        assert max(tile_bytes(p) for p in ps) <= 256 * 1024


def test_a_third_of_pairs_have_replicas(pairs):
    for t, ps in pairs.items():
        assert pair_stats(ps)["replicas"] >= len(ps) / 3, t
        assert sum(not (has_replicas(p.a) or has_replicas(p.b)) for p in ps) >= len(ps) / 10, t


def test_has_replicas():
    lay = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[0, 2], [1, 0]], "warp": []}, {"dim0": 2, "dim1": 4})
    assert not has_replicas(lay)
    assert has_replicas(lay.resize_in("warp", 2))  # a second warp holds the same tile
    assert has_replicas(L.blocked([1, 1], [4, 8], [1, 1], [1, 0], [2, 4]))  # a tensor smaller than the layout


def test_draw_layout_by_family():
    rng = random.Random(3)
    for t, lanes in (("sm_90", 32), ("gfx942", 64)):
        for fam in families_for(lanes):
            d = draw_layout(rng, (64, 64), 4, t, "f16", family=fam)
            assert top_family(d.family) == fam and d.layout.shape == (64, 64)
            assert d.layout == d.encoding.to_linear((64, 64))


def test_random_cases_plan_the_pairs():
    cases = random_cases(12, 5, "sm_90")
    pairs = {p.label: p for p in random_pairs(40, 5, "sm_90")}
    assert len(cases) == 12
    budgets = 0
    for label, plan in cases:
        base, path = label.rsplit("_", 1)
        if path.startswith("b"):  # a pair planned under a shared-memory budget: ..._<path>_b<bytes>
            budgets += 1
            assert plan.path != "shared" or plan.detail.scratch_bytes <= int(path[1:])
            base, path = base.rsplit("_", 1)
        assert path in ("auto", "shared", "shuffle") and (path == "auto" or plan.path == path)
        assert plan.src == pairs[base].a and plan.dst == pairs[base].b and plan.dtype.name == pairs[base].dtype
    assert budgets


# ------------------------------------------------------------------------------------ against Triton 3.6
def _gluon(enc, shape, gl, amd):
    """The Gluon layout of one of our encodings."""
    if isinstance(enc, L.Blocked):
        return gl.BlockedLayout(list(enc.size_per_thread), list(enc.threads_per_warp), list(enc.warps_per_cta), list(enc.order))
    if isinstance(enc, L.NvidiaMma):
        return gl.NVMMADistributedLayout([enc.version, 0], list(enc.warps_per_cta), list(enc.instr_shape))
    if isinstance(enc, L.DotOperand):
        return gl.DotOperandLayout(enc.operand_index, _gluon(enc.parent, None, gl, amd), enc.k_width)
    if isinstance(enc, L.AmdMfma):
        return amd.AMDMFMALayout(
            enc.version,
            list(enc.instr_shape),
            enc.transposed,
            list(enc.warps_per_cta),
            element_bitwidth=enc.element_bitwidth,
            tiles_per_warp=list(enc.tiles_per_warp),
        )
    if isinstance(enc, L.AmdWmma):
        return amd.AMDWMMALayout(
            enc.version,
            enc.transposed,
            list(enc.warps_per_cta),
            instr_shape=list(enc.instr_shape),
            tiles_per_warp=list(enc.tiles_per_warp),
        )
    if isinstance(enc, L.Slice):
        return gl.SliceLayout(enc.dim, _gluon(enc.parent, None, gl, amd))
    vecs = [[list(v) for v in getattr(enc, n)] for n in ("register", "lane", "warp")]
    return gl.DistributedLinearLayout(*vecs, [], list(shape))


def test_drawn_layouts_are_triton_layouts():
    """Triton's verifiers accept every drawn encoding and its layout is ours, bit for bit."""
    pytest.importorskip("triton")
    gl = pytest.importorskip("triton.experimental.gluon.language")
    amd = pytest.importorskip("triton.experimental.gluon.language.amd")
    from triton._C.libtriton import gluon_ir, ir

    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    for t in ("sm_90", "gfx942"):
        rng = random.Random(t)
        for _ in range(300):
            dt, c = draw_context(rng, t)
            d = draw_layout(rng, c.shape, c.warps, t, dt)
            ll = builder.to_linear_layout(_gluon(d.encoding, c.shape, gl, amd)._to_ir(builder), list(c.shape))
            want = {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases}
            got = {k: v for k, v in d.layout.to_dict()["bases"].items() if k != "block"}
            assert got == want, f"{d.family} {d.encoding} over {c.shape}"
