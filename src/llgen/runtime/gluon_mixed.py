"""Triton's side of the mixed suite (llgen.cases.mixed), path 1: a packed byte tile in a 2-stage NVMMA buffer, each step
``local_load`` into the mma v2 B dot operand and ``fp4_to_fp`` (or an i8 cast) to bf16, XOR-accumulated so nothing
folds; the accumulator is stored in the bf16 operand layout. Imported only where triton is installed."""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from llgen.cases.mixed import WARPS, MixedCase
from llgen.runtime.gluon import compile_gluon, tile_offsets


@gluon.jit
def _zeros(R: gl.constexpr, C: gl.constexpr, AXIS: gl.constexpr, KIND: gl.constexpr, OUT: gl.constexpr):
    """The bf16 accumulator (as int16 bits) over the upcast tile: R x C bytes, K doubled for 4-bit types."""
    if KIND >= 2:
        acc = gl.zeros([R, C], gl.int16, OUT)
    elif AXIS == 0:
        acc = gl.zeros([2 * R, C], gl.int16, OUT)
    else:
        acc = gl.zeros([R, 2 * C], gl.int16, OUT)
    return acc


@gluon.jit
def _out_offsets(pm, R: gl.constexpr, C: gl.constexpr, AXIS: gl.constexpr, KIND: gl.constexpr, OUT: gl.constexpr):
    if KIND >= 2:
        o = tile_offsets(pm, R, C, 1, 2, OUT)
    elif AXIS == 0:
        o = tile_offsets(pm, 2 * R, C, 1, 2, OUT)
    else:
        o = tile_offsets(pm, R, 2 * C, 1, 2, OUT)
    return o


@gluon.jit
def _upcast(t, R: gl.constexpr, C: gl.constexpr, AXIS: gl.constexpr, KIND: gl.constexpr, OUT: gl.constexpr, F16: gl.constexpr):
    """Bytes in the dot operand to bf16 (F16: f16) bits (int16) in OUT. KIND 0: fp4_to_fp along AXIS; 1: int4, the low nibble
    first, as a kernel writes it by hand (Triton has no int4 upcast op); 2: an i8 cast; 3: an e4m3 cast."""
    ty: gl.constexpr = gl.float16 if F16 else gl.bfloat16
    if KIND == 0:
        f = gl.fp4_to_fp(t, ty, AXIS)
    elif KIND == 1:
        b = t.to(gl.int8, bitcast=True)
        x = gl.join((b << 4) >> 4, b >> 4)
        if AXIS == 0:
            x = gl.reshape(gl.permute(x, (0, 2, 1)), [2 * R, C])
        else:
            x = gl.reshape(x, [R, 2 * C])
        f = gl.convert_layout(x.to(ty), OUT)
    elif KIND == 2:
        f = t.to(gl.int8, bitcast=True).to(gl.bfloat16)
    else:
        f = t.to(gl.float8e4nv, bitcast=True).to(gl.bfloat16)
    return f.to(gl.int16, bitcast=True)


@gluon.jit(do_not_specialize=["STEPS", "MASK"])
def mixed_loop_kernel(
    x_ptr,
    y_ptr,
    STEPS,
    MASK,
    R: gl.constexpr,
    C: gl.constexpr,
    AXIS: gl.constexpr,
    KIND: gl.constexpr,
    LOAD: gl.constexpr,
    SHARED: gl.constexpr,
    DOT: gl.constexpr,
    OUT: gl.constexpr,
    F16: gl.constexpr,
):
    """LOOP: two R x C byte tiles into a 2-stage buffer; STEPS times one stage into DOT, upcast, XOR-accumulated. The
    stage is ``i & MASK`` (MASK 1 at run time, as llgen's LOOPs take it), so no step's load can leave the loop."""
    smem = gl.allocate_shared_memory(gl.uint8, [2, R, C], SHARED)
    for s in gl.static_range(2):
        smem.index(s).store(gl.load(x_ptr + tile_offsets(s, R, C, 1, 2, LOAD)))
    gl.thread_barrier()
    acc = _zeros(R, C, AXIS, KIND, OUT)
    for i in range(STEPS):
        acc = acc ^ _upcast(smem.index(i & MASK).load(DOT), R, C, AXIS, KIND, OUT, F16)
    gl.store(y_ptr + _out_offsets(gl.program_id(0), R, C, AXIS, KIND, OUT), acc)


@gluon.jit(do_not_specialize=["PER"])
def mixed_stream_kernel(
    x_ptr,
    y_ptr,
    PER,
    R: gl.constexpr,
    C: gl.constexpr,
    AXIS: gl.constexpr,
    KIND: gl.constexpr,
    LOAD: gl.constexpr,
    SHARED: gl.constexpr,
    DOT: gl.constexpr,
    OUT: gl.constexpr,
    F16: gl.constexpr,
):
    """STREAM: PER dense byte tiles in turn from global memory into the buffer (local_store), into DOT (local_load),
    upcast, XOR-accumulated; CTA 0 stores its accumulator (the upcast tile), then every CTA its XOR at the tile's end, y[elements + pid]."""
    smem = gl.allocate_shared_memory(gl.uint8, [R, C], SHARED)
    offs = tile_offsets(0, R, C, 1, 2, LOAD)
    base = gl.program_id(0) * PER
    acc = _zeros(R, C, AXIS, KIND, OUT)
    for i in range(PER):
        smem.store(gl.load(x_ptr + (base + i) * (R * C) + offs))
        gl.thread_barrier()
        t = smem.load(DOT)
        gl.thread_barrier()
        acc = acc ^ _upcast(t, R, C, AXIS, KIND, OUT, F16)
    pid = gl.program_id(0)
    if pid == 0:
        gl.store(y_ptr + _out_offsets(0, R, C, AXIS, KIND, OUT), acc)
    gl.store(y_ptr + (R * C * (2 if KIND < 2 else 1)) + pid, gl.xor_sum(gl.xor_sum(acc, axis=1), axis=0))


@gluon.jit(do_not_specialize=["STEPS", "MASK"])
def mixed_mx_loop_kernel(
    x_ptr,
    s_ptr,
    y_ptr,
    STEPS,
    MASK,
    R: gl.constexpr,
    C: gl.constexpr,
    AXIS: gl.constexpr,
    LOAD: gl.constexpr,
    SHARED: gl.constexpr,
    DOT: gl.constexpr,
    OUT: gl.constexpr,
    SR: gl.constexpr,
    SC: gl.constexpr,
    SLOAD: gl.constexpr,
    SSHARED: gl.constexpr,
    P3: gl.constexpr,
):
    """LOOP for mxfp4: as mixed_loop_kernel, with the e8m0 scales of each stage in a row-major buffer beside it, loaded
    in the slice of P3 (the operand's layout with K split into block and offset, so the broadcast reshapes back to OUT
    and the convert is free), raised to bf16 (s << 7), broadcast along K and multiplied in."""
    smem = gl.allocate_shared_memory(gl.uint8, [2, R, C], SHARED)
    ssm = gl.allocate_shared_memory(gl.uint8, [2, SR, SC], SSHARED)
    for s in gl.static_range(2):
        smem.index(s).store(gl.load(x_ptr + tile_offsets(s, R, C, 1, 2, LOAD)))
        ssm.index(s).store(gl.load(s_ptr + tile_offsets(s, SR, SC, 1, 2, SLOAD)))
    gl.thread_barrier()
    acc = _zeros(R, C, AXIS, 0, OUT)
    for i in range(STEPS):
        f = gl.fp4_to_fp(smem.index(i & MASK).load(DOT), gl.bfloat16, AXIS)
        sc = ssm.index(i & MASK).load(gl.SliceLayout(AXIS + 1, P3))
        sb = (sc.to(gl.int16) << 7).to(gl.bfloat16, bitcast=True)
        if AXIS == 0:
            sb = gl.reshape(gl.expand_dims(sb, 1).broadcast_to([SR, 32, SC]), [2 * R, C])
        else:
            sb = gl.reshape(gl.expand_dims(sb, 2).broadcast_to([SR, SC, 32]), [R, 2 * C])
        acc = acc ^ (f * gl.convert_layout(sb, OUT)).to(gl.int16, bitcast=True)
    gl.store(y_ptr + _out_offsets(gl.program_id(0), R, C, AXIS, 0, OUT), acc)


def _mx(case: MixedCase) -> dict:
    """SR x SC, the scales' tile; SLOAD, their global load; SSHARED, their row-major buffer; P3 is the bf16 operand layout over K
    split into (K / 32, 32), so the scales' slice of it, broadcast and reshaped, is the operand layout again."""
    from llgen.cases.mixed import MX_BLOCK

    lay = case.layout()

    def split(v):
        v = list(v)
        k = v.pop(case.axis)
        return [k // MX_BLOCK, k % MX_BLOCK, *v] if case.axis == 0 else [*v, k // MX_BLOCK, k % MX_BLOCK]

    b = {n: [split(lay.basis(n, i)) for i in range(lay.in_bits(n))] for n in ("register", "lane", "warp")}
    sr, sc = case.scale_shape
    p3_shape = [sr, MX_BLOCK, sc] if case.axis == 0 else [sr, sc, MX_BLOCK]
    p3 = gl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], [], p3_shape)
    load = gl.BlockedLayout([1, 1], [1, 32], [WARPS, 1], [1, 0])
    return {"SR": sr, "SC": sc, "SLOAD": load, "SSHARED": gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), "P3": p3}


def _dot(case: MixedCase, k_width: int):
    if case.operand == "mma2B":
        parent = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, WARPS], instr_shape=[16, 8])
        return gl.DotOperandLayout(1, parent, k_width)
    parent = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[WARPS, 1], instr_shape=[16, 64, 16])
    return gl.DotOperandLayout(0, parent, k_width)


def constexprs(case: MixedCase) -> dict:
    """The kernel's layouts for a case: Triton's own dot operand of the byte tile (kWidth 4: a thread's 4 bytes along
    K) and its NVMMA buffer of the case's orientation and swizzle."""
    r, c = case.byte_shape
    return {
        "R": r,
        "C": c,
        "AXIS": case.axis,
        "KIND": {"e2m1": 0, "i4": 1, "i8": 2, "f8e4m3": 3}[case.dtype],
        "LOAD": gl.BlockedLayout([1, 16], [8, 4] if c >= 64 else [16, 2], [WARPS, 1], [1, 0]),
        "SHARED": gl.NVMMASharedLayout(case.swizzle, 8, rank=2, transposed=case.transposed),
        "DOT": _dot(case, 4),
        "OUT": _dot(case, case.k_width),
        "F16": case.out == "f16",
    }


def mx_constexprs(case: MixedCase) -> dict:
    """mixed_mx_loop_kernel's layouts for an mx case."""
    c = constexprs(case)
    return {k: c[k] for k in ("R", "C", "AXIS", "LOAD", "SHARED", "DOT", "OUT")} | _mx(case)


def compile_offline(case: MixedCase, stream: bool = False, arch: int = 90):
    """The LOOP (or STREAM) kernel of ``case`` compiled without a GPU (tests: its PTX and TTGIR)."""
    if case.mx:
        args = {"x_ptr": "*u8", "s_ptr": "*u8", "y_ptr": "*i16", "STEPS": "i32", "MASK": "i32"}
        return compile_gluon(mixed_mx_loop_kernel, args, mx_constexprs(case), WARPS, arch)
    args = {"x_ptr": "*u8", "y_ptr": "*i16", **({"PER": "i32"} if stream else {"STEPS": "i32", "MASK": "i32"})}
    return compile_gluon(mixed_stream_kernel if stream else mixed_loop_kernel, args, constexprs(case), WARPS, arch)
