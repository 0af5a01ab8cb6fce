"""llgen's shuffle words against Triton's warp-local lowering, counted in SASS on sm_90.

Both sides are compiled on the CPU and their selects and byte permutes counted per thread, one direction at a time:

- llgen: the emitted header's ``convert_bits`` between 32-bit words a kernel loads and stores whole (no packing of
  its own), so every SEL/PRMT (and predicated MOV, ptxas's other select) in it is the conversion's;
- Triton: a Gluon kernel that loads a tile in layout A, ``convert_layout``s it to B and stores it in B, less the
  same kernel without the conversion (loading and storing in B), so what stays is the conversion's.

``python tests/test_shuffle_vs_triton.py [suite ...]`` prints the table for every case of the suites (default: warplocal,
core, wide) that shuffles can convert; the test holds the swap cases of the warplocal suite to ``llgen <= Triton``.
"""

from __future__ import annotations

import re
import sys

import pytest

triton = pytest.importorskip("triton")
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

from llgen.runtime.gluon import TRITON_PTR, _shape3, gluon_layout, tile_offsets  # noqa: E402

# ptxas's selects: SEL or FSEL (f32 words select as floats, Triton's and ours), and a move under a predicate where it
# folds a select into a register it overwrites
_OPS = {"SEL": r"F?SEL", "PRMT": r"PRMT", "MOV?": r"MOV", "SHFL": r"SHFL\.\w+"}
_LINE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def counts(sass: str) -> dict[str, int]:
    """SEL (FSEL counted with it), PRMT, predicated MOV (``MOV?``) and SHFL instructions of one function's cuobjdump
    text."""
    out = dict.fromkeys(_OPS, 0)
    for pred, op in _LINE.findall(sass):
        for key, pat in _OPS.items():
            if re.fullmatch(pat, op) and (key != "MOV?" or pred):
                out[key] += 1
    return out


def _functions(cubin: bytes) -> dict[str, str]:
    from llgen.runtime.toolchain import cuobjdump_text

    text = cuobjdump_text(cubin, "-sass")
    chunks = re.split(r"^\s*Function : (\S+)\s*$", text, flags=re.MULTILINE)[1:]
    return dict(zip(chunks[0::2], chunks[1::2], strict=True))


def _harness(name: str) -> str:
    return f"""
extern "C" __global__ void {name}_words(const llgen::{name}::Word* in, llgen::{name}::Word* out) {{
  using namespace llgen::{name};
  constexpr int na = kInRegs > kPer ? kInRegs / kPer : 1, nb = kOutRegs > kPer ? kOutRegs / kPer : 1;
  Word a[na], b[nb];
#pragma unroll
  for (int k = 0; k < na; ++k) a[k] = in[k * kThreads + threadIdx.x];
  convert_bits<0, -1>(a, b);
#pragma unroll
  for (int k = 0; k < nb; ++k) out[k * kThreads + threadIdx.x] = b[k];
}}
"""


def llgen_counts(plans: dict[str, object]) -> dict[str, dict[str, int]]:
    """Per named shuffle plan, the counts of its ``convert_bits`` between whole words, compiled in one source."""
    from llgen.emit import emit
    from llgen.runtime.toolchain import compile_cuda

    source = "\n".join(emit(p, "header", n) + _harness(n) for n, p in plans.items())
    funcs = _functions(compile_cuda(source, "sm_90").data)
    return {n: counts(funcs[f"{n}_words"]) for n in plans}


def triton_counts(a, b, warps: int, dtype: str) -> dict[str, int]:
    """Triton's convert_layout A -> B (Gluon, sm_90): the counts of load-A/convert/store-B less load-B/store-B."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    def run(la, lb):
        s0, s1, s2, rank = _shape3(a)
        consts = {"S0": s0, "S1": s1, "S2": s2, "RANK": rank, "A": gluon_layout(la), "X": gluon_layout(lb)}
        sig = {"x_ptr": TRITON_PTR[dtype], "y_ptr": TRITON_PTR[dtype], **dict.fromkeys(consts, "constexpr")}
        src = GluonASTSource(fn=_one_way, signature=sig, constexprs=consts)
        k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
        (sass,) = _functions(k.asm["cubin"]).values()
        return counts(sass)

    full, base = run(a, b), run(b, b)
    return {k: full[k] - base[k] for k in full}


@gluon.jit
def _one_way(
    x_ptr, y_ptr, S0: gl.constexpr, S1: gl.constexpr, S2: gl.constexpr, RANK: gl.constexpr, A: gl.constexpr, X: gl.constexpr
):
    """One tile loaded in A, converted to X and stored in X (A == X: the same without a conversion)."""
    x = gl.load(x_ptr + tile_offsets(0, S0, S1, S2, RANK, A))
    gl.store(y_ptr + tile_offsets(0, S0, S1, S2, RANK, X), gl.convert_layout(x, X))


def _mixed(case) -> int:
    """m: A's register bits that B holds in lanes (each one of the register/lane transpositions)."""
    a_reg = set(map(tuple, case.src.to_dict()["bases"]["register"]))
    return sum(1 for v in case.dst.to_dict()["bases"]["lane"] if tuple(v) in a_reg)


def _case(cid):
    from llgen.cases.suite import warplocal, wide

    return next(c for c in [*warplocal(), *wide()] if c.id == cid)


def _plan(case):
    from llgen.plan import plan_conversion

    return plan_conversion(case.src, case.dst, case.dtype, "sm_90", path="shuffle")


def _selects(c: dict[str, int]) -> int:
    return c["SEL"] + c["PRMT"] + c["MOV?"]


def test_no_more_selects_and_permutes_than_triton_where_it_shuffles():
    """One mixed transposition (m = 1), where Triton lowers by warp shuffles (sizePerThread
    [1,1] -> [16,1], 64x64 f16: Triton 66 SEL + 192 PRMT, llgen 288 before its words took selected operands), a
    32-bit pair (48 FSEL each) and an 8x8 f16 tile of one element a shuffle (Triton 4 SEL): llgen's selects and
    permutes per thread are no more than Triton's, with as many SHFL."""
    from llgen.runtime.toolchain import ToolchainUnavailable

    ids = ("wl1_spt1_to_spt16_f16", "r18_339_f32", "tiny_8x8_f16")
    try:
        ours = llgen_counts({cid: _plan(_case(cid)) for cid in ids})
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    for cid in ids:
        c = _case(cid)
        theirs = triton_counts(c.src, c.dst, c.warps, c.dtype)
        assert _mixed(c) == 1 and theirs["SHFL"] == ours[cid]["SHFL"] > 0, (cid, theirs, ours[cid])
        assert _selects(ours[cid]) <= _selects(theirs), (cid, ours[cid], theirs)


def test_swaps_stay_within_the_count_of_tritons_warp_local_lowering():
    """Two mixed transpositions and more: Triton 3.6 converts through shared memory (its warp-local lowering takes
    m < 2), so its SASS has no shuffle words to count; llgen's stay within the 2 m R selects per thread (R: B's 32-bit
    words) that lowering spends, SASS counted, besides one select for each per-thread byte-permute selector."""
    from llgen.emit import emit
    from llgen.runtime.toolchain import ToolchainUnavailable

    ids = ("wl4_swap3_f16", "wl1_swap2_i8", "wl4_swap3_f32")
    c = _case(ids[0])
    assert triton_counts(c.src, c.dst, c.warps, c.dtype)["SHFL"] == 0
    plans = {cid: _plan(_case(cid)) for cid in ids}
    try:
        ours = llgen_counts(plans)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    for cid, p in plans.items():
        selectors = emit(p, "header", "x").count("byte-permute selector of this thread's class")
        bound = 2 * _mixed(_case(cid)) * len(p.detail.assembly.b_words) + selectors
        assert _selects(ours[cid]) <= bound, (cid, ours[cid], bound)


def test_f32_words_select_with_fsel_where_triton_shuffles_and_sel_elsewhere():
    """One register/lane transposition (m = 1), where Triton shuffles and its f32 selects are FSEL: llgen's are FSEL
    too (sel_f32); at m = 3 (Triton goes through shared memory) they stay SEL, which ptxas packs tighter there
    (docs/design.md §4.5)."""
    from llgen.runtime.toolchain import ToolchainUnavailable

    ids = ("wl1_mma2dotA_f32", "wl4_mma2b_f32", "wl4_swap3_f32")
    plans = {cid: _plan(_case(cid)) for cid in ids}
    try:
        from llgen.emit import emit
        from llgen.runtime.toolchain import compile_cuda

        source = "\n".join(emit(p, "header", n) + _harness(n) for n, p in plans.items())
        funcs = _functions(compile_cuda(source, "sm_90").data)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    for cid in ids:
        ops = [op for _, op in _LINE.findall(funcs[f"{cid}_words"])]
        fsel, sel = ops.count("FSEL"), ops.count("SEL")
        assert (fsel > 0, sel) == (True, 0) if _mixed(_case(cid)) == 1 else (fsel, sel > 0) == (0, True), (cid, fsel, sel)


if __name__ == "__main__":
    from llgen.cases.suite import suite
    from llgen.core.errors import LlgenError

    names = sys.argv[1:] or ["warplocal", "core", "wide"]
    plans, cases = {}, []
    for c in (c for name in names for c in suite(name)):
        try:
            plans[c.id] = _plan(c)
        except LlgenError:  # shuffles cannot convert it: not in the table
            continue
        cases.append(c)
    ours = llgen_counts(plans)
    print(f"{'case':26} {'m':>2} {'model':>5} | llgen SEL PRMT MOV? SHFL | Triton SEL PRMT MOV? SHFL")
    for c in cases:
        t, o = triton_counts(c.src, c.dst, c.warps, c.dtype), ours[c.id]
        row = " ".join(f"{o[k]:4}" for k in _OPS) + " | " + " ".join(f"{t[k]:4}" for k in _OPS)
        print(f"{c.id:26} {_mixed(c):2} {plans[c.id].detail.assembly.instructions():5} |       {row}", flush=True)
