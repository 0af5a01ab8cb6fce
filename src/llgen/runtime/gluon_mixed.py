"""Triton's side of the mixed suite (llgen.cases.mixed), path 1: a packed byte tile in a 2-stage NVMMA buffer, each step
``local_load`` into the mma v2 B dot operand and ``fp4_to_fp`` (or an i8 cast) to bf16, XOR-accumulated so nothing
folds; the accumulator is stored in the bf16 operand layout. Imported only where triton is installed."""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from llgen.cases.mixed import WARPS, MixedCase, N
from llgen.runtime.gluon import compile_gluon, tile_offsets


@gluon.jit
def mixed_loop_kernel(
    x_ptr,
    y_ptr,
    STEPS,
    KB: gl.constexpr,
    NC: gl.constexpr,
    LOAD: gl.constexpr,
    SHARED: gl.constexpr,
    DOT: gl.constexpr,
    OUT: gl.constexpr,
    FP4: gl.constexpr,
):
    smem = gl.allocate_shared_memory(gl.uint8, [2, KB, NC], SHARED)
    for s in gl.static_range(2):
        smem.index(s).store(gl.load(x_ptr + tile_offsets(s, KB, NC, 1, 2, LOAD)))
    gl.thread_barrier()
    if FP4:
        acc = gl.zeros([2 * KB, NC], gl.int16, OUT)
    else:
        acc = gl.zeros([KB, NC], gl.int16, OUT)
    for i in range(STEPS):
        t = smem.index(i % 2).load(DOT)
        if FP4:
            f = gl.fp4_to_fp(t, gl.bfloat16, 0)
        else:
            f = t.to(gl.int8, bitcast=True).to(gl.bfloat16)
        acc = acc ^ f.to(gl.int16, bitcast=True)
    if FP4:
        o = tile_offsets(gl.program_id(0), 2 * KB, NC, 1, 2, OUT)
    else:
        o = tile_offsets(gl.program_id(0), KB, NC, 1, 2, OUT)
    gl.store(y_ptr + o, acc)


def constexprs(case: MixedCase) -> dict:
    """The kernel's layouts for a case: Triton's own dot operand of the byte tile (kWidth 4: a thread's 4 bytes along
    K) and its NVMMA buffer of the case's orientation and swizzle."""
    mma = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, WARPS], instr_shape=[16, 8])
    return {
        "KB": case.byte_rows,
        "NC": N,
        "LOAD": gl.BlockedLayout([1, 16], [8, 4], [WARPS, 1], [1, 0]),
        "SHARED": gl.NVMMASharedLayout(case.swizzle, 8, rank=2, transposed=case.transposed),
        "DOT": gl.DotOperandLayout(1, mma, 4),
        "OUT": gl.DotOperandLayout(1, mma, case.k_width),
        "FP4": case.packed,
    }


def compile_offline(case: MixedCase, arch: int = 90):
    """The kernel of ``case`` compiled without a GPU (tests: its PTX and TTGIR)."""
    return compile_gluon(mixed_loop_kernel, {"x_ptr": "*u8", "y_ptr": "*i16", "STEPS": "i32"}, constexprs(case), WARPS, arch)
