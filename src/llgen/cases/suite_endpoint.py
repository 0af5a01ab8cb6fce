"""The endpoint suite (`--suite endpoint`): shared-memory endpoints, registers to and from a FIXED shared layout, as
real kernels hold them. Each case is a register layout P that stores the tile, a shared layout S the hardware or the
kernel's author fixed, and a register layout Q that loads it: `llgen bench --suite endpoint` times the loop {store P;
load Q; +1; store Q; load P} through S, llgen's endpoints against Triton's Gluon kernel (its local_store /
local_load) with the same three layouts.

- epilogues: mma v2 and wgmma accumulators (f16, bf16, f32) into NVMMA 128B / 64B tiles, read back coalesced;
- operand staging: coalesced tiles into NVMMA (transposed included) and swizzled tiles, read as mma v2 operands;
- transposes: row-major blocked in, column-major blocked out, through swizzled, unswizzled and padded tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.layout import LinearLayout


@dataclass(frozen=True)
class EndpointSuiteCase:
    """One case of the endpoint suite: P stores the tile into S, Q loads it."""

    id: str
    dtype: str
    shape: tuple[int, ...]
    warps: int
    p: LinearLayout  # stores the tile, and reads it back at the end of each step
    shared: str  # S as llgen parses it: a short form ("nvmma:128") or a Triton attribute ("#ttg.padded_shared<...>")
    q: LinearLayout  # reads the tile, and stores it back after its +1
    note: str = ""

    def encoding(self):
        """S's encoding object for this tile (its offset map, its padding and swizzle width)."""
        from llgen.core.dtypes import dtype
        from llgen.spec import Where, parse_encoding

        return parse_encoding(self.shared, self.shape, self.warps, 32, where=Where(dtype_bytes=dtype(self.dtype).bytes))


def _rows(spt: str, tpw: str, wpc: str) -> str:
    return f"blocked:spt={spt},tpw={tpw},wpc={wpc},order=1x0"


def _cols(spt: str, tpw: str, wpc: str) -> str:
    return f"blocked:spt={spt},tpw={tpw},wpc={wpc},order=0x1"


_SW8 = "swizzled:vec=8,per_phase=1,max_phase=8,order=1x0"  # Triton's pick for 16-bit mma v2 operands
_CASES = (
    # (id, dtype, shape, warps, P, S, Q, note)
    # epilogues: the accumulator stored into the tile a TMA store reads, read back in rows of 16 bytes
    ("ep_mma_f16_128B_w4", "f16", (128, 128), 4, "mma:wpc=2x2", "nvmma:128", _rows("1x8", "2x16", "4x1"),
     "mma v2 accumulator, f16, 128B NVMMA"),
    ("ep_mma_bf16_128B_w8", "bf16", (128, 128), 8, "mma:wpc=4x2", "nvmma:128", _rows("1x8", "2x16", "8x1"),
     "mma v2 accumulator, bf16, 8 warps"),
    ("ep_mma_f32_128B_w4", "f32", (128, 128), 4, "mma:wpc=2x2", "nvmma:128", _rows("1x4", "1x32", "4x1"),
     "mma v2 accumulator, f32, 64 KB: dynamic shared memory"),
    ("ep_mma_f32_64B_w4", "f32", (64, 64), 4, "mma:wpc=2x2", "nvmma:64", _rows("1x4", "4x8", "4x1"),
     "mma v2 accumulator, f32, 64B NVMMA"),
    ("ep_wgmma_f16_128B_w4", "f16", (128, 128), 4, "mma:v=3,wpc=4x1,instr=16x128x16", "nvmma:128",
     _rows("1x8", "2x16", "4x1"), "wgmma accumulator, f16"),
    ("ep_wgmma_bf16_64B_w8", "bf16", (128, 128), 8, "mma:v=3,wpc=8x1,instr=16x128x16", "nvmma:64",
     _rows("1x8", "2x16", "8x1"), "wgmma accumulator, bf16, 64B NVMMA, 8 warps"),
    ("ep_wgmma_f32_128B_w8", "f32", (128, 256), 8, "mma:v=3,wpc=8x1,instr=16x256x8", "nvmma:128",
     _rows("1x4", "1x32", "8x1"), "the Hopper GEMM epilogue of a 128x256 tile, 128 KB"),
    ("ep_wgmma_f32_64B_w4", "f32", (64, 128), 4, "mma:v=3,wpc=4x1,instr=16x128x8", "nvmma:64",
     _rows("1x4", "1x32", "4x1"), "wgmma accumulator, f32, 64B NVMMA"),
    # operand staging: a coalesced global tile into the operand buffer, read as mma v2 operands
    ("op_A_f16_nvmma128", "f16", (128, 64), 4, _rows("1x8", "4x8", "4x1"), "nvmma:128", "dot:op=0,k_width=2",
     "A operand, f16, 128B NVMMA: ldmatrix"),
    ("op_B_f16_nvmma128", "f16", (64, 128), 4, _rows("1x8", "2x16", "4x1"), "nvmma:128", "dot:op=1,k_width=2",
     "B operand, f16, K-major rows: ldmatrix.trans"),
    ("op_B_f16_nvmma128T", "f16", (64, 128), 4, _cols("8x1", "8x4", "1x4"), "nvmma:128,transposed=true",
     "dot:op=1,k_width=2", "B operand, f16, transposed NVMMA (N-major rows of K)"),
    ("op_A_f16_swizzled", "f16", (128, 64), 4, _rows("1x8", "4x8", "4x1"), _SW8, "dot:op=0,k_width=2",
     "A operand, f16, Triton's swizzled pick"),
    ("op_B_bf16_swizzled", "bf16", (64, 128), 4, _rows("1x8", "2x16", "4x1"), _SW8, "dot:op=1,k_width=2",
     "B operand, bf16, swizzled"),
    ("op_A_i8_nvmma128", "i8", (128, 128), 4, _rows("1x16", "4x8", "4x1"), "nvmma:128", "dot:op=0,k_width=4",
     "A operand, 8-bit, 128B NVMMA"),
    ("op_B_i8_nvmma128", "i8", (128, 128), 4, _rows("1x16", "4x8", "4x1"), "nvmma:128", "dot:op=1,k_width=4",
     "B operand, 8-bit: Triton's byte-wide loads reach 7% of the floor"),
    ("op_B_f8_swizzled", "f8e4m3", (64, 128), 4, _rows("1x16", "4x8", "4x1"),
     "swizzled:vec=16,per_phase=1,max_phase=8,order=1x0", "dot:op=1,k_width=4", "B operand, fp8, swizzled"),
    # transposes: row-major in, column-major out
    ("tr_f16_swizzled", "f16", (128, 128), 4, _rows("1x8", "2x16", "4x1"), _SW8, _cols("8x1", "16x2", "1x4"),
     "transpose, f16, swizzled"),
    ("tr_f16_nvmma0", "f16", (128, 128), 4, _rows("1x8", "2x16", "4x1"), "nvmma:0", _cols("8x1", "16x2", "1x4"),
     "transpose, f16, unswizzled NVMMA"),
    ("tr_f32_vec1", "f32", (64, 64), 4, _rows("1x4", "2x16", "4x1"), "swizzled:vec=1,per_phase=1,max_phase=1,order=1x0",
     _cols("4x1", "16x2", "1x4"), "transpose, f32, unswizzled (vec 1)"),
    ("tr_f32_swizzled_w8", "f32", (128, 64), 8, _rows("1x4", "2x16", "8x1"),
     "swizzled:vec=4,per_phase=1,max_phase=8,order=1x0", _cols("4x1", "32x1", "1x8"), "transpose, f32, swizzled, 8 warps"),
    ("tr_f16_padded", "f16", (64, 64), 4, _rows("1x8", "4x8", "4x1"),
     "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>", _cols("8x1", "8x4", "1x4"),
     "transpose, f16, rows padded by 16 bytes"),
    ("tr_f32_padded", "f32", (64, 64), 4, _rows("1x4", "2x16", "4x1"),
     "#ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>", _cols("4x1", "16x2", "1x4"),
     "transpose, f32, rows padded by 16 bytes"),
)  # fmt: skip


def endpoint_suite() -> list[EndpointSuiteCase]:
    """The endpoint suite's cases, in the order of _CASES."""
    from llgen.core.dtypes import dtype
    from llgen.spec import Where, parse_layout

    out = []
    for cid, dt, shape, warps, p, s, q, note in _CASES:
        nbytes = dtype(dt).bytes
        lp, lq = (parse_layout(x, shape, warps, 32, where=Where(dtype_bytes=nbytes)) for x in (p, q))
        out.append(EndpointSuiteCase(cid, dt, shape, warps, lp, s, lq, note))
    return out
