"""The one-CTA latency model: clocks from a CTA's first instruction of a conversion to B's last word being ready,
when nothing else runs on the SM (a warp-specialised partition, the critical path of an attention loop, a small grid).

cost.py predicts throughput, where many CTAs hide each other's latencies and only the pipes count. Alone, a CTA
waits. Instruction latencies and intervals are plan/latency_table.py's (the session-11 probe); how they add up was
fitted to every variant's one-CTA LOOP on the H100 (warplocal suite, session 12, bench/NOTES.md).

- Shuffles: nothing overlaps. A warp issues its SHFLs and runs its selects and PRMTs one after another (an ALU
  interval each, the warps of one scheduler in turn), and its scheduler's shuffle unit takes the SHFLs of the warps
  it runs, one a clock, on top (SHFL_PER_CLK; four warps on four schedulers shuffle side by side: wl4_mma2b_f32's
  shuffles measured 183 ns a conversion at one CTA against shared memory's 289, session 12, which an SM-wide unit
  predicted the other way round): one warp measured about 2 clocks a SEL/PRMT and 2 a SHFL (wl1_mma2dotA_f32: 128
  SHFL, 256 selects, 841 clocks a conversion; wl1_mma2dotB_f16: 64 and 128, 454). Then one chain: the selects that
  build a sent word, one SHFL, the selects and PRMTs that build a word of B. The emitter builds B's words after every
  shuffle (as Triton's lowering does), so ptxas keeps the SHFLs in flight; the run before that (commit 1cec9a1) had
  words built right after their rounds and measured up to 2x over this where ptxas waited out each SHFL
  (wl1_spt1_to_spt16_f16, wl4_mma2dotA_i8: a SHFL's result used 6 and 13 instructions after it).
- Shared memory, per round: the stores issue, the last one lands, the barrier, the loads issue, the last one
  returns; a later round first waits on a second barrier (the loads before the next stores), and PRMTs repack
  words around the accesses. An ldmatrix / stmatrix costs what the vector access of its bytes costs: the probe's
  figures for the two agree within 5%, and the same kernels measured either one faster by up to 7%
  (wl4_mma2b_f16 against wl4_b2dotA_f16, whose LOOPs run the same two conversions).
"""

from __future__ import annotations

from .cost import SHFL_PER_CLK, WAVEFRONTS_PER_CLK
from .latency_table import TABLE, interval, lat
from .shared import Barrier, SharedPlan, Side, repacked_words
from .shuffle import ShufflePlan

SUB_PARTITIONS = 4  # warp schedulers per SM: warps 0-3 issue side by side, a fifth shares a scheduler


def _per_scheduler(warps: int) -> int:
    return -(-warps // SUB_PARTITIONS)


def _word_depth(kind: str, class_bits: int) -> int:
    """Dependent ALU steps that build one word: a select tree over the class bits, a PRMT, or both."""
    return {"select": class_bits, "prmt": 1, "join": class_bits + 1}.get(kind, 0)


def shuffle_latency(plan: ShufflePlan, warps: int, table: dict = TABLE) -> float:
    asm = plan.assembly
    alu = asm.instructions()
    bits = len(asm.basis)
    sent = max((_word_depth(w.kind(), bits) for r in asm.rounds for w in r.sends), default=0)
    built = max((_word_depth(w.kind(), bits) for w, _ in asm.b_words), default=0)
    issue = _per_scheduler(warps) * (plan.shuffles * interval("issue", table) + alu * interval("alu", table))
    shfl_unit = _per_scheduler(warps) * plan.shuffles / SHFL_PER_CLK
    tail = (lat("shfl", table) if plan.shuffles else 0) + (sent + built) * lat("alu", table)
    return issue + shfl_unit + tail


# an ldmatrix / stmatrix is costed as the vector access of the same bytes a thread (see the module doc)
SAME_BYTES = {
    "ldsm_x1": "lds_4",
    "ldsm_x2": "lds_8",
    "ldsm_x4": "lds_16",
    "stsm_x1": "sts_4",
    "stsm_x2": "sts_8",
    "stsm_x4": "sts_16",
}


def access_class(side: Side, elem_bytes: int) -> str:
    """The latency table's class of one side's instructions: ``lds_16``, ``stsm_x4``..."""
    if side.matrices:
        return ("stsm" if side.op.startswith("st") else "ldsm") + f"_x{side.matrices}"
    width = min(16, max(4, side.width * elem_bytes))
    return ("sts" if side.op.startswith("st") else "lds") + f"_{width}"


def _phase(side: Side, rnd: int, warps: int, elem_bytes: int, table: dict) -> float:
    """One round's accesses of one side: issue (or the shared-memory pipe, shared by the active warps), then the
    last access's latency."""
    n = sum(1 for i in side.instrs if i.round == rnd)
    if not n:
        return 0.0
    active = sum(1 for w in range(warps) if not w & side.predicate_warp_mask)
    cls = access_class(side, elem_bytes)
    cls = SAME_BYTES.get(cls, cls)
    issue = _per_scheduler(active) * n * interval(cls, table)
    pipe = side.wavefronts_per_instr * n * active / WAVEFRONTS_PER_CLK
    return max(issue, pipe) + lat(cls, table)


def shared_latency(plan: SharedPlan, warps: int, dtype, table: dict = TABLE) -> float:
    sync = lat("bar_sync" if plan.barrier == Barrier.CTA else "syncwarp", table)
    eb = dtype.bytes
    total = sum(
        _phase(plan.store, r, warps, eb, table) + sync + _phase(plan.load, r, warps, eb, table) for r in range(plan.rounds)
    )
    total += (plan.rounds - 1) * sync
    prmts = repacked_words(plan.store, dtype) + repacked_words(plan.load, dtype)
    if prmts:
        total += _per_scheduler(warps) * prmts * interval("alu", table) + lat("alu", table)
    return total
