"""The mixed suite's LOOP kernels (llgen.cases.mixed, llgen.runtime.bench.mixed) without a GPU: llgen's two paths run on
CPU threads and equal NumPy step by step, Triton's path compiles with the layouts it is given, and the plans the
timings rest on are at their floors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from llgen.cases.mixed import (
    CASES,
    N,
    plain_image,
    plain_plan,
    plain_source,
    preshuffle_plan,
    preshuffled_source,
    staged,
    tiles,
    upcast_source,
)
from llgen.runtime import host
from llgen.runtime.bench.mixed import expected_words, loop_tiles, preshuffled_image

SMALL = [c for c in CASES if c.k == 64] + [c for c in CASES if c.out == "f16"][:1]  # every type, and an f16 upcast
MX = [c for c in CASES if c.mx and c.k == 128]  # mxfp4: the upcast times its e8m0 scales (LOOP form)


def _run(case, source, image, fn, x, steps):
    mod = host.compile(source(case), "sm_90")
    want = expected_words(case, loop_tiles(x, steps))
    y = mod.filled(want.size, np.uint32, 0xDEADBEEF)
    mod.launch(fn, 1, 128, (mod.to_device(image(case, x)), y, np.int32(steps), np.int32(1)))
    mod.synchronize()
    return mod.to_host(y).reshape(want.shape), want


@pytest.mark.parametrize("case", SMALL + MX, ids=lambda c: c.id)
def test_llgen_paths_equal_numpy_step_by_step(case):
    x = staged(case, 3)
    paths = [(plain_source, plain_image, "mixed_plain"), (preshuffled_source, preshuffled_image, "mixed_g")]
    if not case.kmajor:  # the chain of swaps (llgen.plan.chain), measured as its own path
        paths.append((lambda c: plain_source(c, "two_step"), plain_image, "mixed_plain"))
    for source, image, fn in paths:
        for steps in (1, 2, 3):
            got, want = _run(case, source, image, fn, x, steps)
            assert np.array_equal(got, want), (case.id, fn, steps)


def test_mx_scales_above_128_take_the_exact_loop_and_stay_exact():
    """One scale above 128 (or 0, a subnormal) in a CTA's stages sends path 3 and the upcast alone to their exact
    loop (decided once, before the loop); both paths stay exact. The suite's own scales (100..128) take the
    one-multiply loop, which the test above checks."""
    case = MX[0]
    tiles_, scales = staged(case, 3)
    scales = scales.copy()
    scales[0, 0, 0], scales[1, -1, -1], scales[1, 0, 0] = 200, 129, 0
    for source, image, fn in ((preshuffled_source, preshuffled_image, "mixed_g"), (plain_source, plain_image, "mixed_plain")):
        got, want = _run(case, source, image, fn, (tiles_, scales), 2)
        assert np.array_equal(got, want), fn
    assert "if (fits) {" in preshuffled_source(case) and "if (scales_fit(sw)) {" in upcast_source(case)


def test_mx_scales_in_the_wrong_order_are_seen():
    """An mx case whose scales lie in the buffer row-major where path 3 reads them in G: a wrong word shows."""
    case = MX[0]
    x = staged(case, 3)

    def wrong(c, t):
        g = preshuffled_image(c, t)
        return np.concatenate([g[: -2 * c.scale_bytes], t[1].astype(np.uint8).reshape(-1)])

    got, want = _run(case, preshuffled_source, wrong, "mixed_g", x, 1)
    assert not np.array_equal(got, want)


def test_a_buffer_in_the_wrong_order_is_seen():
    case = SMALL[0]
    x = tiles(case, 3)
    got, want = _run(case, preshuffled_source, lambda c, t: plain_image(c, t), "mixed_g", x, 1)
    assert not np.array_equal(got, want)


def test_triton_path_compiles_with_its_own_dot_operand_and_nvmma_buffer():
    pytest.importorskip("triton")
    from llgen.runtime.gluon_mixed import compile_offline

    for case in (c for c in SMALL if c.dtype == "e2m1"):
        ptx = compile_offline(case).asm["ptx"]
        if case.kmajor:  # K-contiguous bytes: Triton reads them with ldmatrix
            assert "ldmatrix" in ptx and not re.search(r"ld\.shared", ptx)
        else:  # N-contiguous: byte by byte
            assert re.search(r"ld\.shared\.u8|ld\.shared\.b8", ptx), case.id


@pytest.mark.parametrize("case", [c for c in CASES if c.kmajor], ids=lambda c: c.id)
def test_llgen_reads_at_the_shared_memory_floor(case):
    """Path 2 from Triton's K-major buffer and path 3 from G both read the tile at the wavefront (sector) floor."""
    plain = plain_plan(case)
    inner = plain.inner if plain.kind == "packed" else plain
    assert inner.wavefronts == inner.floor, (case.id, inner.explain())
    traffic = preshuffle_plan(case).loader.traffic()
    assert traffic["sectors_per_load"] == traffic["floor_sectors_per_load"] and traffic["vector_bytes"] == 16
    assert case.tile_bytes * (2 if case.packed else 1) == case.shape[0] * case.shape[1] == case.k * N


@pytest.mark.parametrize("case", SMALL, ids=lambda c: c.id)
def test_stream_kernels_equal_numpy_over_a_ctas_tiles(case):
    """STREAM's llgen kernels over three tiles: path 2 from dense row-major byte tiles (llgen's store endpoint into S,
    then its load), path 3 from G-ordered tiles."""
    from llgen.cases.mixed import byte_tiles, plain_stream_source, preshuffled_stream_source
    from llgen.runtime.bench.mixed import folded_words

    x = tiles(case, 2, 3)
    g = preshuffled_image(case, x)
    want = folded_words(expected_words(case, list(x)))
    paths = [
        ("mixed_plain_stream", plain_stream_source, byte_tiles(case, x).reshape(-1)),
        ("mixed_g_stream", preshuffled_stream_source, g),
    ]
    if not case.kmajor:
        paths.append(("mixed_plain_stream", lambda c: plain_stream_source(c, "two_step"), byte_tiles(case, x).reshape(-1)))
    for fn, source, img in paths:
        mod = host.compile(source(case), "sm_90")
        y = mod.filled(want.size, np.uint32, 0xDEADBEEF)
        mod.launch(fn, 1, 128, (mod.to_device(img), y, np.int32(3), np.int32(1)))
        mod.synchronize()
        assert np.array_equal(mod.to_host(y).reshape(want.shape), want), (case.id, fn)
        assert not np.array_equal(want, folded_words(expected_words(case, list(x))[:, ::-1])), case.id  # order shows


def test_triton_mx_path_broadcasts_its_scales_into_the_operand_layout_for_free():
    """Triton's mxfp4 LOOP: the scales' slice of P3, broadcast and reshaped, is the operand's layout again, so the
    one convert_layout in its TTGIR moves nothing (two barriers in all: the prologue's and none in the loop)."""
    pytest.importorskip("triton")
    from llgen.runtime.gluon_mixed import compile_offline

    for case in MX:
        k = compile_offline(case)
        assert k.asm["ttgir"].count("ttg.convert_layout") == 1 and "fp4_to_fp" in k.asm["ttgir"], case.id
        assert k.asm["ptx"].count("bar.sync") <= 2, case.id


def test_triton_stream_kernel_compiles():
    pytest.importorskip("triton")
    from llgen.runtime.gluon_mixed import compile_offline

    ptx = compile_offline(SMALL[0], stream=True).asm["ptx"]
    assert "ldmatrix" in ptx and "bar.sync" in ptx


@pytest.mark.parametrize("case", SMALL + MX[:1], ids=lambda c: c.id)
def test_each_step_loads_and_upcasts_in_the_loop(case):
    """Every LOOP kernel's step holds its loads and its upcast: the stage is ``i & mask`` and the upcast alone XORs its
    words with it, so ptxas cannot hoist them (it did, with a constant stage, and one kernel timed 2.9 ns a step)."""
    from llgen.cases.mixed import upcast_source
    from llgen.runtime.toolchain.cuda import compile_cuda, disassemble_cubin

    pairs = case.k * N // 128 // 2  # a thread's bf16 pairs a step
    for source in (plain_source, preshuffled_source, upcast_source):
        (k,) = disassemble_cubin(compile_cuda(source(case), "sm_90", ("-std=c++17",))).values()
        loop = k.loop()
        upcast = sum(n for op, n in loop.items() if op.split(".")[0] in ("HFMA2", "HADD2", "HMUL2", "F2FP"))
        loads = sum(n for op, n in loop.items() if op.startswith(("LDS", "LDSM")))
        assert not k.uses_local_memory and upcast >= pairs and k.registers <= 128, (case.id, source.__name__, dict(loop))
        assert loads > 0 or source is upcast_source, (case.id, source.__name__, dict(loop))


def test_bench_mixed_without_a_gpu_is_one_sentence(tmp_path):
    from helpers import invoke

    r = invoke("bench", "--suite", "mixed", "--shard", "1/3", "-o", str(tmp_path) + "/")
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    r = invoke("bench", "--suite", "mixed", "--shard", "4/3", "-o", str(tmp_path) + "/")
    assert r.exit_code == 2 and "shard 4/3 does not exist" in r.output
    r = invoke("bench", "--suite", "mixed", "--cases", "mma2B_i4_k64_kmajor,nope", "-o", str(tmp_path) + "/")
    assert r.exit_code == 2 and "nope is not a case of the mixed suite" in r.output, r.output


def test_bench_merge_joins_mixed_shards_in_suite_order(tmp_path):
    """`llgen bench merge` of the mixed suite's shards (committed H100 run 2): one report with every case once, in the
    suite's order, its table and STREAM rows; a mixed shard beside another suite's report is one sentence, exit 2."""
    from helpers import invoke

    from llgen.cases.mixed import CASES

    runs = sorted(Path(__file__).parent.parent.glob("bench/runs/2026-12-07-session21/run2-mixed-*-of-4.json"))
    r = invoke("bench", "merge", "-o", str(tmp_path), *map(str, reversed(runs)))
    assert r.exit_code == 0, r.output
    merged = json.loads((tmp_path / "mixed.json").read_text())
    ids = [c["id"] for c in merged["cases"]]
    assert ids == [c.id for c in CASES if c.id in set(ids)] and len(ids) == 40
    assert [s["id"] for s in merged["stream"]] == ids and len(merged["runs"]) == 4
    assert "| mma2B_i4_k128_kmajor | " in (tmp_path / "mixed.md").read_text()
    other = tmp_path / "wide.json"
    other.write_text(json.dumps({"info": {"device": "d"}, "measures": [], "cases": []}))
    r = invoke("bench", "merge", "-o", str(tmp_path / "x"), str(runs[0]), str(other))
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "mixed-suite reports only" in r.output, r.output


def test_i8_fast_byte_order_upcasts_in_two_integer_instructions_a_pair():
    """The pre-shuffled i8 loader stores a word's bytes 0,2,1,3 (--decode fast), so a bf16 pair is two LOP3 under the
    magic 0x43 and one subtraction, the odd pair moved down by a multiply-high on the FMA pipe: no PRMT, and 2
    integer instructions a pair where the PRMT form took 3 (73 against 57 in this loop). The loop's own integer work
    beside the upcast: the accumulating XOR a pair and the stage's XOR a word."""
    from llgen.runtime.bench.mixed import _ALU
    from llgen.runtime.toolchain.cuda import compile_cuda, disassemble_cubin

    case = next(c for c in CASES if c.id == "wgmmaA_i8_k64_kmajor")
    assert preshuffle_plan(case).decode == "fast"
    pairs = case.k * N // 128 // 2
    (k,) = disassemble_cubin(compile_cuda(upcast_source(case), "sm_90", ("-std=c++17",))).values()
    loop = k.loop()
    alu = sum(n for op, n in loop.items() if op.split(".")[0] in _ALU)
    assert not any(op.startswith("PRMT") for op in loop), dict(loop)
    assert alu <= (2 + 1 + 0.5) * pairs + 4, (alu, pairs, dict(loop))
