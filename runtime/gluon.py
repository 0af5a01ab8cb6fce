"""Triton's own `convert_layout` between the same layouts, written in Gluon: the baseline of
`llgen bench`. Our layouts are handed to Gluon as explicit bases (DistributedLinearLayout), so
both sides convert between bit-identical layouts. Imported only where triton is installed.
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
}


def gluon_layout(layout):
    """Our LinearLayout as Gluon's DistributedLinearLayout."""
    d = layout.to_dict()
    b = d["bases"]
    return gl.DistributedLinearLayout(
        b.get("register", []), b.get("lane", []), b.get("warp", []), b.get("block", []), list(d["out_dims"].values())
    )


@gluon.jit
def loop_kernel(x_ptr, y_ptr, K, BM: gl.constexpr, BN: gl.constexpr, A: gl.constexpr, X: gl.constexpr):
    pm = gl.program_id(0)
    rows = pm * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, A))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, A))
    offs = gl.expand_dims(rows, 1) * BN + gl.expand_dims(cols, 0)
    x = gl.load(x_ptr + offs)
    for _ in range(K):
        y = gl.convert_layout(x, X)
        y = y + 1
        x = gl.convert_layout(y, A)
    gl.store(y_ptr + offs, x)


@gluon.jit
def stream_kernel(x_ptr, y_ptr, s, BM: gl.constexpr, BN: gl.constexpr, A: gl.constexpr, X: gl.constexpr, CONVERT: gl.constexpr):
    pm = gl.program_id(0)
    rows = pm * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, A))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, A))
    offs = gl.expand_dims(rows, 1) * BN + gl.expand_dims(cols, 0)
    x = gl.load(x_ptr + offs)
    sv = s.to(x.dtype)
    if CONVERT:
        y = gl.convert_layout(x, X)
        y = y + sv
        x = gl.convert_layout(y, A)
    else:
        x = x + sv
    gl.store(y_ptr + offs, x)


class TritonCase:
    """Compiled Gluon kernels for one case; launch functions take torch tensors."""

    def __init__(self, src, dst, warps: int):
        self.A, self.X = gluon_layout(src), gluon_layout(dst)
        self.BM, self.BN = src.shape
        self.warps = warps
        self.compiled = None

    def loop(self, x, y, k: int, grid: int):
        self.compiled = loop_kernel[(grid,)](x, y, k, self.BM, self.BN, self.A, self.X, num_warps=self.warps)

    def stream(self, x, y, s: float, tiles: int, convert: bool = True):
        stream_kernel[(tiles,)](x, y, s, self.BM, self.BN, self.A, self.X, convert, num_warps=self.warps)

    def resources(self) -> dict:
        k = self.compiled
        return {
            "regs": getattr(k, "n_regs", None),
            "spills": getattr(k, "n_spills", None),
            "smem": getattr(getattr(k, "metadata", None), "shared", None),
        }


__all__ = ["TORCH_DTYPES", "TritonCase", "gluon_layout", "triton"]
