"""How a shuffle plan's words are built (plan/shuffle_words.py) and what the emitter prints for them.

The counts are those Triton's warp-local lowering reaches on the same conversions (its SASS, compiled here with
Triton 3.6: bench/NOTES.md), and what the H100 measured follows them.
"""

from __future__ import annotations

import pytest

from llgen.cases.suite import wide
from llgen.emit import emit
from llgen.plan import plan_conversion


def _case(cid):
    return next(c for c in wide() if c.id == cid)


def _words(cid, target="sm_90"):
    c = _case(cid)
    p = plan_conversion(c.src, c.dst, c.dtype, target, path="shuffle")
    asm = p.detail.assembly
    kinds = {}
    for w in asm.words:
        kinds[w.kind()] = kinds.get(w.kind(), 0) + 1
    return p, asm, kinds


def test_sixteen_bit_words_that_change_halves_take_one_prmt_each_way():
    """mma -> dot operand B on one warp: every sent word and every B word is one PRMT whose selector depends on the
    thread's class (Triton's selectors 0x5410/0x7632 and 0x1054/0x3276), and no select is left."""
    p, asm, kinds = _words("w1_mma2dotB_f16")
    assert p.detail.shuffles == 64 and asm.classes == 2
    assert kinds == {"prmt": 128} and asm.instructions() == 128
    assert "words: 2 thread class(es); 128 byte-permuted; 128 SEL/PRMT per thread" in p.explain()
    text = emit(p, "header", "x")
    assert "byte_perm(a[0], a[1], ps0)" in text and "b[0] = byte_perm(x0, x1, ps2);" in text
    for sels in ("0x7632u : 0x5410u", "0x5410u : 0x7632u", "0x1054u : 0x5410u", "0x3276u : 0x7632u"):
        assert sels in text


def test_one_mixed_bit_costs_three_selects_a_pair_with_local_rounds_read_in_place():
    """A register bit and a lane bit trade places (m = 1): a pair of elements takes one shuffle and three selects
    (one to send, one for each B word, the kept element read straight from A), as Triton's 48 FSEL and 16 SHFL."""
    p, asm, kinds = _words("r18_339_f32")
    assert p.detail.shuffles == 16 and asm.instructions() == 48 and kinds == {"select": 48}
    assert "local, no shuffle" in emit(p, "header", "x")


@pytest.mark.parametrize("cid,inner", [("w1_b2b_i8", True), ("r3_mma2b_4x64x32_f16", True), ("r18_178_i64", False)])
def test_select_trees_share_their_nodes_as_a_butterfly(cid, inner):
    """Two mixed bits (four candidates a word): a tree of selects over the class bits whose subtrees words share,
    at most 2 m selects a word as in Triton's lowering, not the 2^m - 1 of a chain; 64-bit words twice. Where the
    sent word depends on one class bit and the filled one on the other, each is one select (no inner node)."""
    p, asm, _ = _words(cid)
    assert asm.instructions() <= 2 * 2 * len(asm.b_words)  # 2 m R, with R the words of B and m = 2
    text = emit(p, "header", "x")
    assert ("const unsigned t0 = ((cls & " in text) == inner and "cls ==" not in text


def test_hip_takes_the_same_words_with_v_perm_b32():
    """HIP spells the same byte permutes through __builtin_amdgcn_perm (v_perm_b32, a selector byte per result
    byte): a 16-bit transpose of pairs on one wave64 warp compiles with clang-19 for gfx942 to v_perm_b32 (the CPU
    host runs of tests/test_host_exec.py hold HIP's words exact)."""
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_hip, disassemble
    from llgen.spec import parse_layout

    a, b = (parse_layout(x, (64, 64), 1, 64) for x in ("blocked:spt=1x2,tpw=8x8,order=1x0", "blocked:spt=2x1,tpw=8x8,order=0x1"))
    p = plan_conversion(a, b, "f16", "gfx942", path="shuffle")
    text = emit(p, "kernel", "x")
    assert "__builtin_amdgcn_perm(y, x, " in text and "byte_perm(" in text.split("// warp shuffle")[1]
    try:
        k = disassemble(compile_hip(text, "gfx942"))["x_kernel"]
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    assert any(op.startswith("v_perm_b32") for op in k.opcodes), sorted(k.opcodes)[:20]


@pytest.mark.parametrize("cid", ["r18_124_f8e5m2"])
def test_rounds_alike_print_as_one_loop_with_the_same_machine_code(cid, monkeypatch):
    """Rounds that each move one whole word (r18_124's packed 8-bit words; lanes_f32's 32 in kernels_out) are one loop over constexpr
    tables; sm_80 and sm_90 SASS are those of the straight-line rounds, instruction for instruction."""
    import re

    from llgen.emit import shuffle as shuffle_emit
    from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, cuobjdump_text

    c = _case(cid)
    p = plan_conversion(c.src, c.dst, c.dtype, "sm_90", path="shuffle")
    loop = emit(p, "kernel", "x")
    assert "#pragma unroll\n  for (int r = 0; r < " in loop and "constexpr int kFill[]" in loop
    monkeypatch.setattr(shuffle_emit, "_uniform_rounds", lambda *_: None)
    straight = emit(p, "kernel", "x")
    assert "// round 1:" in straight and straight.count("\n") > loop.count("\n")

    def sass(src, arch):
        cubin = compile_cuda(src, arch)
        text = cuobjdump_text(cubin.data, "-sass")
        return [re.sub(r"/\*[0-9a-f]{4}\*/", "", ln).strip() for ln in text.splitlines() if "/*" in ln and ";" in ln]

    try:
        for arch in ("sm_80", "sm_90"):
            assert sass(loop, arch) == sass(straight, arch), arch
    except ToolchainUnavailable as e:
        pytest.skip(str(e))


def test_byte_permuted_words_run_exactly_in_both_languages():
    """The words of this module executed on CPU threads (llgen.runtime.host) against NumPy: per-thread PRMT
    selectors (CUDA) and v_perm_b32 (HIP), select trees over four and sixteen classes, local rounds."""
    from llgen.runtime import host
    from llgen.runtime.check import CheckRuns, check_many
    from llgen.spec import parse_layout

    items = []
    for cid in (
        "w1_mma2dotB_f16",
        "w1_b2b_i8",
        "r18_339_f32",
        "r3_mma2b_4x64x32_f16",
        "r18_178_i64",
        "r18_124_f8e5m2",
        "tiny_8x8_f16",
    ):
        c = _case(cid)
        items.append((cid, plan_conversion(c.src, c.dst, c.dtype, "sm_90", path="shuffle")))
    a, b = (parse_layout(x, (64, 64), 1, 64) for x in ("blocked:spt=1x2,tpw=8x8,order=1x0", "blocked:spt=2x1,tpw=8x8,order=0x1"))
    for dt in ("f16", "i8"):
        items.append((f"hip_pairs_{dt}", plan_conversion(a, b, dt, "gfx942", path="shuffle")))
    bad = [r for r in check_many(items, how=CheckRuns(tiles=3, runs=1, seed=4), compiler=host.compile, sms=1) if not r.ok]
    assert not bad, [(r.label, r.error, r.first_bad) for r in bad]


def test_joins_of_two_words_a_class_are_one_byte_permute_of_selected_operands():
    """A word whose bytes, in each class, come from at most two source words: the two operands are select trees over
    the class bits and one PRMT with the class's selector builds it; with three mixed bits, local rounds build the word
    they would send, so that B's select trees share their nodes as a butterfly. The register-lane swaps of the
    warplocal suite take 2 m R selects and permutes at most for m mixed bits and R words of B, as Triton's warp-local
    lowering, and run exactly."""
    from llgen.cases.suite import warplocal
    from llgen.runtime import host
    from llgen.runtime.check import CheckRuns, check_many

    cases = {c.id: c for c in warplocal()}
    items = []
    for cid, m in (("wl1_swap3_f16", 2), ("wl4_swap3_f16", 2), ("wl1_spt1_to_spt16_f16", 1), ("wl4_swap3_f32", 3)):
        c = cases[cid]
        p = plan_conversion(c.src, c.dst, c.dtype, "sm_90", path="shuffle")
        asm = p.detail.assembly
        joins = [w for w in asm.words if w.kind() == "join"]
        assert all(w.operands is not None and w.cost() == 1 for w in joins), cid
        assert asm.instructions() <= 2 * m * len(asm.b_words), (cid, asm.instructions())
        items.append((cid, p))
    text = emit(items[0][1], "header", "x")
    assert "byte_perm(((cls & " in text
    assert "local, no shuffle (the word it would send, kept)" in emit(items[3][1], "header", "x")
    bad = [r for r in check_many(items, how=CheckRuns(tiles=2, runs=1, seed=5), compiler=host.compile, sms=1) if not r.ok]
    assert not bad, [(r.label, r.error, r.first_bad) for r in bad]


def test_a_payload_shorter_than_a_word_goes_as_the_whole_word_that_holds_it():
    """tiny_8x8_f16 moves one 16-bit element a shuffle: each thread sends its whole A word (no PRMT to move the
    element into place) and each receiver picks the half where its sender's class holds it: one PRMT in all, with a
    per-thread selector (Triton: 4 SEL)."""
    p, asm, kinds = _words("tiny_8x8_f16")
    assert p.detail.shuffles == 2 and asm.instructions() == 1 and kinds == {"copy": 2, "prmt": 1}
    assert "shfl_idx(a[0], src_sel ^ 0u)" in emit(p, "header", "x")
