"""Write the TTGIR dumps in tests/data/ttgir/ with Triton 3.6's compiler on the CPU (no GPU needed):

    .venv/bin/python tests/data/make_ttgir_dumps.py

Four real kernels (a matmul, a row softmax, a layernorm and an attention forward) compiled for sm_90
(`<name>.ttgir`: the `.asm["ttgir"]` text), the matmul and the attention for sm_80 and gfx942 too (the AMD
backend's TTGIR stages run on a CPU), and the layernorm's MLIR_ENABLE_DUMP output cut to three of its pass
dumps (`layernorm.mlir-dump.txt`). Source locations are written relative to this folder and to Triton's
package, so the dumps do not depend on where the repository lives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

HERE = Path(__file__).resolve().parent
OUT = HERE / "ttgir"


@triton.jit
def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # noqa: ARG001 - M sizes the grid
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def softmax(x, y, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x + row * stride + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(y + row * stride + cols, (e / tl.sum(e, axis=0)).to(tl.float16), mask=cols < N)


@triton.jit
def layernorm(x, y, w, b, stride, N, eps, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = cols[None, :] < N
    v = tl.load(x + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(v, axis=1) / N
    d = tl.where(mask, v - mean[:, None], 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, axis=1) / N + eps)
    out = d * rstd[:, None] * tl.load(w + cols, mask=cols < N)[None, :] + tl.load(b + cols, mask=cols < N)[None, :]
    tl.store(y + rows[:, None] * stride + cols[None, :], out.to(tl.float16), mask=mask)


@triton.jit
def attention_fwd(q, k, v, o, seq, scale, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    start = tl.program_id(0) * BM
    base = tl.program_id(1) * seq * D
    rm = start + tl.arange(0, BM)
    rd = tl.arange(0, D)
    qt = tl.load(q + base + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for s in range(0, seq, BN):
        rn = s + tl.arange(0, BN)
        kt = tl.load(k + base + rn[None, :] * D + rd[:, None])
        qk = tl.dot(qt, kt) * scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        vt = tl.load(v + base + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), vt)
        m_i = m_new
    tl.store(o + base + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


KERNELS = {
    "matmul": (
        matmul,
        {"a": "*fp16", "b": "*fp16", "c": "*fp16", "M": "i32", "N": "i32", "K": "i32"},
        {"BM": 128, "BN": 128, "BK": 64},
        4,
    ),
    "softmax": (softmax, {"x": "*fp16", "y": "*fp16", "stride": "i32", "N": "i32"}, {"BLOCK": 1024}, 4),
    "layernorm": (
        layernorm,
        {"x": "*fp16", "y": "*fp16", "w": "*fp32", "b": "*fp32", "stride": "i32", "N": "i32", "eps": "fp32"},
        {"BM": 4, "BN": 256},
        4,
    ),
    "attention_fwd": (
        attention_fwd,
        {"q": "*fp16", "k": "*fp16", "v": "*fp16", "o": "*fp16", "seq": "i32", "scale": "fp32"},
        {"BM": 128, "BN": 64, "D": 64},
        8,
    ),
}

# file name -> (kernel, backend, arch, warp size)
DUMPS = {
    "matmul.ttgir": ("matmul", "cuda", 90, 32),
    "softmax.ttgir": ("softmax", "cuda", 90, 32),
    "layernorm.ttgir": ("layernorm", "cuda", 90, 32),
    "attention_fwd.ttgir": ("attention_fwd", "cuda", 90, 32),
    "matmul.sm80.ttgir": ("matmul", "cuda", 80, 32),
    "attention_fwd.sm80.ttgir": ("attention_fwd", "cuda", 80, 32),
    "matmul.gfx942.ttgir": ("matmul", "hip", "gfx942", 64),
    "attention_fwd.gfx942.ttgir": ("attention_fwd", "hip", "gfx942", 64),
}

# the pass dumps kept from MLIR_ENABLE_DUMP's output: the first (Triton IR, no layouts) and the last two TTGIR ones
KEEP_PASSES = ("(inline)", "(tritongpu-reduce-data-duplication)", "(convert-triton-gpu-to-llvm)")


def compile_ttgir(kernel: str, backend: str, arch, warp: int) -> str:
    fn, signature, constexprs, warps = KERNELS[kernel]
    sig = {**signature, **{name: "constexpr" for name in constexprs}}
    src = triton.compiler.ASTSource(fn, sig, constexprs=constexprs)
    compiled = triton.compile(src, target=GPUTarget(backend, arch, warp), options={"num_warps": warps})
    return relative(compiled.asm["ttgir"])


def relative(text: str) -> str:
    """Source locations relative to this folder ("make_ttgir_dumps.py":12:3) and to Triton's package ("triton/...")."""
    import re  # here, not at the top: a line added above the kernels would move every dumped source location

    text = text.replace(f'"{HERE}{os.sep}', '"').replace(f'"{Path(triton.__file__).resolve().parent}{os.sep}', '"triton/')
    # Triton's cache may hand back a dump compiled from another checkout or venv: those paths go too
    text = re.sub(r'"[^"]*/site-packages/triton/', '"triton/', text)
    return re.sub(r'"[^"]*/make_ttgir_dumps\.py"', '"make_ttgir_dumps.py"', text)


def mlir_dump() -> str:
    """The layernorm compiled in a child process with MLIR_ENABLE_DUMP=1, cut to the KEEP_PASSES sections."""
    env = {**os.environ, "MLIR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1"}
    child = subprocess.run([sys.executable, __file__, "--child-layernorm"], env=env, capture_output=True, text=True, check=True)
    sections = child.stderr.split("// -----// ")
    kept = [s for s in sections[1:] if s.startswith("IR Dump Before") and any(p in s.splitlines()[0] for p in KEEP_PASSES)]
    return relative("".join("// -----// " + s for s in kept))


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (kernel, backend, arch, warp) in DUMPS.items():
        try:
            text = compile_ttgir(kernel, backend, arch, warp)
        except Exception as e:  # noqa: BLE001 - a backend that cannot compile here is reported and left out
            print(f"{name}: not written ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
            continue
        (OUT / name).write_text(text)
        print(f"{name}: {len(text.splitlines())} lines")
    (OUT / "layernorm.mlir-dump.txt").write_text(mlir_dump())
    print("layernorm.mlir-dump.txt written")
    for name in GLUON_DUMPS:
        text = compile_gluon_ttgir(name)
        (OUT / name).write_text(text)
        print(f"{name}: {len(text.splitlines())} lines")


# ---- Two Gluon kernels for sm_90 exercise the shape ops (tests/test_ttgir_shapeops.py): `attention_shapes.ttgir`
# (permute, reshape, split, join, expand_dims, broadcast, and a shared buffer's permute and reshape) and
# `mxfp4_upcast.ttgir` (packed fp4 weights upcast by fp4_to_fp, their scales expanded, broadcast and reshaped).
# They sit below the Triton kernels so that adding them moved none of those kernels' source locations. Gluon states
# every layout it is given; Triton infers each shape op's result layout.
from triton.experimental import gluon  # noqa: E402 - see above
from triton.experimental.gluon import language as gl  # noqa: E402


@gluon.jit
def attention_shapes(q_ptr, k_ptr, o_ptr, BM: gl.constexpr, BN: gl.constexpr, D: gl.constexpr):
    L2: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    L3: gl.constexpr = gl.BlockedLayout([1, 1, 4], [1, 4, 8], [4, 1, 1], [2, 1, 0])
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, L2))
    rd = gl.arange(0, D, layout=gl.SliceLayout(0, L2))
    q = gl.load(q_ptr + gl.expand_dims(rm, 1) * D + gl.expand_dims(rd, 0))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(1, L2))
    k = gl.load(k_ptr + gl.expand_dims(rn, 1) * D + gl.expand_dims(rd, 0))
    kt = gl.permute(k, (1, 0))
    q3 = gl.reshape(q, (BM, D // 2, 2))
    qa, qb = gl.split(q3)
    q2 = gl.reshape(gl.join(qb, qa), (BM, D))
    smem = gl.allocate_shared_memory(gl.float16, [BN, D], gl.NVMMASharedLayout.get_default_for([BN, D], gl.float16), k)
    k_back = gl.permute(smem.permute((1, 0)).load(kt.type.layout), (1, 0))
    k_flat = smem.reshape((BN // 2, 2 * D)).load(L2)
    qe = gl.expand_dims(gl.convert_layout(q2, gl.SliceLayout(1, L3)), 1)
    ke = gl.expand_dims(gl.convert_layout(k_back, gl.SliceLayout(0, L3)), 0)
    qb3, kb3 = gl.broadcast(qe, ke)
    s = gl.sum(qb3 * kb3, 2)
    cn = gl.arange(0, BN, layout=gl.SliceLayout(0, s.type.layout))
    cm = gl.arange(0, BM, layout=gl.SliceLayout(1, s.type.layout))
    gl.store(o_ptr + gl.expand_dims(cm, 1) * BN + gl.expand_dims(cn, 0), s)
    fr = gl.arange(0, BN // 2, layout=gl.SliceLayout(1, L2))
    fc = gl.arange(0, 2 * D, layout=gl.SliceLayout(0, L2))
    gl.store(k_ptr + gl.expand_dims(fr, 1) * (2 * D) + gl.expand_dims(fc, 0), k_flat)


@gluon.jit
def mxfp4_upcast(w_ptr, s_ptr, o_ptr, N: gl.constexpr, K: gl.constexpr):
    LW: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    rn = gl.arange(0, N, layout=gl.SliceLayout(1, LW))
    rk = gl.arange(0, K // 2, layout=gl.SliceLayout(0, LW))
    w = gl.load(w_ptr + gl.expand_dims(rn, 1) * (K // 2) + gl.expand_dims(rk, 0))
    wf = gl.fp4_to_fp(w, gl.bfloat16, 1)
    L3: gl.constexpr = gl.BlockedLayout([1, 1, 8], [8, 1, 4], [4, 1, 1], [2, 1, 0])
    SL: gl.constexpr = gl.SliceLayout(2, L3)
    sn = gl.arange(0, N, layout=gl.SliceLayout(1, SL))
    sk = gl.arange(0, K // 32, layout=gl.SliceLayout(0, SL))
    s = gl.load(s_ptr + gl.expand_dims(sn, 1) * (K // 32) + gl.expand_dims(sk, 0))
    s3 = gl.expand_dims(s.to(gl.float32), 2)
    ones = gl.full((N, K // 32, 32), 1.0, gl.float32, L3)
    s3b, ones = gl.broadcast(s3, ones)
    scale = gl.reshape(s3b, (N, K))
    out = wf.to(gl.float32) * gl.convert_layout(scale, wf.type.layout)
    on = gl.arange(0, N, layout=gl.SliceLayout(1, wf.type.layout))
    ok = gl.arange(0, K, layout=gl.SliceLayout(0, wf.type.layout))
    gl.store(o_ptr + gl.expand_dims(on, 1) * K + gl.expand_dims(ok, 0), out.to(gl.bfloat16))


# file name -> (kernel, argument types, constexprs, warps), compiled for sm_90
GLUON_DUMPS = {
    "attention_shapes.ttgir": (
        attention_shapes,
        {"q_ptr": "*fp16", "k_ptr": "*fp16", "o_ptr": "*fp16"},
        {"BM": 32, "BN": 32, "D": 64},
        4,
    ),
    "mxfp4_upcast.ttgir": (mxfp4_upcast, {"w_ptr": "*u8", "s_ptr": "*u8", "o_ptr": "*bf16"}, {"N": 32, "K": 64}, 4),
}


def compile_gluon_ttgir(name: str) -> str:
    from triton.experimental.gluon._runtime import GluonASTSource

    fn, args, consts, warps = GLUON_DUMPS[name]
    src = GluonASTSource(fn, {**args, **dict.fromkeys(consts, "constexpr")}, constexprs=consts, attrs={})
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    return relative(compiled.asm["ttgir"])


if __name__ == "__main__":
    if sys.argv[1:] == ["--child-layernorm"]:
        compile_ttgir("layernorm", "cuda", 90, 32)
    else:
        main()
