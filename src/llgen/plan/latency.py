"""The one-CTA latency model: clocks from a CTA's first instruction of a conversion to B's last word being ready,
when nothing else runs on the SM (a warp-specialised partition, the critical path of an attention loop, a small grid).

cost.py predicts throughput, where many CTAs hide each other's latencies and only the pipes count. Alone, a CTA
waits. Instruction latencies and intervals are plan/latency_table.py's (measured by bench/probes/latency_table.py); how
they add up was fitted to every variant's one-CTA LOOP on the H100 (the warplocal suite, then all suites;
bench/NOTES.md).

- Shuffles: a warp issues its SHFLs and runs its selects and PRMTs one after another (an ALU interval each, the
  warps of one scheduler in turn), or waits on its SHFLs where they outnumber that work (one a SHFL interval; lanes_f32
  sends 32 words and builds none), and then on the last SHFL's latency. The words that feed a SHFL and the selects
  that build B's words from it hide among the others' instructions: the emitter builds B's words after every shuffle
  (as Triton's lowering does), so ptxas keeps the SHFLs in flight. Fitted on the one-CTA LOOPs of all suites (the timer's
  quantisation gone, bench/NOTES.md): 16- and 32-bit shuffles measured 2 clocks a select and 1 a SHFL over them
  (wl1_mma2dotB_f16: 128 selects, 64 SHFL, 357 clocks a conversion; wl4_mma2b_f32 the same counts, 353;
  r3_mma2b_4x64x32_f16: 112 and 24, 236), where the model before (a SHFL unit on top, and the chains that build the
  words) predicted 15-33% over; 8-bit LOOPs measure their selects next to the LOOP's own byte-wise `+ 1`, on the
  same pipe, and sit 0-5% over this.
- Shared memory, per round: the stores issue, the last one lands, the barrier, the loads issue, the last one
  returns; a later round first waits on a second barrier (the loads before the next stores), and PRMTs repack
  words around the accesses. Those PRMTs issue while the pipe still serves other warps' accesses, so only what
  outlasts that wait adds (wl4_swap2_i8: 64 PRMTs a conversion measured 42 clocks over wl4_b2dotA_i8's same accesses
  at four warps, 101 at one warp). An ldmatrix / stmatrix costs what the vector access of its bytes
  costs: the probe's figures for the two agree within 5%, and the same kernels measured either one faster by up to 7%
  (wl4_mma2b_f16 against wl4_b2dotA_f16, whose LOOPs run the same two conversions).
- Behind warp barriers (a warp-local plan) rounds overlap: each round's loads issue right after its own stores, so
  the store-to-load chain is exposed once, not once a round, and the next conversion (or any consumer of B) starts
  on the first round's words while later rounds load. The planner splits such plans into rounds for that
  (docs/design.md §5.4; measured in bench/NOTES.md).
"""

from __future__ import annotations

from llgen.plan.cost import WAVEFRONTS_PER_CLK
from llgen.plan.latency_table import TABLE, interval, lat
from llgen.plan.shared import Barrier, SharedPlan, Side, repacked_words
from llgen.plan.shuffle import ShufflePlan

SUB_PARTITIONS = 4  # warp schedulers per SM: warps 0-3 issue side by side, a fifth shares a scheduler


def _per_scheduler(warps: int) -> int:
    return -(-warps // SUB_PARTITIONS)


def shuffle_latency(plan: ShufflePlan, warps: int, table: dict = TABLE) -> float:
    asm = plan.assembly
    alu = asm.instructions()
    shuffles = plan.shuffles * interval("issue", table) + alu * interval("alu", table)
    issue = _per_scheduler(warps) * max(shuffles, plan.shuffles * interval("shfl", table))
    return issue + (lat("shfl", table) if plan.shuffles else 0)


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


def _issue_and_pipe(side: Side, rnd: int, warps: int, elem_bytes: int, table: dict) -> tuple[float, float]:
    """One round's accesses of one side: how long a scheduler takes to issue them, and how long the shared-memory pipe
    takes them from all the active warps."""
    n = sum(1 for i in side.instrs if i.round == rnd)
    active = sum(1 for w in range(warps) if not w & side.predicate_warp_mask)
    issue = _per_scheduler(active) * n * interval(_table_class(side, elem_bytes), table)
    return issue, side.wavefronts_per_instr * n * active / WAVEFRONTS_PER_CLK


def _table_class(side: Side, elem_bytes: int) -> str:
    cls = access_class(side, elem_bytes)
    return SAME_BYTES.get(cls, cls)


def _last(side: Side, rnd: int, elem_bytes: int, table: dict) -> float:
    """The latency of a round's last access of one side, which follows its issue (none where the round has none)."""
    return lat(_table_class(side, elem_bytes), table) if any(i.round == rnd for i in side.instrs) else 0.0


# Several warps overlap rounds of up to this many accesses a side. Four warps measured two rounds of 8 accesses
# 7-9% slower than one round, and 4 rounds of 4 (or 2 of 4, 8-bit) 5-13% faster (wl4_mma2b_f16, wl4_mma2b_f32,
# wl4_swap3_f16/f32 against wl4_b2dotA_i8, wl4_swap2_i8, wl4_mma2dotA_i8; bench/NOTES.md).
MULTI_WARP_ROUND_ACCESSES = 4


def _rounds_overlap(plan: SharedPlan, warps: int) -> bool:
    """Whether a plan's rounds overlap (see the module doc): behind warp barriers, one warp always; several warps
    where each round is short."""
    if plan.barrier == Barrier.CTA:
        return False
    per_round = max(len(s.instrs) for s in (plan.store, plan.load)) // plan.rounds
    return warps == 1 or plan.rounds == 1 or per_round <= MULTI_WARP_ROUND_ACCESSES


# With one warp, half a PRMT's ALU interval shows beside a shared plan's accesses: fitted on the one-CTA LOOPs (H100)
# of the 16-bit one-warp pairs whose both sides repack (wl1_tpw2x16_to_spt4_f16: 192 PRMT a conversion, wl1_tpw8x4_to_spt4_f16 and
# wl1_slice_f16: 128), which measured 30-35% under the model at the full interval while every other plan stayed within
# the model's spread; at half, no measured case's latency pick is slower than its best variant by more than 5% that
# was not before (tpw2x16's shared/shuffle pick, 1.26x its shared/shared variant, becomes shared/shared).
PRMT_OVERLAP_ONE_WARP = 0.5  # several warps: the pipe slack above already overlaps them


def shared_latency(plan: SharedPlan, warps: int, dtype, table: dict = TABLE) -> float:
    sync = lat("bar_sync" if plan.barrier == Barrier.CTA else "syncwarp", table)
    eb = dtype.bytes
    sides = (plan.store, plan.load)
    # each round's side: (its issue, its pipe time); it takes the longer of the two, then its last access's latency
    parts = {(k, r): _issue_and_pipe(side, r, warps, eb, table) for k, side in enumerate(sides) for r in range(plan.rounds)}
    if not _rounds_overlap(plan, warps):
        total = sum(
            max(parts[0, r]) + _last(plan.store, r, eb, table) + sync + max(parts[1, r]) + _last(plan.load, r, eb, table)
            for r in range(plan.rounds)
        )
        total += (plan.rounds - 1) * sync
    else:
        # warp barriers stall nothing: one round's chain (last store lands, last load returns) stays exposed, the
        # others' hide behind the next rounds' accesses, in this conversion and in whatever consumes B round by round
        chain = sum(_last(side, 0, eb, table) for side in sides)
        total = sum(max(part) for part in parts.values())
        total += (chain + sync) / plan.rounds + (2 * plan.rounds - 2) * sync
    prmts = repacked_words(plan.store, dtype) + repacked_words(plan.load, dtype)
    if prmts:
        # the PRMTs issue while the pipe is still busy with other warps' accesses: only what outlasts that wait adds
        slack = sum(max(0.0, pipe - issue) for issue, pipe in parts.values())
        overlap = PRMT_OVERLAP_ONE_WARP if warps == 1 else 1.0
        prmt_clocks = overlap * _per_scheduler(warps) * prmts * interval("alu", table)
        total += max(0.0, prmt_clocks - slack) + lat("alu", table)
    return total
