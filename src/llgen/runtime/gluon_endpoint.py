"""Triton's side of the endpoint suite (`--suite endpoint`): a Gluon kernel that moves a tile between registers and a
given shared layout (``gl.allocate_shared_memory`` / ``.store`` / ``.load``, which lower to Triton's local_store /
local_load), with llgen's layouts handed to Gluon so both sides work on bit-identical layouts: the distributed ones
as explicit bases (runtime.gluon.gluon_layout), the shared one as Gluon's class of the same family and parameters.
Imported only where triton is installed; `compile_offline` builds the same kernel for an explicit target without a
GPU (tests).
"""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

import llgen.layouts as L
from llgen.core.dtypes import dtype as dtype_of
from llgen.core.errors import LlgenError
from llgen.runtime.gluon import INT_OF, TRITON_PTR, TritonCase, _shape3, compile_gluon, gluon_layout, plus, tile_offsets


@gluon.jit
def endpoint_loop_kernel(
    x_ptr,
    y_ptr,
    K,
    S0: gl.constexpr,
    S1: gl.constexpr,
    S2: gl.constexpr,
    RANK: gl.constexpr,
    P: gl.constexpr,
    Q: gl.constexpr,
    SHARED: gl.constexpr,
    INT: gl.constexpr,
):
    """Tile pm of x in P; K times {store; load in Q; + 1; store; load in P}; the tile back to y in P."""
    offs = tile_offsets(gl.program_id(0), S0, S1, S2, RANK, P)
    x = gl.load(x_ptr + offs)
    smem = gl.allocate_shared_memory(x.dtype, x.shape, SHARED)
    for _ in range(K):
        smem.store(x)
        t = smem.load(Q)
        t = plus(t, 1, INT)
        smem.store(t)
        x = smem.load(P)
    gl.store(y_ptr + offs, x)


def _cga(encoding) -> list[list[int]]:
    return [list(v) for v in encoding.cga_layout]


def gluon_shared_layout(encoding, shape, dtype):
    """llgen's shared encoding (llgen.layouts) as Gluon's shared layout of the same family, for a tile of ``shape``
    and element type ``dtype`` (an llgen name): an LlgenError where Gluon has no such layout or type."""
    if dtype not in TRITON_PTR:
        raise LlgenError(f"element type '{dtype}' has no Triton pointer type here; known: {', '.join(TRITON_PTR)}.")
    encoding.to_linear(tuple(shape))  # the encoding's own checks: a swizzle too wide, a padded shape not the tile's
    if isinstance(encoding, L.AmdRotatingShared):  # a SwizzledShared subclass: test it first
        raise LlgenError(
            "amd_rotating_shared has no Gluon layout in Triton 3.6 (Gluon's shared layouts are nvmma, swizzled, "
            "padded and shared_linear); give its bases as a shared_linear layout instead."
        )
    if isinstance(encoding, L.SwizzledShared):
        return gl.SwizzledSharedLayout(encoding.vec, encoding.per_phase, encoding.max_phase, list(encoding.order), _cga(encoding))
    if isinstance(encoding, L.NvmmaShared):
        return gl.NVMMASharedLayout(
            encoding.swizzle_byte_width,
            encoding.element_bitwidth,
            rank=encoding.rank,
            transposed=encoding.transposed,
            cga_layout=_cga(encoding),
        )
    if isinstance(encoding, L.PaddedShared):
        return gl.PaddedSharedLayout(
            [list(p) for p in encoding.intervals],
            [list(v) for v in encoding.offset],
            [list(v) for v in encoding.block],
            list(encoding.shape),
        )
    if isinstance(encoding, L.SharedLinear):
        return gl.SharedLinearLayout([list(v) for v in encoding.offset], [list(v) for v in encoding.block], encoding.alignment)
    raise LlgenError(f"{type(encoding).__name__} is not a shared-memory layout Gluon can allocate.")


def vector_bytes(layout, encoding, shape, nbytes: int) -> int:
    """The ld/st.shared width Triton 3.6 gives a register layout against a shared layout: its registers' run of
    consecutive offsets (S⁻¹ ∘ layout, padding not counted), up to 16 bytes."""
    regs = layout.invert_and_compose(encoding.to_linear(tuple(shape))).flat_cols("register")
    k = 0
    while k < len(regs) and regs[k] == 1 << k:
        k += 1
    return min((1 << k) * nbytes, 16)


def check_padding(case) -> None:
    """An LlgenError where Triton 3.6 would fault: its ld/st.shared keep their width across a padded_shared
    layout's padding, so a padding that is not a whole number of accesses leaves the accesses after it misaligned
    (CUDA's misaligned address on the GPU; tests/test_gluon_endpoint.py's T_f32_padded_rows, padded by one f32)."""
    enc = case.encoding()
    if not isinstance(enc, L.PaddedShared):
        return
    nbytes = dtype_of(case.dtype).bytes
    for name, layout in (("P", case.p), ("Q", case.q)):
        width = vector_bytes(layout, enc, case.shape, nbytes)
        for interval, pad in enc.intervals:
            if pad * nbytes % width:
                raise LlgenError(
                    f"Triton 3.6 faults on this padded_shared layout: its {width}-byte ld/st.shared of {name} keep "
                    f"their width across the padding of {pad} element(s) ({pad * nbytes} bytes) every {interval}, "
                    "which misaligns them (CUDA's misaligned address)."
                )


def _consts(case) -> dict:
    shared = gluon_shared_layout(case.encoding(), case.shape, case.dtype)
    s0, s1, s2, rank = _shape3(case.p)
    return {
        "S0": s0,
        "S1": s1,
        "S2": s2,
        "RANK": rank,
        "P": gluon_layout(case.p),
        "Q": gluon_layout(case.q),
        "SHARED": shared,
        "INT": INT_OF.get(case.dtype),
    }


class TritonEndpointCase:
    """Triton's endpoint LOOP for one case of the endpoint suite (P, Q, the shared layout); launch functions take
    torch tensors. A padding Triton would fault on is refused (check_padding)."""

    def __init__(self, case):
        self.consts = _consts(case)
        check_padding(case)
        self.dtype, self.warps = case.dtype, case.warps
        self.compiled = None

    def loop(self, x, y, k: int, grid: int):
        self.compiled = endpoint_loop_kernel[(grid,)](x, y, k, *self.consts.values(), num_warps=self.warps)

    resources = TritonCase.resources  # regs, spills and smem of self.compiled, read as for a conversion


def compile_offline(case, arch: int = 90):
    """Triton's endpoint LOOP for ``case``, compiled for sm_<arch> without a GPU (triton.compile with an explicit
    target): its asm["ttgir"] holds the local ops with their layouts, asm["ptx"] the barriers and accesses. A
    padding TritonEndpointCase refuses still compiles here: the layouts are right, only the GPU faults."""
    ptr = TRITON_PTR[case.dtype]
    return compile_gluon(endpoint_loop_kernel, {"x_ptr": ptr, "y_ptr": ptr, "K": "i32"}, _consts(case), case.warps, arch)


__all__ = [
    "TritonEndpointCase",
    "check_padding",
    "compile_offline",
    "gluon_shared_layout",
    "endpoint_loop_kernel",
    "vector_bytes",
]
