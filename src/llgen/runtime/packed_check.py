"""A 4-bit conversion's header run as a consumer calls it: each thread passes its packed registers of A to
``convert_packed``, then ``upcast_f16`` and ``upcast_bf16`` turn B's packed registers into 16-bit pairs. Every byte
of B and every upcast word is compared with NumPy (on a GPU, or on CPU threads with llgen.runtime.host)."""

from __future__ import annotations

import numpy as np

from llgen.emit import emit
from llgen.runtime.preshuffle_check import Outcome, decode, pack_nibbles, pair_halves
from llgen.verify.simulate import element_ids

NAME = "packed_check"


def upcast_source(plan) -> str:
    """The plan's header and ``llgen_packed_check(in, out, f16, bf16)``: thread t reads kInBytes bytes at
    in[t * kInBytes], writes B's bytes at out[t * kOutBytes] and both upcasts at f16/bf16[t * kOutBytes]."""
    return (
        emit(plan, "header", NAME)
        + f"""
extern "C" __global__ void llgen_packed_check(const unsigned char* in, unsigned char* out, unsigned* f16, unsigned* bf16) {{
  using namespace llgen::{NAME};
  alignas(16) __shared__ unsigned char smem[kSmemDecl];
  const unsigned t = threadIdx.x;
  unsigned char a[kInBytes], b[kOutBytes];
  for (int i = 0; i < kInBytes; ++i) a[i] = in[t * kInBytes + i];
  convert_packed(a, b, smem);
  unsigned h[kOutBytes], g[kOutBytes];
  upcast_f16(b, h);
  upcast_bf16(b, g);
  for (int j = 0; j < kOutBytes; ++j) {{
    out[t * kOutBytes + j] = b[j];
    f16[t * kOutBytes + j] = h[j];
    bf16[t * kOutBytes + j] = g[j];
  }}
}}
"""
    )


def run_upcast(plan, compiler, seed: int = 0) -> Outcome:
    """Random nibbles through ``convert_packed`` and both upcasts, against NumPy."""
    label = f"{plan.form} {plan.dtype.name} {plan.path}"
    warps, lanes = plan.warps, plan.target.lanes
    threads = warps * lanes
    vals = np.random.default_rng(seed).integers(0, 16, int(np.prod(plan.src.shape)), dtype=np.int64)
    src = pack_nibbles(vals[element_ids(plan.src, warps, lanes)]).reshape(threads, -1)
    want = vals[element_ids(plan.dst, warps, lanes)].reshape(threads, -1)
    mod = compiler(upcast_source(plan))
    n = threads * (plan.n_out // 2)
    out = mod.filled(n, np.uint8, 0xEE)
    f16, bf16 = (mod.filled(n, np.uint32, 0xDEADBEEF) for _ in range(2))
    mod.launch("llgen_packed_check", 1, threads, (mod.to_device(src.reshape(-1)), out, f16, bf16))
    mod.synchronize()
    checks = [("bytes", mod.to_host(out).reshape(threads, -1), pack_nibbles(want))]
    for name, dev in (("upcast_f16", f16), ("upcast_bf16", bf16)):
        exp = pair_halves(decode(want, plan.dtype.name, name.removeprefix("upcast_")))
        checks.append((name, mod.to_host(dev).reshape(threads, -1), exp))
    for what, got, exp in checks:
        if not np.array_equal(got, exp):
            t, j = np.argwhere(got != exp)[0]
            return Outcome(label, False, f"{what}: thread {t} word {j}: {int(got[t, j]):#x} != {int(exp[t, j]):#x}")
    return Outcome(label, True)
