"""4-bit types through conversions and shared-memory endpoints (llgen.plan.packed): pairs move as bytes of the quotient
layouts, unpaired nibbles widen, move and pack. Proven by the packed simulator on random pairs and on the layouts
4-bit kernels use (dot operands packed along K, blocked loads packed along the fast dim), by the emitted text on CPU
threads (CUDA and HIP), by NVRTC's SASS, and through the CLI."""

from __future__ import annotations

import json
import re

import pytest
from helpers import invoke

from llgen.cases.packed import CASES, COL8, MMA_B, ROW4, ROW8, SHAPE, SWIZZLED, packed_plan
from llgen.core.errors import LlgenError
from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.plan.endpoint import plan_load, plan_store
from llgen.plan.packed import PackedPlan, pairing, quotient
from llgen.randlayout import random_pairs
from llgen.runtime import host
from llgen.runtime.check import CheckRuns, check_many
from llgen.runtime.endpointcheck import check_endpoint
from llgen.spec import parse_layout
from llgen.verify.packed import check_packed_endpoint, simulate_packed

REAL = [(src, dst, SHAPE, target, form) for _, src, dst, target, form in CASES]


def _plan(src, dst, shape, target, dtype="i4", **options):
    if shape == SHAPE:
        return packed_plan(src, dst, target, dtype, **options)
    a, b = (parse_layout(s, shape, 4) for s in (src, dst))
    return plan_conversion(a, b, dtype, target, **options)


@pytest.mark.parametrize("src,dst,shape,target,form", REAL)
def test_layouts_of_4_bit_kernels_simulate_exactly_by_every_path(src, dst, shape, target, form):
    plans = [_plan(src, dst, shape, target)]
    for path in ("shuffle", "shared"):
        try:
            plans.append(_plan(src, dst, shape, target, path=path))
        except LlgenError:
            pass  # the path cannot do this pair (data crosses warps)
    for p in plans:
        assert isinstance(p, PackedPlan) and p.form == form
        r = simulate_packed(p, seed=7)
        assert r.ok, (p.path, r.first_mismatch())


def test_random_pairs_simulate_exactly_in_both_forms():
    forms, paths, n = set(), set(), 0
    for pair in random_pairs(160, 11, "sm_90"):
        if min(pair.a.in_bits("register"), pair.b.in_bits("register")) == 0:
            continue
        p = plan_conversion(pair.a, pair.b, "u4", pair.target)
        r = simulate_packed(p, seed=n)
        assert r.ok, (pair.label, p.form, p.path, r.first_mismatch())
        forms.add(p.form)
        paths.add(p.path)
        n += 1
    assert n >= 60 and forms == {"pairs", "nibbles"} and {"shared", "shuffle"} <= paths


def test_the_simulator_sees_bytes_whose_nibbles_pair_differently():
    """A pairs plan built on a destination that pairs along another bit must fail: the test can fail."""
    from llgen.core.layout import LinearLayout

    good = _plan(ROW8, ROW4, (64, 64), "sm_90")
    a, b = good.src, good.dst
    bases = b.to_dict()["bases"]
    bases["register"][0], bases["register"][1] = bases["register"][1], bases["register"][0]
    swapped = LinearLayout.from_bases(bases, b.to_dict()["out_dims"])  # pairs along dim1 bit 1
    bytes_plan = plan_conversion(quotient(a, good.pair), quotient(swapped, pairing(swapped)), "i8", "sm_90")
    forged = PackedPlan(a, swapped, good.dtype, "pairs", good.pair, bytes_plan)
    assert simulate_packed(good).ok and not simulate_packed(forged).ok


def test_pairing_needs_one_tensor_bit_no_other_basis_flips():
    lay = parse_layout(ROW8, (64, 64), 4)
    assert pairing(lay).bit == 0 and lay.out_names[pairing(lay).dim] == "dim1"
    q = quotient(lay, pairing(lay))
    assert q.shape == (64, 32) and q.in_bits("register") == lay.in_bits("register") - 1
    from llgen.core.layout import LinearLayout

    flips = LinearLayout.from_bases(
        {"register": [[0, 1], [0, 3]], "lane": [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], "warp": []}, {"dim0": 4, "dim1": 32}
    )
    assert pairing(flips) is None  # register bit 1 flips the pair bit too: no fixed low nibble


@pytest.mark.parametrize("dist", [ROW8, ROW4])
def test_endpoints_store_and_load_whole_bytes(dist):
    d = parse_layout(dist, (64, 64), 4)
    s = parse_layout(SWIZZLED, (64, 64), 4)  # an offset map over the 4-bit elements
    for p in (plan_store(d, s, "e2m1"), plan_load(s, d, "e2m1")):
        assert p.kind == "packed" and p.inner.dtype.name == "i8" and p.inner.dist.shape == (64, 32)
        assert check_packed_endpoint(p) == []
        assert check_endpoint(p.inner, name=f"packed_{p.inner.direction}", cpu=True, seed=3) == []


@pytest.mark.parametrize("dist,axis", [(COL8, 0), (MMA_B, 0), (ROW8, 1)])
def test_a_shared_encoding_describes_the_packed_bytes_as_triton_holds_them(dist, axis):
    """Triton keeps fp4 in shared memory as an i8 tensor: an encoding given with a 4-bit dtype lays out those bytes,
    the registers' pairing dim halved (NVMMA over K/2 x N for a K-packed weight)."""
    from llgen.spec import parse_encoding

    d = parse_layout(dist, SHAPE, 4)
    byte_shape = tuple(n // 2 if i == axis else n for i, n in enumerate(SHAPE))
    enc = parse_encoding(
        "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8}>", byte_shape, 4, 32
    )
    for p in (plan_store(d, enc, "e2m1"), plan_load(enc, d, "e2m1")):
        assert p.inner.dist.shape == byte_shape and p.inner.shared == enc.to_linear(byte_shape)
        assert check_packed_endpoint(p) == []
        assert check_endpoint(p.inner, name=f"nvmma_{p.inner.direction}", cpu=True, seed=4) == []


def test_endpoints_whose_bytes_pair_differently_are_refused():
    d = parse_layout(COL8, (64, 64), 4)
    s = parse_layout(SWIZZLED, (64, 64), 4)
    with pytest.raises(LlgenError, match=r"registers' bit 0 \(dim0 bit 0\) and the shared layout's offset bit 0 \(dim1 bit 0\)"):
        plan_store(d, s, "i4")


def test_one_element_a_thread_cannot_hold_a_4_bit_byte():
    one = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    with pytest.raises(LlgenError, match="holds one element a thread"):
        _plan(one, ROW4, (16, 8), "sm_90")


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_emitted_text_runs_exactly_on_cpu_threads(target):
    items = []
    for i, (src, dst, shape, tgt, _) in enumerate(REAL):
        if (tgt == "gfx942") != (target == "gfx942"):
            continue
        items.append((f"packed{i}", _plan(src, dst, shape, target)))
        if target == "sm_90":
            items.append((f"packed{i}_shared", _plan(src, dst, shape, target, path="shared")))
    results = check_many(items, how=CheckRuns(tiles=4, runs=1, seed=5), compiler=host.compile, sms=1)
    bad = [f"{r.label}: {r.error or ''} {r.first_bad or ''} {r.first_bad_tile or ''}" for r in results if not r.ok]
    assert results and not bad, bad


def test_headers_say_the_packing_and_compile_to_sass_without_local_memory():
    from llgen.runtime.toolchain.cuda import compile_cuda, disassemble_cubin

    for src, dst, form in ((COL8, MMA_B, "pairs"), (ROW8, MMA_B, "nibbles")):
        p = _plan(src, dst, (64, 64), "sm_90")
        text = emit(p, "header", "h4")
        assert "convert_packed" in text and ("nibbles move" in text) == (form == "nibbles")
        assert re.search(r"element 2i in the low nibble", text)
        use = (
            text
            + """
extern "C" __global__ void use(const unsigned char* in, unsigned char* out) {
  __shared__ __align__(16) unsigned char smem[llgen::h4::kSmemDecl];
  unsigned char a[llgen::h4::kInBytes], b[llgen::h4::kOutBytes];
  for (int i = 0; i < llgen::h4::kInBytes; ++i) a[i] = in[threadIdx.x * llgen::h4::kInBytes + i];
  llgen::h4::convert_packed(a, b, smem);
  for (int i = 0; i < llgen::h4::kOutBytes; ++i) out[threadIdx.x * llgen::h4::kOutBytes + i] = b[i];
}
"""
        )
        (k,) = disassemble_cubin(compile_cuda(use, "sm_90", ("-std=c++17",))).values()
        assert k.opcodes and k.local == 0 and k.count("LDL") == k.count("STL") == 0, form
        assert k.count("STS") and k.count("LDS"), form  # the shared path's bytes, not a folded-away kernel


def test_cli_plans_emits_and_explains_4_bit_types(tmp_path):
    r = invoke("plan", "--src", COL8, "--dst", MMA_B, "--shape", "64x64", "--dtype", "fp4", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["packing"] == {
        "form": "pairs",
        "pairs_along": {"dim": "dim0", "axis": 0, "bit": 0},
        "shape": [64, 64],
        "byte_shape": [32, 64],
    }
    r = invoke(
        "emit",
        "--src",
        ROW8,
        "--dst",
        MMA_B,
        "--shape",
        "64x64",
        "--dtype",
        "int4",
        "--form",
        "header",
        "-o",
        str(tmp_path) + "/",
    )
    assert r.exit_code == 0, r.output
    (header,) = tmp_path.glob("cvt_*_i4_64x64_*.cuh")
    assert "nibbles move" in header.read_text()
    one = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    r = invoke("plan", "--src", one, "--dst", SWIZZLED, "--shape", "64x64", "--dtype", "i4")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "registers pair along dim1 bit 3" in r.output


def test_a_4_bit_tile_header_is_named_by_its_elements_and_show_draws_its_bytes(tmp_path):
    r = invoke("emit", "--src", ROW8, "--dst", SWIZZLED, "--then", ROW4, "--shape", "64x64", "--dtype", "u4")
    assert r.exit_code == 0, r.output
    assert "tile_blocked2blocked_u4_64x64_" in r.output and "two u4 elements each" in r.output
    assert "upcast_bf16(const unsigned char (&in)[kOutRegs]" in r.output  # the load's registers, B, upcast
    r = invoke("show", "--src", ROW8, "--dst", MMA_B, "--shape", "64x64", "--dtype", "i4", "-o", str(tmp_path / "x.svg"))
    assert r.exit_code == 0 and (tmp_path / "x.svg").stat().st_size > 0


def test_4_bit_gathers_move_nibbles_exactly_on_cpu_threads():
    """A gather picks single elements: the nibbles widen, the 8-bit gather moves them (by shuffles or shared memory),
    they pack again; its check kernels gather a byte's low and high nibbles as two 4-bit gathers."""
    from llgen.plan.gather import plan_gather
    from llgen.runtime.check import check_gather

    seen = set()
    for axis in (0, 1):
        for path in (None, "shared"):
            p = plan_gather(parse_layout(ROW8, SHAPE, 4), axis, "u4", "sm_90", path=path)
            assert p.kind == "packed" and p.form == "nibbles" and p.inner.kind == "gather"
            name = f"g4_{axis}_{path}"
            r = check_gather(host.compile(emit(p, "kernel", name), "sm_90"), p.inner, name, tiles=4, seed=axis)
            assert r.ok, (name, r.error, r.first_bad, r.first_bad_tile)
            seen.add(p.path)
    assert seen == {"shuffle", "shared"}
    assert "gather_packed" in emit(p, "header", "g4")


def test_endpoint_bench_of_4_bit_types_says_what_to_do():
    r = invoke("bench", "--src", ROW8, "--dst", SWIZZLED, "--shape", "64x64", "--dtype", "i4")
    assert r.exit_code == 2 and "bytes.distributed, bytes.shared" in r.output


def test_the_upcast_check_sees_a_wrong_decode(monkeypatch):
    import llgen.runtime.packed_check as C

    real = C.decode
    monkeypatch.setattr(C, "decode", lambda x, dt, out: real(x, "i4" if dt == "u4" else dt, out))
    r = C.run_upcast(packed_plan(COL8, MMA_B, "sm_90", "u4"), lambda text: host.compile(text, "sm_90"))
    assert not r.ok and "upcast_f16" in r.detail


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_a_4_bit_layout_is_what_triton_infers_for_fp4_to_fp_of_its_bytes(case):
    """B's upcast registers are in B: the layout Triton 3.6's fp4_to_fp infers from the byte tensor's layout."""
    from llgen.shapeops import TensorLayout

    _, src, dst, target, _ = case
    for text in (src, dst):
        lay = parse_layout(text, SHAPE, 4, 64 if target.startswith("gfx") else 32)
        p = pairing(lay)
        assert TensorLayout.of(quotient(lay, p)).fp4_to_fp(p.dim).layout == lay


def test_swizzle_and_layout_take_4_bit_types():
    r = invoke("swizzle", "--src", COL8, "--dst", MMA_B, "--shape", "64x64", "--dtype", "i4")
    assert r.exit_code == 0 and r.output.startswith("i4 is packed two to a byte") and "optimal" in r.output, r.output
    r = invoke("swizzle", "--src", COL8, "--dst", MMA_B, "--shape", "64x64", "--dtype", "i4", "--family", "nvmma")
    assert r.exit_code == 2 and "tile of i4 is held as bytes" in r.output
    r = invoke("layout", MMA_B, "--shape", "64x64", "--dtype", "e2m1")
    assert r.exit_code == 0 and "#ttg.linear" in r.output


def test_4_bit_endpoints_over_differently_padded_buffers_get_different_names():
    from llgen.emit import default_name
    from llgen.spec import parse_encoding

    d = parse_layout(ROW8, SHAPE, 4)
    names = set()
    for pad in ("[32:+4]", "[32:+8]", "[64:+4]"):
        enc = parse_encoding(f"#ttg.padded_shared<{pad} {{order = [1, 0], shape = [64, 32]}}>", (64, 32), 4, 32)
        names.add(default_name(plan_store(d, enc, "e2m1")))
    assert len(names) == 3


def test_random_endpoints_lifted_to_4_bits_plan_their_own_bytes():
    """Every random endpoint's byte layouts, lifted to a 4-bit tensor (a register bit 0 pairing neighbours along the
    last dim): the 4-bit store and load plan exactly those bytes, and every register lands on its nibble."""
    from llgen.plan.packed import Pairing, lift
    from llgen.runtime.endpoint_random import random_cases

    n = 0
    for case in random_cases(40, 3):
        store = case.store
        if store.target.lang != "cuda" or store.dtype.bits != 8:
            continue
        d, s = store.dist, store.shared
        p = Pairing(len(d.outs) - 1, 0)
        d4, s4 = lift(d, p, "register"), lift(s, p)
        for planned in (plan_store(d4, s4, "i4", "sm_90"), plan_load(s4, d4, "i4", "sm_90")):
            assert planned.inner.dist == d and planned.inner.shared == s, case.label
            assert check_packed_endpoint(planned) == [], case.label
        n += 1
    assert n >= 5


def test_a_4_bit_plans_json_replays_from_the_json_alone():
    from llgen.verify.replay import ReplayError, replay

    for src, dst in ((COL8, MMA_B), (ROW8, MMA_B)):
        doc = json.loads(json.dumps(_plan(src, dst, SHAPE, "sm_90").to_json()))
        replay(doc)
        doc["packing"]["byte_shape"] = [64, 64] if doc["packing"]["form"] == "pairs" else [32, 64]
        with pytest.raises(ReplayError, match="the bytes' tensor"):
            replay(doc)
