"""Triton's side of the endpoint suite (src/llgen/runtime/gluon_endpoint.py) on the CPU: for a spread of shared families, element
widths, ranks and register layouts, the Gluon LOOP is compiled for sm_90 without a GPU, and llgen's own TTGIR reader
(llgen.spec.module) reads its local_store/local_load ops back: the shared layout Triton allocated and both
register layouts must be ours, so llgen and Triton are timed on bit-identical layouts. The PTX's barriers are
counted: Triton's membar pass puts one before each store and load of the LOOP body. The widths of its ld/st.shared
are predicted, and a padding they would cross misaligned (a GPU fault in Triton 3.6) is refused before launch.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from helpers import one_sentence

from llgen.cases.suite_endpoint import EndpointSuiteCase, endpoint_suite
from llgen.core.dtypes import dtype as to_dtype
from llgen.core.dtypes import from_mlir
from llgen.core.errors import LlgenError
from llgen.layouts import PaddedShared
from llgen.spec import Where, parse_encoding, parse_layout
from llgen.spec.module import parse_ttgir

pytest.importorskip("triton")
gluon_endpoint = pytest.importorskip("llgen.runtime.gluon_endpoint")

LANES = 32


def case(id_: str, shared: str, p: str, q: str, shape=(64, 64), dtype: str = "f16", warps: int = 4) -> EndpointSuiteCase:
    size = to_dtype(dtype).bytes
    layout = lambda spec: parse_layout(spec, shape, warps, LANES, where=Where(dtype_bytes=size))  # noqa: E731
    return EndpointSuiteCase(id_, dtype, tuple(shape), warps, layout(p), shared, layout(q))


# a 32x32 buffer whose rows XOR the column's upper bits (a swizzle given by its bases)
SWIZZLED_BASES = "[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0]"
# a 32x32 buffer of whole rows in the order 0, 2, 4, ... 30, 1, 3, ... 31
ROW_PERMUTED = "[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [2, 0], [4, 0], [8, 0], [16, 0], [1, 0]"

CASES = [
    case("mma_f16_nvmma128", "nvmma:128", "mma", "blocked"),
    case("mma_bf16_nvmma64", "nvmma:64", "mma", "blocked", (64, 32), "bf16"),
    case("wgmma_f32_nvmma128", "nvmma:128", "wgmma", "blocked", (64, 64), "f32"),
    case("wgmma8_f16_nvmma128", "nvmma:128", "wgmma", "blocked", (128, 128), "f16", 8),
    case("opA_f16_nvmma32", "nvmma:32", "blocked", "dot:op=0", (64, 16)),
    case("opB_f16_nvmma128_transposed", "nvmma:128,transposed=true", "blocked", "dot:op=1", (64, 64)),
    case("opB_bf16_nvmma64_transposed", "nvmma:64,transposed=true", "blocked", "dot:op=1", (32, 64), "bf16"),
    case("opA_i8_nvmma0", "nvmma:0", "blocked", "dot:op=0", (64, 64), "i8"),
    case("opB_f8_nvmma128", "nvmma:128", "blocked", "dot:op=1", (64, 128), "f8e4m3"),
    case("T_f16_swizzled", "swizzled:vec=8,per_phase=1,max_phase=8,order=1x0", "blocked", "blocked:order=0x1"),
    case("T_f32_swizzled_colmajor", "swizzled:vec=4,per_phase=2,max_phase=4,order=0x1", "blocked", "mma", (32, 64), "f32"),
    case("T_f16_padded", "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>", "blocked", "blocked:order=0x1"),
    case(
        "T_f32_padded_rows",
        f"#ttg.padded_shared<[32:+4, 128:+1] {{offset = [{ROW_PERMUTED}], block = []}}>",
        "mma",
        "blocked:order=0x1",
        (32, 32),
        "f32",
    ),
    case(
        "opA_f16_shared_linear",
        f"#ttg.shared_linear<{{offset = [{SWIZZLED_BASES}]}}, alignment = 128>",
        "blocked",
        "dot:op=0",
        (32, 32),
    ),
    case(
        "batch_f16_swizzled_rank3",
        "swizzled:vec=8,per_phase=1,max_phase=8,order=2x1x0",
        "blocked",
        "blocked:order=1x2x0",
        (2, 64, 64),
    ),
]


@pytest.mark.parametrize("c", [*CASES, *endpoint_suite()], ids=lambda c: c.id)
def test_triton_allocates_our_shared_layout_and_moves_our_register_layouts(c):
    """Here and in the endpoint suite (llgen.cases.suite_endpoint): Triton takes each case on our layouts, in one CTA's shared
    memory, with one barrier before each store and load of the LOOP body."""
    compiled = gluon_endpoint.compile_offline(c)
    (module,) = parse_ttgir(compiled.asm["ttgir"])
    ops = module.local_ops
    assert [op.name for op in ops] == ["ttg.local_store", "ttg.local_load"] * 2, c.id
    size, ours = to_dtype(c.dtype).bytes, c.encoding()
    for op, register in zip(ops, (c.p, c.q, c.q, c.p), strict=True):
        assert (op.shape, from_mlir(op.element).name) == (c.shape, c.dtype), (c.id, op.line)
        shared, distributed = (op.src, op.dst) if op.path == "local_load" else (op.dst, op.src)
        theirs = parse_encoding(shared, c.shape, c.warps, LANES, where=Where(size, module.aliases))
        assert theirs == ours, (c.id, op.line)
        assert theirs.to_linear(c.shape) == ours.to_linear(c.shape), (c.id, op.line)
        assert parse_layout(distributed, c.shape, c.warps, LANES, where=Where(size, module.aliases)) == register, (c.id, op.line)
    assert compiled.asm["ptx"].count("bar.sync") == 4, c.id
    assert compiled.metadata.shared <= 227 * 1024, c.id


def test_amd_rotating_shared_has_no_gluon_layout():
    c = case("rotating", "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>", "blocked", "mma")
    with pytest.raises(
        LlgenError, match=r"^amd_rotating_shared has no Gluon layout in Triton 3\.6 .*shared_linear layout instead\.$"
    ):
        gluon_endpoint.TritonEndpointCase(c)


def test_a_shared_layout_too_small_for_its_swizzle_is_an_error():
    c = case("narrow", "nvmma:128", "blocked", "blocked", (64, 16))
    with pytest.raises(LlgenError, match=r"too small for a 128-byte swizzle"):
        gluon_endpoint.TritonEndpointCase(c)


def _access_bytes(ptx: str) -> set[int]:
    """The widths of the PTX's ld/st.shared, in bytes."""
    return {int(v or 1) * int(b) // 8 for v, b in re.findall(r"\b(?:ld|st)\.shared(?:\.v(\d))?\.b(\d+)", ptx)}


def test_triton_refuses_exactly_the_paddings_its_shared_accesses_cross():
    """On every padded case, the ld/st.shared widths Triton compiles are the ones vector_bytes predicts for P and Q;
    TritonEndpointCase refuses a case where a padding is not a whole number of the widest of them, and only there."""
    refused = set()
    for c in [*CASES, *endpoint_suite()]:
        enc = c.encoding()
        if not isinstance(enc, PaddedShared):
            continue
        size = to_dtype(c.dtype).bytes
        widths = _access_bytes(gluon_endpoint.compile_offline(c).asm["ptx"])
        assert widths == {gluon_endpoint.vector_bytes(x, enc, c.shape, size) for x in (c.p, c.q)}, c.id
        misaligned = any(pad * size % max(widths) for _, pad in enc.intervals)
        try:
            gluon_endpoint.TritonEndpointCase(c)
        except LlgenError as e:
            assert misaligned and one_sentence(str(e)), (c.id, str(e))
            refused.add(c.id)
        else:
            assert not misaligned, c.id
    assert refused == {"T_f32_padded_rows"}


def test_the_padding_refusal_names_the_access_and_the_padding():
    c = next(c for c in CASES if c.id == "T_f32_padded_rows")
    with pytest.raises(
        LlgenError,
        match=r"^Triton 3\.6 faults on this padded_shared layout: its 8-byte ld/st\.shared of P .*"
        r"padding of 1 element\(s\) \(4 bytes\) every 128, .*misaligned address\)\.$",
    ):
        gluon_endpoint.TritonEndpointCase(c)


# ----------------------------------------------------------------------------------------------- on a GPU
# Triton 3.6 issues 8- and 16-byte ld/st.shared across T_f32_padded_rows's padding of one f32 and faults (CUDA's
# misaligned address); TritonEndpointCase refuses it (test above), so the device run leaves it out.
TRITON_FAULTS = {
    "T_f32_padded_rows": "Triton 3.6 faults (misaligned address) on T_f32_padded_rows: its 8- and 16-byte "
    "ld/st.shared cross the padding of one f32 every 128 elements"
}


@pytest.mark.gpu
@pytest.mark.parametrize(
    "c",
    [
        pytest.param(c, marks=pytest.mark.skip(reason=TRITON_FAULTS[c.id])) if c.id in TRITON_FAULTS else c
        for c in [*CASES, *endpoint_suite()]
    ],
    ids=lambda c: c.id,
)
def test_gpu_triton_smem_loop_adds_k_to_every_element(c):
    """The LOOP on the device, for every case here and in the suite: y is x + k (on the raw bits for bf16 and f8)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    from llgen.runtime.gluon import TORCH_DTYPES
    from llgen.runtime.reference import loop_input, plus_one

    rng, k, grid = np.random.default_rng(26), 3, 2
    raw, bits = {8: (np.int8, torch.int8), 16: (np.int16, torch.int16), 32: (np.int32, torch.int32)}[to_dtype(c.dtype).bits]
    x = loop_input(c.dtype, raw, grid * math.prod(c.shape), rng)
    tx = torch.from_numpy(x).cuda().view(getattr(torch, TORCH_DTYPES[c.dtype]))
    ty = torch.zeros_like(tx)
    gluon_endpoint.TritonEndpointCase(c).loop(tx, ty, k, grid)
    assert np.array_equal(ty.view(bits).cpu().numpy(), plus_one(c.dtype, x, k)), c.id
