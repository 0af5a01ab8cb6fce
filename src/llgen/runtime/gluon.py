"""Triton's own `convert_layout` and `gather` between the same layouts, written in Gluon: the baselines of
`llgen bench`. Our layouts are handed to Gluon as explicit bases (DistributedLinearLayout), so both sides work on
bit-identical layouts, of rank 1, 2 or 3. Imported only where triton is installed; `compile_offline` builds the
same kernels for an explicit target without a GPU (tests, and a case's "can Triton take it" check).
"""

from __future__ import annotations

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

TORCH_DTYPES = {
    "f32": "float32",
    "f16": "float16",
    "bf16": "bfloat16",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "f64": "float64",
    "i64": "int64",
    "f8e4m3": "float8_e4m3fn",
    "f8e5m2": "float8_e5m2",
}
# Triton's pointer types, for compiling without tensors
TRITON_PTR = {
    "f32": "*fp32",
    "f16": "*fp16",
    "bf16": "*bf16",
    "i8": "*i8",
    "i16": "*i16",
    "i32": "*i32",
    "f64": "*fp64",
    "i64": "*i64",
    "f8e4m3": "*fp8e4nv",
    "f8e5m2": "*fp8e5",
}
# The `+ 1` of the LOOP in the tile's raw bits, as llgen's LOOP does for these types (runtime.reference.plus_one):
# 8-bit floats have no addition in Triton, and bf16's float add would not match the reference the LOOP is checked by
INT_OF = {"f8e4m3": gl.int8, "f8e5m2": gl.int8, "bf16": gl.int16}


def gluon_layout(layout):
    """Our LinearLayout as Gluon's DistributedLinearLayout."""
    d = layout.to_dict()
    b = d["bases"]
    return gl.DistributedLinearLayout(
        b.get("register", []), b.get("lane", []), b.get("warp", []), b.get("block", []), list(d["out_dims"].values())
    )


@gluon.jit
def tile_offsets(pm, S0: gl.constexpr, S1: gl.constexpr, S2: gl.constexpr, RANK: gl.constexpr, A: gl.constexpr):
    """Row-major element offsets of tile ``pm`` (tiles stacked along dim 0) in layout A, rank 1 to 3."""
    if RANK == 1:
        offs = pm * S0 + gl.arange(0, S0, layout=A)
    elif RANK == 2:
        rows = pm * S0 + gl.arange(0, S0, layout=gl.SliceLayout(1, A))
        cols = gl.arange(0, S1, layout=gl.SliceLayout(0, A))
        offs = gl.expand_dims(rows, 1) * S1 + gl.expand_dims(cols, 0)
    else:
        i0 = pm * S0 + gl.arange(0, S0, layout=gl.SliceLayout(1, gl.SliceLayout(2, A)))
        i1 = gl.arange(0, S1, layout=gl.SliceLayout(0, gl.SliceLayout(2, A)))
        i2 = gl.arange(0, S2, layout=gl.SliceLayout(0, gl.SliceLayout(1, A)))
        i01 = gl.expand_dims(gl.expand_dims(i0, 1), 2) * S1 + gl.expand_dims(gl.expand_dims(i1, 0), 2)
        offs = i01 * S2 + gl.expand_dims(gl.expand_dims(i2, 0), 1)
    return offs


@gluon.jit
def plus(y, s, INT: gl.constexpr):
    """y + s in the tile's arithmetic, or on the raw bits where the type has none (INT: the integer type)."""
    if INT is None:
        out = y + s
    else:
        out = (y.to(INT, bitcast=True) + s).to(y.dtype, bitcast=True)
    return out


@gluon.jit
def loop_kernel(
    x_ptr,
    y_ptr,
    K,
    S0: gl.constexpr,
    S1: gl.constexpr,
    S2: gl.constexpr,
    RANK: gl.constexpr,
    A: gl.constexpr,
    X: gl.constexpr,
    INT: gl.constexpr,
):
    offs = tile_offsets(gl.program_id(0), S0, S1, S2, RANK, A)
    x = gl.load(x_ptr + offs)
    for _ in range(K):
        y = gl.convert_layout(x, X)
        y = plus(y, 1, INT)
        x = gl.convert_layout(y, A)
    gl.store(y_ptr + offs, x)


@gluon.jit
def stream_kernel(
    x_ptr,
    y_ptr,
    s,
    S0: gl.constexpr,
    S1: gl.constexpr,
    S2: gl.constexpr,
    RANK: gl.constexpr,
    A: gl.constexpr,
    X: gl.constexpr,
    INT: gl.constexpr,
    CONVERT: gl.constexpr,
):
    offs = tile_offsets(gl.program_id(0), S0, S1, S2, RANK, A)
    x = gl.load(x_ptr + offs)
    if INT is None:
        sv = s.to(x.dtype)
    else:
        sv = s.to(INT)
    if CONVERT:
        y = gl.convert_layout(x, X)
        y = plus(y, sv, INT)
        x = gl.convert_layout(y, A)
    else:
        x = plus(x, sv, INT)
    gl.store(y_ptr + offs, x)


@gluon.jit
def gather_loop_kernel(
    x_ptr,
    i_ptr,
    y_ptr,
    K,
    AXIS: gl.constexpr,
    S0: gl.constexpr,
    S1: gl.constexpr,
    S2: gl.constexpr,
    RANK: gl.constexpr,
    L: gl.constexpr,
):
    """K gathers in a row along AXIS with one index tile, source, index and output all in layout L."""
    offs = tile_offsets(gl.program_id(0), S0, S1, S2, RANK, L)
    x = gl.load(x_ptr + offs)
    idx = gl.load(i_ptr + offs)
    for _ in range(K):
        x = gl.gather(x, idx, AXIS)
    gl.store(y_ptr + offs, x)


def _shape3(layout) -> tuple[int, int, int, int]:
    """(S0, S1, S2, rank) of the layout's tensor: absent dims are 1."""
    shape = tuple(layout.shape)
    if not 1 <= len(shape) <= 3:
        raise ValueError(f"Gluon kernels here take rank 1 to 3, not {len(shape)}")
    s = (*shape, 1, 1)[:3]
    return s[0], s[1], s[2], len(shape)


class TritonCase:
    """Compiled Gluon kernels for one conversion case; launch functions take torch tensors."""

    def __init__(self, src, dst, warps: int, dtype: str = "f32"):
        self.A, self.X = gluon_layout(src), gluon_layout(dst)
        self.S0, self.S1, self.S2, self.rank = _shape3(src)
        self.int = INT_OF.get(dtype)
        self.warps = warps
        self.compiled = None

    def _dims(self):
        return self.S0, self.S1, self.S2, self.rank

    def loop(self, x, y, k: int, grid: int):
        self.compiled = loop_kernel[(grid,)](x, y, k, *self._dims(), self.A, self.X, self.int, num_warps=self.warps)

    def stream(self, x, y, s: float, tiles: int, convert: bool = True):
        stream_kernel[(tiles,)](x, y, s, *self._dims(), self.A, self.X, self.int, convert, num_warps=self.warps)

    def resources(self) -> dict:
        k = self.compiled
        return {
            "regs": getattr(k, "n_regs", None),
            "spills": getattr(k, "n_spills", None),
            "smem": getattr(getattr(k, "metadata", None), "shared", None),
        }


class TritonGather:
    """Triton's gather (gl.gather) along ``axis`` with source, index and output in ``layout``."""

    def __init__(self, layout, axis: int, warps: int):
        self.L = gluon_layout(layout)
        self.axis, self.warps = axis, warps
        self.dims = _shape3(layout)
        self.compiled = None

    def loop(self, x, idx, y, k: int, grid: int):
        self.compiled = gather_loop_kernel[(grid,)](x, idx, y, k, self.axis, *self.dims, self.L, num_warps=self.warps)


def compile_offline(kernel: str, case, arch: int = 90):
    """Triton's ``kernel`` ("loop", "stream" or "gather") for ``case``, compiled for sm_<arch> without a GPU
    (triton.compile with an explicit target): its metadata.shared and asm["ptx"] say what it needs. A conversion
    case gives src, dst, warps and dtype; for "gather", a gather case gives layout (source, index and output),
    axis, warps and dtype."""
    warps, dtype = case.warps, case.dtype
    layout_a = case.layout if kernel == "gather" else case.src
    s0, s1, s2, rank = _shape3(layout_a)
    dims = {"S0": s0, "S1": s1, "S2": s2, "RANK": rank}
    ptr = TRITON_PTR[dtype]
    if kernel == "gather":
        fn = gather_loop_kernel
        sig = {"x_ptr": ptr, "i_ptr": "*i32", "y_ptr": ptr, "K": "i32"}
        consts = {"AXIS": case.axis, **dims, "L": gluon_layout(layout_a)}
    else:
        fn = loop_kernel if kernel == "loop" else stream_kernel
        sig = {"x_ptr": ptr, "y_ptr": ptr, ("K" if kernel == "loop" else "s"): ("i32" if kernel == "loop" else "fp32")}
        consts = {**dims, "A": gluon_layout(layout_a), "X": gluon_layout(case.dst), "INT": INT_OF.get(dtype)}
        if kernel == "stream":
            consts["CONVERT"] = True
    return compile_gluon(fn, sig, consts, warps, arch)


def compile_gluon(fn, args: dict, consts: dict, warps: int, arch: int = 90):
    """Gluon kernel ``fn`` compiled for sm_<arch> without a GPU: ``args`` the types of its runtime arguments,
    ``consts`` its constexprs."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    sig = {**args, **dict.fromkeys(consts, "constexpr")}
    src = GluonASTSource(fn=fn, signature=sig, constexprs=consts)
    return triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": warps})


__all__ = [
    "TORCH_DTYPES",
    "TritonCase",
    "TritonGather",
    "compile_gluon",
    "compile_offline",
    "gluon_layout",
    "triton",
]
