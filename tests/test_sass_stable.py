"""The compact headers compile to the machine code of the straight-line ones they replaced.

Every suite header (core and regressions, each variant gpu-check runs) is compiled for sm_80 and sm_90 with NVRTC,
as its standalone kernels (the *_bits forms) and as a kernel calling the typed API (load_a, convert, store_b).
tests/data/sass-baseline.json holds the SASS opcode counts of the same kernels from the last straight-line emitter
(commit 296dbcf), rewritten for each intended change of plans or words:

- the shuffle words and the one-sided vectors of docs/design.md §6.1 made 43 kernels 1-76% shorter (8 typed ones
  moved by one instruction);
- 8-bit words built by byte permutes (docs/design.md §8.2): wide's f8 LOOPs lost a third to a half of their
  instructions (mma2b_f8e5m2 869 -> 357 a step), and one kernel here grew: slice_1d_256_i8, whose 2-byte global loads
  build A's words half by half, 166 -> 176 (ptxas folds masks through those inserts, not a PRMT);
- loads that fill B's packed words from all of a round's loads at once (llgen.emit.spelling.name_loads): the
  standalone and typed forms of b2bT_f16 and b2dotB_f16's shared_vec, whose element-wise global stores ptxas fed from
  the loaded halves directly, grew by 64 (a PRMT builds each of B's words); their LOOPs, which use the words, lost
  96-132 instructions a step (b2dotB_f16 483 -> 387, wl1_slice_f16 606 -> 478);
- the stmatrix offset pinned before the replica-warp test (llgen.emit.context, st_pin): 6 of the 464 kernels moved,
  none in their memory instructions (2 straight-line kernels 1 and 3 longer, 4 one shorter); in a loop ptxas does not
  rebuild the offset each step (b2dotA_f16's LOOP: a chain of 13 dependent ALU instructions ahead of its stmatrix, 3
  with the pin).

For each kernel:

- memory, shuffle and barrier instructions are the same, opcode for opcode (LDG/STG/LDS/STS/LDSM/STSM/SHFL/BAR);
- it has no more instructions than before (NOPs aside; the typed forms 1% at most);
- it uses no more local memory (none, but for a regressions case of 512 elements a thread, which spilled before).

When this file was written, 378 of the 408 kernels were byte-identical; the rest differ in scheduling or are
shorter (the typed 8-bit loads unpack with fewer instructions, the t16x32 shuffle's typed form saves 56).
After an intended change in generated code: `python tests/test_sass_stable.py` rewrites the baseline.

Each entry also holds its kernel's text hash (llgen.runtime.toolchain.sass_key: the text of the case's kernel and
typed harness, the arch, NVRTC's flags and the pinned releases). A kernel whose text hashes as its entry says passed
these checks when the hash was written, with the same compiler, so it is not compiled again; only kernels whose text
changed are compiled and checked. `python tests/test_sass_stable.py --rehash` records today's hashes where every
kernel still passes, keeping the counts.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from helpers import recorded_facts

BASELINE = Path(__file__).parent / "data" / "sass-baseline.json"
PINNED = ("LDG", "STG", "LDS", "STS", "LDSM", "STSM", "SHFL", "BAR")
FORMS = ("kernel", "typed")


def _typed_harness(job) -> str:
    n, raw = job.name, job.plan.dtype.raw
    return f"""
extern "C" __global__ void {n}_typed(const {raw}* in, {raw}* out) {{
  alignas(16) __shared__ unsigned char smem[llgen::{n}::kSmemDecl > 49152 ? 16 : llgen::{n}::kSmemDecl];
  {raw} a[llgen::{n}::kInRegs], b[llgen::{n}::kOutRegs];
  llgen::{n}::load_a(in, a);
  llgen::{n}::convert(a, b, smem, llgen::{n}::scratch);  // as in a loop over tiles: it used smem last
  llgen::{n}::store_b(out, b);
}}
"""


def summaries(suite: str, arch: str, known: dict) -> dict:
    """Opcode counts (NOPs aside), local memory and text hash of each kernel of one suite on one arch. A case whose
    text hashes as its entries in ``known`` (the baseline) keeps those entries; the others compile, in one source
    (helpers.recorded_facts)."""
    from llgen.emit import emit
    from llgen.runtime.cases import suite_jobs
    from llgen.runtime.toolchain import sass_key

    jobs = suite_jobs(suite, arch)[0]
    units = {j.name: emit(j.plan, "kernel", j.name) + _typed_harness(j) for j in jobs}
    hashes = {name: sass_key(text, arch) for name, text in units.items()}
    by_hash: dict = {}  # the baseline as recorded_facts reads a record: text hash -> {form: entry}
    for key, w in known.items():
        if key.startswith(f"{arch}/") and "hash" in w:
            by_hash.setdefault(w["hash"], {})[key.rsplit("/", 1)[1]] = w
    by_hash = {h: forms for h, forms in by_hash.items() if set(forms) == set(FORMS)}

    def facts(kernels, name):
        return {
            form: {
                "hash": hashes[name],
                "ops": {op: n for op, n in sorted(kernels[f"{name}_{form}"].opcodes.items()) if op != "NOP"},
                "local": kernels[f"{name}_{form}"].local + kernels[f"{name}_{form}"].stack,
            }
            for form in FORMS
        }

    found, _ = recorded_facts(units, arch, by_hash, facts)
    return {f"{arch}/{j.label}/{form}": found[j.name][form] for j in jobs for form in FORMS}


def _all(known: dict) -> dict:
    parts = [(s, a) for s in ("core", "regressions") for a in ("sm_80", "sm_90")]
    with ProcessPoolExecutor(max_workers=2) as pool:
        found = {}
        for d in pool.map(summaries, *zip(*parts, strict=True), [known] * len(parts)):
            found.update(d)
    return found


def _pinned(ops: dict) -> dict:
    return {op: n for op, n in ops.items() if op.split(".")[0] in PINNED}


def _problems(key: str, g: dict, w: dict) -> list[str]:
    """How kernel ``key``'s summary ``g`` breaks the rules above against its baseline entry ``w``."""
    bad = []
    if _pinned(g["ops"]) != _pinned(w["ops"]):
        bad.append(f"{key}: memory/shuffle/barrier {_pinned(w['ops'])} -> {_pinned(g['ops'])}")
    # the typed forms may schedule their address arithmetic one instruction differently (1% at most)
    allowed = sum(w["ops"].values()) * (1.01 if key.endswith("/typed") else 1)
    if sum(g["ops"].values()) > allowed:
        bad.append(f"{key}: {sum(w['ops'].values())} -> {sum(g['ops'].values())} instructions")
    if g["local"] > w["local"]:  # only the 512-elements-a-thread regressions case spills, as it did before
        bad.append(f"{key}: local memory {w['local']} -> {g['local']} bytes")
    return bad


def test_compact_headers_keep_the_machine_code():
    from llgen.runtime.toolchain import ToolchainUnavailable

    want = json.loads(BASELINE.read_text())
    try:
        got = _all(want)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    assert got.keys() == want.keys(), sorted(got.keys() ^ want.keys())[:6]
    bad = [line for key, w in want.items() for line in _problems(key, got[key], w)]
    assert not bad, "\n".join(bad[:20])


def rehash() -> dict:
    """The baseline with each kernel's hash of today's text where that kernel, compiled, passes against its entry
    (and none where it does not); the counts stay as they are."""
    want = json.loads(BASELINE.read_text())
    got = _all({})
    for key, w in want.items():
        w.pop("hash", None)
        if key in got and not _problems(key, got[key], w):
            w["hash"] = got[key]["hash"]
    return want


if __name__ == "__main__":
    # `--rehash` after a change that keeps every kernel within its entry (no compile for them in later runs)
    BASELINE.write_text(json.dumps(rehash() if "--rehash" in sys.argv else _all({}), indent=0, sort_keys=True) + "\n")
    print(BASELINE, file=sys.stderr)
