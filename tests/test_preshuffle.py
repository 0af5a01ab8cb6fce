"""llgen preshuffle: G derived for every operand family, the references' maps derived bit for bit (Marlin's 4-bit B,
triton_kernels' Hopper mxfp4 values) or with fewer loads (its Hopper scales), the emitted loader, upcasts and
repack run exactly on the CPU shim, and the loader's machine code loads 16-byte vectors with no local memory."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from click.testing import CliRunner

from llgen.cases.preshuffle import FAMILIES, SINGLE_WARP_B, load_cases, plan_family
from llgen.cli.main import main
from llgen.core.dtypes import dtype
from llgen.core.layout import _flatten
from llgen.plan.loader import Loader
from llgen.plan.preshuffle import PreshufflePlan, _memory, scale_layout
from llgen.spec import parse_layout

WGMMA_A8 = (
    "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], "
    "instrShape = [16, 64, 16]}>, kWidth = 2}>"
)


# ---------------------------------------------------------------------- the references, reimplemented from their sources
def _bases(buf: np.ndarray, ncols: int) -> list[list[int]]:
    """The (row, col) each offset bit of a buffer holds (buf[o] = row * ncols + col), checked linear over F2."""
    buf = np.asarray(buf).ravel()
    n = buf.size.bit_length() - 1
    bases = [[int(buf[1 << b] // ncols), int(buf[1 << b] % ncols)] for b in range(n)]
    o = np.arange(buf.size)
    flat = np.zeros(buf.size, dtype=np.int64)
    for b, (r, c) in enumerate(bases):
        flat ^= ((o >> b) & 1) * (r * ncols + c)
    assert np.array_equal(flat, buf), "the reference's map is not linear"
    return bases


def marlin_pack(w: np.ndarray) -> np.ndarray:
    """IST-DASLab/marlin's Layer.pack index shuffle (marlin/__init__.py, _get_perms), in nibble units, w being K x N."""
    perm = []
    for i in range(32):
        perm1 = []
        col = i // 4
        for block in (0, 1):
            for row in (2 * (i % 4), 2 * (i % 4) + 1, 2 * (i % 4 + 4), 2 * (i % 4 + 4) + 1):
                perm1.append(16 * row + col + 8 * block)
        for j in range(4):
            perm.extend(p + 256 * j for p in perm1)
    perm = np.array(perm).reshape(-1, 8)[:, [0, 2, 4, 6, 1, 3, 5, 7]].ravel()
    k, n = w.shape
    res = w.reshape(k // 16, 16, n // 16, 16).transpose(0, 2, 1, 3).reshape(k // 16, n * 16)
    return res.reshape(-1, perm.size)[:, perm].ravel()


def hopper_value_pack(w: np.ndarray) -> np.ndarray:
    """triton_kernels' HopperMXValueLayout index shuffle (mma_version 3, before its per-word bit twiddle), in nibble
    units, w being K x N: bytes pack along K, the weight is transposed to N x K/2 and permuted."""
    k, n = w.shape
    b = w.reshape(k // 2, 2, n).transpose(0, 2, 1).transpose(1, 0, 2)  # (N, K/2, 2 nibbles)
    m, kb = b.shape[:2]
    sizes = []
    for i, factors in enumerate(zip((1, 4), (2, 2), (4, 4), (2, 1), (1, 1), strict=True)):
        sizes.append((m, kb)[i] // int(np.prod(factors)))
        sizes += list(factors)
    x = b.reshape(*sizes, 2).transpose(0, 3, 6, 10, 4, 9, 7, 1, 8, 2, 5, 11, 12)
    return x.reshape(-1)


def hopper_scale_pack(s: np.ndarray, warps: int) -> np.ndarray:
    """triton_kernels' HopperMXScaleLayout shuffle of S (K/32 x N), in bytes."""
    ks, n = s.shape
    x = s.T.reshape(n // (32 * warps), 2, warps, 2, 8, ks // 2, 2).transpose(0, 2, 5, 1, 4, 6, 3)
    return x.reshape(-1)


def _ids(rows: int, cols: int) -> np.ndarray:
    return np.arange(rows * cols).reshape(rows, cols)


def test_marlin_4bit_b_layout_is_derived_bit_for_bit():
    """Marlin's m16n8k16 B: the fast nibble order of one warp's 16x64 tile is G, offset bit for offset bit."""
    plan = PreshufflePlan(parse_layout(SINGLE_WARP_B, (16, 64), 1), (16, 64), dtype("i4"), 0, "fast")
    assert plan.memory.to_dict()["bases"]["offset"] == _bases(marlin_pack(_ids(16, 64)), 64)
    assert plan.loader.traffic()["vector_bytes"] == 16


def test_triton_hopper_mxfp4_value_layout_is_derived_bit_for_bit():
    """triton_kernels' Hopper value layout is W^T as wgmma's A from registers: G of that operand (4 warps, 64 x 64,
    e2m1) is its map with the weight's (k, n) read as the operand's (m, k)."""
    plan = plan_family("wgmmaA", "e2m1", tiles=1)
    theirs = [[n, k] for k, n in _bases(hopper_value_pack(_ids(64, 64)), 64)]
    assert plan.memory.to_dict()["bases"]["offset"] == theirs


def test_triton_hopper_scale_layout_needs_twice_the_loads_of_ours():
    """The scales of wgmma A (8 warps, 256 rows, K 64, one e8m0 per 32): ours load 8 bytes a thread once, theirs 4
    bytes twice, the same sectors a warp."""
    op = parse_layout(WGMMA_A8, (256, 64), 8)
    plan = PreshufflePlan(scale_layout(op, 1, 32), (256, 2), dtype("e8m0"), 1)
    cols = [_flatten((n, k), plan.operand.outs) for k, n in _bases(hopper_scale_pack(_ids(2, 256), 8), 256)]
    theirs = Loader(plan.operand, _memory(cols, (256, 2)), plan.dtype).traffic()
    ours = plan.loader.traffic()
    assert (ours["loads_per_thread"], ours["vector_bytes"]) == (1, 8)
    assert (theirs["loads_per_thread"], theirs["vector_bytes"]) == (2, 4)
    assert ours["sectors_per_load"] == 2 * theirs["sectors_per_load"] == ours["floor_sectors_per_load"]


# ---------------------------------------------------------------------- G for every family
@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("dt", ["e2m1", "i4", "i8", "f8e4m3", "f16", "bf16"])
def test_g_gives_every_thread_16_byte_vectors_and_every_warp_whole_lines(family, dt):
    plan = plan_family(family, dt, tiles=2)
    t = plan.loader.traffic()
    held = plan.loader.registers * plan.dtype.bits // 8
    assert t["vector_bytes"] == min(16, held)
    assert t["sectors_per_load"] == t["floor_sectors_per_load"]
    lanes = plan.operand.in_size("lane")
    assert t["lines_per_load"] * 128 == lanes * t["vector_bytes"]
    assert plan.memory.is_memory_layout()


def test_the_k_permutation_loads_16_bytes_from_the_weight_as_it_lies_once_k_is_wide_enough():
    op = parse_layout(SINGLE_WARP_B, (128, 16), 1)
    plan = PreshufflePlan(op, (128, 16), dtype("i4"), 0)
    assert plan.k_loader.vector_bytes == 16
    sigma = plan.k_permutation()
    assert sorted(sigma) == list(range(128)) and sigma != list(range(128))
    narrow = PreshufflePlan(parse_layout(SINGLE_WARP_B, (16, 64), 1), (16, 64), dtype("i4"), 0)
    assert narrow.k_loader.vector_bytes == 2  # one k16 step: 4 nibbles of K a thread


# ---------------------------------------------------------------------- the emitted text, run on the CPU
def _cpu_cases():
    cases = load_cases(tuple(FAMILIES))
    keep = {"mma2B", "wgmmaA"}
    return [c for c in cases if c[0].split("/")[0] in keep or c[0].split("/")[1] in ("e2m1", "i8")]


@pytest.mark.parametrize("label,plan,memory", _cpu_cases(), ids=[c[0] for c in _cpu_cases()])
def test_repack_load_and_upcast_run_exactly_on_the_cpu(label, plan, memory):
    from llgen.runtime import host
    from llgen.runtime.preshuffle_check import run_load

    target = "gfx942" if label.startswith("mfma") else "sm_90"
    result = run_load(plan, memory, functools.partial(host.compile, target=target))
    assert result.ok, result.detail


def _random_operands(seed: int, n: int) -> list[tuple[str, object]]:
    """Real layouts of every family from the random pair generator (broadcast register bits, odd orders), as
    operands of a pre-shuffle: the class of r1_31, where a zero register basis inside the vector's span put i8's fast
    byte order on the wrong registers in the check."""
    from llgen.randlayout.pairs import random_pairs

    return [(f"{p.label}/{side}", lay) for p in random_pairs(n, seed, "sm_90") for side, lay in (("a", p.a), ("b", p.b))]


@pytest.mark.parametrize("label,lay", _random_operands(1, 32)[-16:], ids=lambda x: x if isinstance(x, str) else "")
def test_random_operands_load_and_upcast_exactly_by_both_decodes(label, lay):
    from llgen.core.errors import LlgenError
    from llgen.runtime import host
    from llgen.runtime.preshuffle_check import run_load

    shape = tuple(2 * s for s in lay.shape)
    for dt in ("i8", "i4"):
        for decode in ("plain", "fast"):
            try:
                plan = PreshufflePlan(lay, shape, dtype(dt), None, decode)
                result = run_load(plan, "g", functools.partial(host.compile, target="sm_90"))
            except LlgenError:  # a layout the loader cannot serve says so in a sentence
                continue
            assert result.ok, (label, dt, decode, result.detail)


def test_the_loader_compiles_to_16_byte_loads_and_no_local_memory():
    from llgen.runtime.preshuffle_check import mma_source
    from llgen.runtime.toolchain import compile_cuda, disassemble

    op = parse_layout(SINGLE_WARP_B, (128, 16), 1)
    for dt, decode, memory, out in (("i4", "fast", "g", "f16"), ("e2m1", "plain", "k", "bf16"), ("f16", "plain", "g", "f16")):
        plan = PreshufflePlan(op, (128, 16), dtype(dt), 0, decode)
        (sass,) = disassemble(compile_cuda(mma_source(plan, memory, out), "sm_90")).values()
        loads = plan.loader.registers * plan.dtype.bits // 128
        assert sass.opcodes["LDG.E.128.CONSTANT"] == loads, (dt, dict(sass.opcodes))
        assert sass.local == 0 and sass.opcodes["HMMA.16816.F32" + (".BF16" if out == "bf16" else "")] == 16


# ---------------------------------------------------------------------- the command
def test_json_prints_g_as_llgen_layout_prints_a_memory_layout():
    r = CliRunner().invoke(
        main,
        [
            "preshuffle",
            "--dst",
            SINGLE_WARP_B,
            "--shape",
            "32x128",
            "--tile",
            "16x64",
            "--dtype",
            "i4",
            "--decode",
            "fast",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["out_dims"] == {"dim0": 32, "dim1": 128} and got["bases"]["block"] == []
    assert got["bases"]["offset"][:10] == _bases(marlin_pack(_ids(16, 64)), 64)


def test_the_command_writes_a_header_a_repack_kernel_and_a_numpy_repack(tmp_path):
    r = CliRunner().invoke(
        main, ["preshuffle", "--dst", SINGLE_WARP_B, "--shape", "128x16", "--dtype", "e2m1", "-o", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".cu", ".cuh", ".py"]
    assert "vector" in r.output and "floor" in r.output


def test_scale_block_prints_the_scales_g_and_writes_both_loaders(tmp_path):
    """--scale-block: the scales' G on stdout (and --json), and -o writes the scales' loader beside the values',
    whose header multiplies by them: scale_bf16, and for e2m1 the scaled upcast_bf16."""
    base = ["preshuffle", "--dst", SINGLE_WARP_B, "--shape", "128x16", "--dtype", "e2m1", "--scale-block", "32"]
    r = CliRunner().invoke(main, [*base, "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["out_dims"] == {"dim0": 4, "dim1": 16}, r.output
    r = CliRunner().invoke(main, [*base, "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    headers = {p.name.split("_")[2]: p.read_text() for p in tmp_path.glob("*.cuh")}
    assert sorted(headers) == ["e2m1", "e8m0"] and len(list(tmp_path.iterdir())) == 6
    assert "void scale_bf16(" in headers["e2m1"] and "const unsigned (&sw)[kScaleWords]" in headers["e2m1"]
    r = CliRunner().invoke(main, [*base, "--memory", "k", "-o", str(tmp_path / "k")])  # the values K-contiguous
    assert r.exit_code == 0, r.output
    headers = {p.name.split("_")[2]: p.read_text() for p in (tmp_path / "k").glob("*.cuh")}
    assert "pre-shuffled memory G" in headers["e8m0"] and "K-contiguous store" in headers["e2m1"]


def test_the_scaled_e2m1_upcast_takes_one_multiply_a_pair_where_the_scales_allow():
    """upcast_bf16_fit (every scale at most 128) multiplies each pair once, rebias and scale in one; the exact
    upcast_bf16(w, sw, h) twice, with no branch. Both compile alone for sm_90 and gfx942, with no local memory;
    run_load checks both on the CPU (the mx cases above)."""
    from llgen.emit import preshuffle as E
    from llgen.runtime.toolchain import compile_cuda, compile_hip, disassemble

    plan = plan_family("mma2B", "e2m1", "fast", scale_block=32)
    pairs = plan.loader.registers // 2
    for call, per_pair in (("upcast_bf16_fit", 1), ("upcast_bf16", 2)):
        src = (
            'extern "C" __global__ void k(const unsigned* x, unsigned* y) {\n'
            "  unsigned w[llgen::t::kWords], sw[llgen::t::kScaleWords], h[llgen::t::kRegisters / 2];\n"
            "  for (int j = 0; j < llgen::t::kWords; ++j) w[j] = x[threadIdx.x * 16 + j];\n"
            "  for (int j = 0; j < llgen::t::kScaleWords; ++j) sw[j] = x[4096 + threadIdx.x * 4 + j];\n"
            f"  llgen::t::{call}(w, sw, h);\n"
            "  for (int j = 0; j < llgen::t::kRegisters / 2; ++j) y[threadIdx.x * 64 + j] = h[j];\n}\n"
        )
        (k,) = disassemble(compile_cuda(E.header(plan, "t") + src, "sm_90")).values()
        multiplies = sum(n for op, n in k.opcodes.items() if op.startswith(("HMUL2", "HFMA2")) and "BF16" in op)
        assert not k.uses_local_memory and multiplies == per_pair * pairs and not k.count("BRA") > 1, (call, dict(k.opcodes))
        compile_hip(E.header(plan_family("mfmaB", "e2m1", "fast", scale_block=32), "t") + src, "gfx942")


@pytest.mark.parametrize(
    "args,says",
    [
        (["--tile", "48x16"], "power of two"),
        (["--tile", "256x16"], "does not tile"),
        (["--dtype", "f16", "--decode", "fast"], "is neither"),
        (["--scale-block", "32", "--dst", "blocked"], "dot operand"),
        (["--dst", "blocked", "--memory", "k", "--json"], "no K permutation"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(args, says):
    base = ["preshuffle", "--dst", SINGLE_WARP_B, "--shape", "128x16", "--dtype", "i4"]
    r = CliRunner().invoke(main, base + args)
    assert r.exit_code == 2, r.output
    assert says in r.output and "Traceback" not in r.output


def test_wgmma_micro_kernels_take_a_from_the_loaders_registers():
    """wgmma's register A straight from the pre-shuffled loader (or the K-contiguous store): one HGMMA a k-step, no
    local memory, for sm_90a; bench/preshuffle_gpu.py runs them against NumPy."""
    from llgen.cases.preshuffle import wgmma_cases
    from llgen.runtime.preshuffle_check import wgmma_source
    from llgen.runtime.toolchain.cuda import compile_cuda, disassemble_cubin

    cases = wgmma_cases()
    assert {m for _, _, m in cases} == {"g", "k"} and {p.dtype.name for _, p, _ in cases} == {"i4", "e2m1", "bf16"}
    for label, plan, memory in cases:
        (k,) = disassemble_cubin(compile_cuda(wgmma_source(plan, memory), "sm_90a", ("-std=c++17",))).values()
        assert k.count("HGMMA") == plan.tile[1] // 16 and k.local == 0, label


@pytest.mark.parametrize("dt", ["i8", "f8e4m3"])
def test_8bit_loader_headers_carry_upcasts_that_compile_alone_and_a_wrong_one_is_seen(dt, monkeypatch):
    """The i8 and f8e4m3 loader headers carry upcast_f16/bf16: they compile alone for sm_90 (NVRTC) and gfx942 (HIP
    through clang), and run_load (exact on the CPU above) sees a wrong decode."""
    import llgen.emit.preshuffle as E
    from llgen.runtime import host
    from llgen.runtime.preshuffle_check import run_load
    from llgen.runtime.toolchain import compile_cuda, compile_hip, disassemble

    plan = plan_family("mma2B", dt)
    call = (
        'extern "C" __global__ void k(const unsigned char* x, unsigned* y) {\n'
        "  unsigned w[llgen::t::kWords], h[llgen::t::kRegisters / 2];\n"
        "  llgen::t::load(x, 0u, 0u, w);\n  llgen::t::upcast_bf16(w, h);\n"
        "  for (int j = 0; j < llgen::t::kRegisters / 2; ++j) y[threadIdx.x * 64 + j] = h[j];\n}\n"
    )
    (k,) = disassemble(compile_cuda(E.header(plan, "t") + call, "sm_90")).values()
    assert not k.uses_local_memory
    compile_hip(E.header(plan_family("mfmaB", dt), "t") + call, "gfx942")
    orig = E.header
    wrong = ("0xFF80FF80u", "0xFF00FF00u") if dt == "i8" else ("(e + 120u) << 7", "(e + 121u) << 7")
    monkeypatch.setattr(E, "header", lambda *a, **kw: orig(*a, **kw).replace(*wrong))
    r = run_load(plan, "g", functools.partial(host.compile, target="sm_90"))
    assert not r.ok and "upcast_bf16" in r.detail
