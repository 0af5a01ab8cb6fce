"""The compact headers compile to the machine code of the straight-line ones they replaced.

Every suite header (core and regressions, each variant gpu-check runs) is compiled for sm_80 and sm_90 with NVRTC,
as its standalone kernels (the *_bits forms) and as a kernel calling the typed API (load_a, convert, store_b).
tests/data/sass-baseline.json holds the SASS opcode counts of the same kernels from the last straight-line emitter
(commit 296dbcf), rewritten once since (session 9) for changes of plans and words: the shuffle words of session 8 and
the one-sided vectors of docs/design.md §6.1 made 43 kernels 1-76% shorter (8 typed ones moved by one instruction).
Rewritten again in session 10 for 8-bit words built by byte permutes (docs/design.md §8.2): wide's f8 LOOPs lost a
third to a half of their instructions (mma2b_f8e5m2 869 -> 357 a step), and one kernel here grew: slice_1d_256_i8,
whose 2-byte global loads build A's words half by half, 166 -> 176 (ptxas folds masks through those inserts, not a
PRMT).
For each kernel:

- memory, shuffle and barrier instructions are the same, opcode for opcode (LDG/STG/LDS/STS/LDSM/STSM/SHFL/BAR);
- it has no more instructions than before (NOPs aside; the typed forms 1% at most);
- it uses no more local memory (none, but for a regressions case of 512 elements a thread, which spilled before).

When this file was written, 378 of the 408 kernels were byte-identical; the rest differ in scheduling or are
shorter (the typed 8-bit loads unpack with fewer instructions, the t16x32 shuffle's typed form saves 56).
After an intended change in generated code: `python tests/test_sass_stable.py` rewrites the baseline.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

BASELINE = Path(__file__).parent / "data" / "sass-baseline.json"
PINNED = ("LDG", "STG", "LDS", "STS", "LDSM", "STSM", "SHFL", "BAR")


def _typed_harness(job) -> str:
    n, raw = job.name, job.plan.dtype.raw
    return f"""
extern "C" __global__ void {n}_typed(const {raw}* in, {raw}* out) {{
  alignas(16) __shared__ unsigned char smem[llgen::{n}::kSmemDecl > 49152 ? 16 : llgen::{n}::kSmemDecl];
  {raw} a[llgen::{n}::kInRegs], b[llgen::{n}::kOutRegs];
  llgen::{n}::load_a(in, a);
  llgen::{n}::convert(a, b, smem);
  llgen::{n}::store_b(out, b);
}}
"""


def summaries(suite: str, arch: str) -> dict:
    """Opcode counts (NOPs aside) and local memory of each kernel of one suite on one arch."""
    from llgen.emit import emit
    from llgen.runtime.cases import suite_jobs
    from llgen.runtime.toolchain import compile_cuda, disassemble

    jobs = suite_jobs(suite, arch)[0]
    kernels = disassemble(compile_cuda("\n".join(emit(j.plan, "kernel", j.name) + _typed_harness(j) for j in jobs), arch))
    out = {}
    for j in jobs:
        for form in ("kernel", "typed"):
            k = kernels[f"{j.name}_{form}"]
            ops = {op: n for op, n in sorted(k.opcodes.items()) if op != "NOP"}
            out[f"{arch}/{j.label}/{form}"] = {"ops": ops, "local": k.local + k.stack}
    return out


def _all() -> dict:
    parts = [(s, a) for s in ("core", "regressions") for a in ("sm_80", "sm_90")]
    with ProcessPoolExecutor(max_workers=4) as pool:
        found = {}
        for d in pool.map(summaries, *zip(*parts, strict=True)):
            found.update(d)
    return found


def _pinned(ops: dict) -> dict:
    return {op: n for op, n in ops.items() if op.split(".")[0] in PINNED}


def test_compact_headers_keep_the_machine_code():
    from llgen.runtime.toolchain import ToolchainUnavailable

    try:
        got = _all()
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    want = json.loads(BASELINE.read_text())
    assert got.keys() == want.keys(), sorted(got.keys() ^ want.keys())[:6]
    bad = []
    for key, w in want.items():
        g = got[key]
        if _pinned(g["ops"]) != _pinned(w["ops"]):
            bad.append(f"{key}: memory/shuffle/barrier {_pinned(w['ops'])} -> {_pinned(g['ops'])}")
        # the typed forms may schedule their address arithmetic one instruction differently (1% at most)
        allowed = sum(w["ops"].values()) * (1.01 if key.endswith("/typed") else 1)
        if sum(g["ops"].values()) > allowed:
            bad.append(f"{key}: {sum(w['ops'].values())} -> {sum(g['ops'].values())} instructions")
        if g["local"] > w["local"]:  # only the 512-elements-a-thread regressions case spills, as it did before
            bad.append(f"{key}: local memory {w['local']} -> {g['local']} bytes")
    assert not bad, "\n".join(bad[:20])


if __name__ == "__main__":
    BASELINE.write_text(json.dumps(_all(), indent=0, sort_keys=True) + "\n")
    print(BASELINE, file=sys.stderr)
