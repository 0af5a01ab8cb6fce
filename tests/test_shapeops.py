"""Shape ops (llgen.shapeops, `llgen layout --op`) against Triton 3.6's own layout inference.

The oracle is tests/data/shapeops/oracle.json, written by tests/data/shapeops/make_oracle.py from Gluon kernels
compiled on the CPU (sm_90, gfx942, gfx1200): per case the input layout, the ops and every result layout Triton
printed, or the op it refused (or aborted) at. Every family (blocked, linear, slices, mma v2/v3 and their dot
operands, mfma, wmma and theirs), ranks 1-4, every op, and the mxfp4 chains. Results are compared as the text
Triton prints and as linear layouts over the result shape. A few cases are compiled live (kept small: each
compile takes a fraction of a second).

Two places where llgen answers what Triton's inference gives although a Triton 3.6 compile fails:
- split whose inferred layout keeps a broadcast register (a blocked layout with sizePerThread 4 along the pair,
  say): Gluon types split's result as a slice of the input, which its verifier rejects against the inference;
  plain Triton (tl.split) takes the inferred layout, and llgen gives it (``split_inferred``, read from TTGIR);
- where Triton's process aborts, llgen refuses with the reason (a join or split of a blocked layout over several
  CTAs, a join of a slice whose parent cannot be laid over the joined shape, an fp4 upcast to an invalid kWidth).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import llgen
import llgen.layouts as L
from llgen.cli import main
from llgen.core.errors import LlgenError
from llgen.shapeops import KINDS, Op, TensorLayout, apply_ops, parse_op, result_shapes, source_of
from llgen.spec import parse_encoding, parse_layout

DATA = Path(__file__).parent / "data" / "shapeops"
ORACLE = json.loads((DATA / "oracle.json").read_text())
CASES = ORACLE["cases"]


def start(rec) -> TensorLayout:
    shape = tuple(rec["shape"])
    return TensorLayout(parse_encoding(rec["input"], shape, rec["warps"], rec["lanes"]), shape)


def split_quirk(rec, k: int) -> bool:
    """Triton's Gluon compile failed at split ``k``, but the inferred layout is known (see the module docstring)."""
    if rec["ops"][k] != "split":
        return False
    gluon_rejects = rec.get("failed_at") == k and "inferred type(s)" in (rec.get("error") or "")
    gluon_aborts = rec.get("aborted_at") == k and rec.get("split_inferred") not in (None, "aborted")
    return gluon_rejects or gluon_aborts


def check_case(rec) -> list[str]:
    """Where llgen and Triton differ on one oracle case (empty: none)."""
    t = start(rec)
    bad = []
    stops = rec.get("failed_at", rec.get("aborted_at"))
    for k, text in enumerate(rec["ops"]):
        op = parse_op(text)
        try:
            got = t.apply(op)
        except LlgenError as e:
            if stops == k and not split_quirk(rec, k):
                return bad
            return [*bad, f"op {k} {text}: llgen refuses ({e})"]
        if split_quirk(rec, k):
            if got.text != rec["split_inferred"]:
                bad.append(f"op {k} split: {got.text} != inferred {rec['split_inferred']}")
            return bad
        if stops == k:
            return [*bad, f"op {k} {text}: Triton refuses ({rec.get('error')}), llgen gives {got.text}"]
        want = rec["steps"][k]
        if list(got.shape) != want["shape"]:
            return [*bad, f"op {k} {text}: shape {got.shape} != {want['shape']}"]
        text_want = rec["split_inferred"] if op.kind == "split" and "split_inferred" in rec else want["layout"]
        if got.text != text_want:
            bad.append(f"op {k} {text}: {got.text} != {text_want}")
        theirs = parse_layout(want["layout"], got.shape, rec["warps"], rec["lanes"])
        if theirs != got.layout:
            bad.append(f"op {k} {text}: linear layouts differ over {got.shape}")
        t = got
    return bad


# ---------------------------------------------------------------------- the oracle
@pytest.mark.parametrize("family", sorted({r["family"] for r in CASES}))
def test_every_oracle_case_matches_triton(family):
    """Every op of every case: the same layout text, the same linear layout over the result shape, and refusals
    at the same op."""
    failures = []
    for rec in (r for r in CASES if r["family"] == family):
        if rec["input_printed"] != rec["input"]:
            failures.append(f"{rec['id']}: Triton prints the input as {rec['input_printed']}")
        failures += [f"{rec['id']}: {m}" for m in check_case(rec)]
    assert not failures, f"{len(failures)} differ, first: " + "\n".join(failures[:5])


def test_the_oracle_covers_every_family_rank_and_op():
    random = [r for r in CASES if r["id"].startswith("r")]
    assert len(random) >= 300 and ORACLE["triton"].startswith("3.6")
    pairs = Counter((r["family"], r["id"].split("-")[1]) for r in random)  # ids read r<n>-<op>-<family>
    for family in ("blocked", "linear", "slice", "mma", "mma_dot", "mfma", "mfma_dot", "wmma", "wmma_dot"):
        for kind in KINDS:
            assert pairs[(family, kind)] >= 5, (family, kind)
    assert {len(r["shape"]) for r in random} == {1, 2, 3, 4}
    steps = Counter(parse_op(o).kind for r in CASES for o in r["ops"])
    assert all(steps[k] >= 50 for k in KINDS), steps
    refused = Counter(r["ops"][r["failed_at"]].split("=")[0] for r in CASES if "failed_at" in r)
    assert refused["expand_dims"] and refused["split"] and refused["fp4_to_fp"], refused
    chains = {r["family"] for r in CASES if r["family"].startswith("chain:")}
    assert {"chain:mxfp4_scale", "chain:hopper_value"} <= chains


def test_expand_dims_of_a_linear_layout_is_refused_as_triton_refuses_it():
    """Gluon checks for a slice in Python; below it, Triton 3.6's C++ inference (read from TTGIR text) refuses a
    #ttg.linear and a blocked operand too, and expands a slice only along its own dim."""
    probes = ORACLE["ir_probes"]
    assert {p["input"].split("<")[0] for p in probes} == {"#ttg.linear", "#ttg.blocked", "#ttg.slice"}
    for p in probes:
        t = TensorLayout(parse_encoding(p["input"], p["shape"], 4, 32), tuple(p["shape"]))
        if p["result"].startswith("error: "):
            with pytest.raises(LlgenError):
                t.apply(p["op"])
        else:
            assert t.apply(p["op"]).text == p["result"]
    assert any("must be SliceEncodingAttr" in p["result"] and "linear" in p["input"] for p in probes)


def test_mxfp4_chains_end_where_they_started():
    """The scale broadcast gives the values' layout back; the Hopper value unshuffle gives Triton's printed text."""
    for rec in (r for r in CASES if r["family"] == "chain:mxfp4_scale"):
        steps = apply_ops(start(rec), rec["ops"])
        assert [s.text for s in steps[1:]] == [s["layout"] for s in rec["steps"]]
    hopper = [r for r in CASES if r["family"] == "chain:hopper_value"]
    assert len(hopper) == 20 and all(not check_case(r) for r in hopper)
    assert max(len(s["shape"]) for r in hopper for s in r["steps"]) == 8


def test_split_with_a_broadcast_register_gives_the_inferred_layout():
    """sizePerThread 4 along the pair: each thread holds the pair twice. Triton infers a #ttg.linear keeping that
    replicated register; Gluon's verifier rejects its own slice-typed result against it, and tl.split takes it.
    llgen gives the inferred layout: a no-op (no thread moves or drops a register)."""
    (rec,) = [r for r in CASES if r["id"] == "c-split-spt4"]
    assert "inferred type(s)" in rec["error"]
    got = start(rec).split()
    assert (
        got.text
        == rec["split_inferred"]
        == ("#ttg.linear<{register = [[0], [32]], lane = [[0], [0], [1], [2], [4]], warp = [[8], [16]], block = []}>")
    )


def test_fp4_result_with_a_basis_past_the_edge():
    """Triton builds fp4_to_fp's result from the source laid over the upcast shape, so it prints a warp basis
    [32, 0] on a 32x64 tensor; llgen prints the same text, and over the result shape that basis is a broadcast."""
    (rec,) = [r for r in CASES if r["id"] == "c-fp4-edge"]
    got = start(rec).fp4_to_fp(0)
    assert got.text == rec["steps"][0]["layout"] and "[32, 0]" in got.text
    assert got.layout.basis("warp", 1) == (0, 0)


# ---------------------------------------------------------------------- live Triton (a handful of compiles)
def test_a_few_cases_compile_live(monkeypatch, tmp_path):
    """A chain per kind of answer, compiled now: the oracle file is what Triton says today."""
    pytest.importorskip("triton.experimental.gluon")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    sys.path.insert(0, str(DATA))
    try:
        import make_oracle
    finally:
        sys.path.remove(str(DATA))
    want = {"c-scale00", "c-hopper3v2op0", "c-split-spt4", "c-fp4-edge"}
    cases = [c for c in make_oracle.chain_cases() if c["id"] in want]
    assert len(cases) == len(want)
    have = {r["id"]: r for r in CASES}
    for case in cases:
        live = make_oracle.run_case(case)
        assert live == have[case["id"]], case["id"]


# ---------------------------------------------------------------------- backward
def test_backward_gives_the_source_triton_verifies_for_fp4():
    """Fp4ToFpOp's verifier infers the source back from the result and requires the real source: every upcast
    Triton accepted in the oracle goes back to exactly its input."""
    n = 0
    for rec in CASES:
        t = start(rec)
        for k, text in enumerate(rec["ops"]):
            if k >= len(rec.get("steps", ())) or (split_quirk(rec, k)):
                break
            nxt = t.apply(text)
            if parse_op(text).kind == "fp4_to_fp":
                assert nxt.source(text, t.shape).layout == t.layout, rec["id"]
                n += 1
            t = nxt
    assert n >= 50


def same_elements_per_thread(a, b) -> bool:
    """Whether every thread (lane, warp, block) holds the same set of elements in both layouts, register order
    aside: the same span of register images, and each thread bit moving to the same coset of it."""
    from llgen.core import f2

    regs = f2.reduce(a.flat_cols("register"))
    if regs != f2.reduce(b.flat_cols("register")):
        return False
    return all(
        a.in_bits(n) == b.in_bits(n)
        and all(f2.contains(regs, x ^ y) for x, y in zip(a.flat_cols(n), b.flat_cols(n), strict=True))
        for n in ("lane", "warp", "block")
    )


def test_backward_then_forward_keeps_every_threads_elements():
    """For each op with a backward inference: the op applied to the inferred source holds, in every thread, the
    elements of the wanted result (trans, reshape and broadcast give it back exactly)."""
    checked = Counter()
    for rec in CASES:
        t = start(rec)
        for k, text in enumerate(rec["ops"]):
            if k >= len(rec.get("steps", ())) or split_quirk(rec, k):
                break
            op = parse_op(text)
            nxt = t.apply(op)
            try:
                src = nxt.source(op, t.shape)
            except LlgenError:
                checked[op.kind + ":none"] += 1
            else:
                again = src.apply(op)
                if op.kind in ("trans", "reshape", "broadcast", "expand_dims"):
                    assert again.layout == nxt.layout, (rec["id"], text)
                else:
                    assert same_elements_per_thread(again.layout, nxt.layout), (rec["id"], text)
                checked[op.kind] += 1
            t = nxt
    assert all(checked[k] >= 5 for k in KINDS), checked


def test_backward_chain_and_its_refusals():
    wanted = TensorLayout(L.Blocked((4, 1), (4, 8), (1, 4), (0, 1)), (32, 64))
    steps = source_of(wanted, ["trans=1,0"], (64, 32))
    assert steps[0].encoding == L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)) and steps[-1] is wanted
    fp4 = TensorLayout(L.Blocked((1, 8), (8, 4), (4, 1), (1, 0)), (64, 64))
    assert fp4.source("fp4_to_fp=1", (64, 32)).encoding == L.Blocked((1, 4), (8, 4), (4, 1), (1, 0))
    with pytest.raises(LlgenError, match="sizePerThread"):
        TensorLayout(L.Blocked((1, 1), (8, 4), (4, 1), (1, 0)), (64, 64)).source("fp4_to_fp=1", (64, 32))
    with pytest.raises(LlgenError, match="makes 64x32 from 32x64, not this tensor"):
        wanted.source("trans=1,0", (32, 64))
    parent = L.Blocked((1, 4), (8, 4), (4, 1), (1, 0))
    assert TensorLayout(parent, (1, 32)).source("expand_dims=0", (32,)).encoding == L.Slice(0, parent)


# ---------------------------------------------------------------------- vectorization
def brute_vector(lay) -> int:
    """The largest u with L^-1(i) = i for i < u: register i (lane, warp, block 0) holds row-major element i."""
    u = 1  # register 0 holds element 0
    while u < lay.in_size("register") and lay.apply_flat(u) == u:
        u += 1
    return u


@pytest.mark.parametrize(
    "enc,shape,vector",
    [
        (L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32), 4),
        (L.Blocked((2, 4), (8, 4), (4, 1), (1, 0)), (64, 4), 8),  # a row held whole: the run goes on to the next row
        (L.Blocked((4, 1), (4, 8), (1, 4), (0, 1)), (32, 64), 1),  # column-major registers
        (L.NvidiaMma(2, (2, 2), (16, 8)), (64, 64), 2),
        (L.DotOperand(0, L.NvidiaMma(2, (4, 1), (16, 8)), 8), (64, 64), 8),
    ],
)
def test_vector_width(enc, shape, vector):
    t = TensorLayout(enc, shape)
    assert t.vector == vector == brute_vector(t.layout)


def test_vector_width_is_the_definition_on_every_oracle_layout():
    for rec in CASES[:200]:
        for t in apply_ops(start(rec), rec["ops"][: len(rec.get("steps", ()))]):
            assert t.vector == brute_vector(t.layout), rec["id"]


# ---------------------------------------------------------------------- the API
def test_a_bare_linear_layout_takes_the_linear_encodings_inference():
    lay = llgen.blocked([1, 4], [8, 4], [4, 1], [1, 0], [64, 32])
    t = TensorLayout.of(lay)
    assert t.trans((1, 0)).layout == TensorLayout(L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32)).trans((1, 0)).layout
    assert t.trans((1, 0)).trans((1, 0)).layout == lay
    assert t.reshape((2048,)).reshape((64, 32)).layout == lay
    assert t.join().shape == (64, 32, 2) and t.join().split().layout == lay
    assert t.broadcast((64, 32)).layout == lay and t.fp4_to_fp(1).shape == (64, 64)
    with pytest.raises(LlgenError, match="only for #ttg.slice"):
        t.expand_dims(0)
    assert llgen.TensorLayout is TensorLayout


def test_family_results_where_triton_keeps_the_family():
    b = TensorLayout(L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32))
    assert b.trans((1, 0)).encoding == L.Blocked((4, 1), (4, 8), (1, 4), (0, 1))
    assert b.join().encoding == L.Blocked((1, 4, 2), (8, 4, 1), (4, 1, 1), (2, 1, 0))
    assert b.join().split().encoding == b.encoding
    assert b.fp4_to_fp(1).encoding == L.Blocked((1, 8), (8, 4), (4, 1), (1, 0))
    assert b.reshape((64, 2, 16)).encoding == L.Blocked((1, 1, 4), (8, 1, 4), (4, 1, 1), (2, 1, 0))
    s = TensorLayout(L.Slice(1, b.encoding), (64,))
    assert s.expand_dims(1).encoding == b.encoding
    dot = TensorLayout(L.DotOperand(0, L.NvidiaMma(2, (4, 1), (16, 8)), 4), (64, 32))
    assert dot.fp4_to_fp(1).encoding == L.DotOperand(0, L.NvidiaMma(2, (4, 1), (16, 8)), 8)
    assert isinstance(TensorLayout(L.NvidiaMma(2, (2, 2), (16, 8)), (64, 64)).trans((1, 0)).encoding, L.Linear)


@pytest.mark.parametrize(
    "enc,shape,op,message",
    [
        (L.Blocked((1, 1), (16, 2), (4, 1), (1, 0)), (64, 2), "split", "lane 0 holds it"),
        (L.Blocked((1, 2), (8, 4), (4, 1), (1, 0)), (64, 4), "split", "last dim of size 2"),
        (L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32), "expand_dims=0", "needs a slice layout"),
        (L.Slice(1, L.Blocked((1, 4), (8, 4), (4, 1), (1, 0))), (64,), "expand_dims=0", "slices dim 1"),
        (L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32), "trans=0,0", "not a permutation"),
        (L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32), "reshape=64x64", "has 4096 elements"),
        (L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32), "broadcast=64x64", "only a dim of size 1"),
        (L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)), (64, 32), "fp4_to_fp=2", "outside the axes"),
        (L.Blocked((1, 4), (8, 4), (2, 2), (1, 0), ((1, 0),)), (64, 32), "join", "aborts"),
    ],
)
def test_refusals_are_one_sentence(enc, shape, op, message):
    with pytest.raises(LlgenError, match=message) as e:
        TensorLayout(enc, shape).apply(op)
    assert "\n" not in str(e.value) and str(e.value).endswith(".")


@pytest.mark.parametrize("text", ["tran=1,0", "reshape", "reshape=64xx2", "join=1", "expand_dims=a", "reshape=3x4", "x" * 300])
def test_bad_op_text_names_it(text):
    with pytest.raises(LlgenError):
        parse_op(text)


def test_op_values_print_back():
    for text in ("trans=1,0", "reshape=64x2x32", "join", "split", "expand_dims=1", "broadcast=1x64", "fp4_to_fp=0"):
        assert str(parse_op(text)) == text
    assert parse_op("permute=1,0") == Op("trans", (1, 0))
    assert result_shapes((64, 32), [parse_op("join"), parse_op("reshape=4096")]) == [(64, 32), (64, 32, 2), (4096,)]


# ---------------------------------------------------------------------- the command line
def invoke(*args):
    return CliRunner().invoke(main, ["layout", *args])


BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"


def test_cli_prints_each_step_and_the_result():
    res = invoke(BLOCKED, "--shape", "64x32", "--op", "trans=1,0", "--op", "reshape=2048")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[1].startswith("input ") and "vector 4" in lines[1] and lines[1].endswith(BLOCKED)
    assert lines[2].split()[:4] == ["trans=1,0", "32x64", "vector", "1"]
    assert "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>" in lines[2]
    result = "#ttg.linear<{register = [[64], [128], [1024], [32]], lane = [[256], [512], [1], [2], [4]], warp = [[8], [16]], block = []}>"
    assert lines[3].endswith(result) and lines[5] == result
    assert "distributed layout over 2048" in res.output and "vector: 1 element" in res.output


def test_cli_json_is_what_llgen_layout_prints_for_the_result():
    for args, result, shape in [
        (["--op", "trans=1,0", "--op", "reshape=2048"], None, "2048"),
        (["--op", "fp4_to_fp=0"], None, "128x32"),
        (["--op", "join"], None, "64x32x2"),
    ]:
        res = invoke(BLOCKED, "--shape", "64x32", *args)
        result = res.output.split("\n\n")[1].splitlines()[0]
        direct = invoke(result, "--shape", shape, "--json")
        assert direct.exit_code == 0
        assert invoke(BLOCKED, "--shape", "64x32", *args, "--json").output == direct.output


def test_cli_backward():
    want = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
    res = invoke(want, "--shape", "64x32", "--op", "fp4_to_fp=1", "--backward")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[1].split()[:2] == ["wanted", "64x64"] and lines[2].split()[:3] == ["<-", "fp4_to_fp=1", "64x32"]
    assert lines[4] == BLOCKED
    js = invoke(want, "--shape", "64x32", "--op", "fp4_to_fp=1", "--backward", "--json")
    assert js.output == invoke(BLOCKED, "--shape", "64x32", "--json").output


def test_the_plain_view_prints_the_vector():
    res = invoke(BLOCKED, "--shape", "64x32")
    assert "vector: 4 elements (consecutive in row-major order, in consecutive registers of one thread)" in res.output
    assert "vector:" not in invoke("swizzled:vec=2,per_phase=1,max_phase=4", "--shape", "4x8").output


@pytest.mark.parametrize(
    "args,message",
    [
        (
            [
                "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [1, 0]}>",
                "--shape",
                "64x2",
                "--op",
                "split",
            ],
            "--op split: split needs the pair along the last dim in one thread's registers, but warp 0 holds it",
        ),
        (
            [
                "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>",
                "--shape",
                "64x2",
                "--op",
                "split",
            ],
            "lane 0 holds it",
        ),
        ([BLOCKED, "--shape", "64x32", "--op", "expand_dims=1"], "needs a slice layout"),
        ([BLOCKED, "--shape", "64x32", "--op", "trans=1,2"], "not a permutation"),
        ([BLOCKED, "--shape", "64x32", "--op", "squeeze=1"], "is not one of"),
        ([BLOCKED, "--shape", "64x32", "--backward"], "--backward needs"),
        ([BLOCKED, "--shape", "64x32", "--op", "join", "--hw", "--json"], "--json prints the bases only"),
        ([BLOCKED, "--shape", "64x32", "--op", "broadcast=64x64"], "only a dim of size 1"),
    ],
)
def test_cli_refusals_are_one_line_exit_2(args, message):
    res = invoke(*args)
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], res.output
    assert "Traceback" not in res.output


def test_cli_takes_a_ttgir_alias_and_a_json_file(tmp_path):
    path = tmp_path / "lay.json"
    path.write_text(json.dumps(llgen.blocked([1, 4], [8, 4], [4, 1], [1, 0], [64, 32]).to_dict()))
    res = invoke(f"@{path}", "--shape", "64x32", "--op", "trans=1,0", "--json")
    assert res.exit_code == 0
    assert (
        json.loads(res.output)
        == TensorLayout.of(llgen.blocked([1, 4], [8, 4], [4, 1], [1, 0], [64, 32])).trans((1, 0)).layout.to_dict()
    )
    res = invoke("#blocked", "--ttgir", "tests/data/ttgir/attention_fwd.ttgir", "--shape", "128x64", "--op", "trans=1,0")
    assert res.exit_code == 0 and "trans=1,0" in res.output
