"""The cost model that picks a path: cycles of one SM's issue slots per converted tile."""

from __future__ import annotations

from llgen.plan.shared import Barrier, SharedPlan
from llgen.plan.shuffle import ShufflePlan

# Throughputs per SM per clock on sm_80/sm_90 (the same model is used for gfx9). A warp-wide SHFL and a
# shared-memory wavefront take turns in one pipe: on the H100, a round trip that sends K of 32 registers by
# SHFL and the rest through shared memory takes K + 2(32 - K) clocks per warp, not max(K, 2(32 - K))
# (bench/NOTES.md, probe 2). So splitting a conversion between the two paths never beats the cheaper one.
SHFL_PER_CLK = 1.0  # warp-wide SHFL (32 x 4 bytes = one wavefront's worth of data)
WAVEFRONTS_PER_CLK = 1.0  # shared-memory wavefronts (128 bytes)
ISSUE_PER_CLK = 4.0  # warp instructions of any kind (4 sub-partitions, one issue each)
ALU_PER_CLK = 2.0  # integer ALU warp instructions (SEL, PRMT, LOP3, SHF): 16 lanes a sub-partition on the H100
# A CTA-wide barrier's bubble, paid once per store/load round. Fitted between two measured picks (bench/NOTES.md):
# r1_slice_256_f16's shared A -> B (96 wavefronts, 1 round) beat 128 shuffles by the LSU pipe's count
# under ncu, so 2 barriers cost under 16 each; b2dotA_i8's 144-cycle shuffles beat 128 wavefronts of shared memory, so
# over 8 each.
BARRIER_CLK = 12.0
# Under this many cycles a conversion is bound by latency, not by any pipe: a shuffle round waits for one SHFL,
# shared memory for a store, a barrier and a load. Ties there go to shuffles (r1_64_i8 on the H100: 1.0 ns a round
# trip by shuffles, 1.7 by shared memory, 2 cycles each in the model); above it to shared memory (bench/NOTES.md).
LATENCY_BOUND_CLK = 32.0


def shuffle_cost(plan: ShufflePlan, warps: int) -> float:
    """Three bounds, the slowest one counts (bench/NOTES.md): the SHFL pipe takes one shuffle a clock,
    the integer ALU pipe two warp instructions a clock, and issue four instructions of any kind. Besides the
    shuffles, the instructions are the selects and PRMTs (ALU) that build each sent word and each word of B
    (plan/shuffle_words.py)."""
    alu = plan.assembly.instructions()
    return warps * max(plan.shuffles / SHFL_PER_CLK, alu / ALU_PER_CLK, (plan.shuffles + alu) / ISSUE_PER_CLK)


def shared_cost(plan: SharedPlan) -> float:
    """Wavefronts dominate: every wavefront is a clock of the shared-memory pipe. Each round adds
    two CTA barriers (store/load and load/next store); a warp barrier costs next to nothing."""
    syncs = 2 * plan.rounds * BARRIER_CLK if plan.barrier == Barrier.CTA else 0
    return plan.wavefronts / WAVEFRONTS_PER_CLK + syncs


def choose_path(
    costs: dict[str, float], forced: str | None, objective: str = "throughput", latencies: dict[str, float] | None = None
) -> tuple[str, str]:
    """The cheapest valid path by the objective (throughput: ``costs``; latency: ``latencies``, ties to the
    throughput pick) and one sentence saying why."""
    if forced:
        return forced, f"the {forced} path was forced"
    if "shuffle" not in costs:
        return "shared", "data crosses warps, so it goes through shared memory"
    if objective == "latency" and latencies and latencies["shuffle"] != latencies["shared"]:
        kind = min(latencies, key=latencies.get)
        other = "shared" if kind == "shuffle" else "shuffle"
        names = {"shuffle": "warp shuffles", "shared": "shared memory"}
        return kind, f"one CTA waits {latencies[kind]:.0f} cycles for {names[kind]} vs {latencies[other]:.0f} for {names[other]}"
    # a tie goes to shared memory, which leaves the ALU to the consumer, unless latency bounds both
    if costs["shuffle"] < costs["shared"] or costs["shuffle"] == costs["shared"] < LATENCY_BOUND_CLK:
        return "shuffle", f"warp shuffles cost {costs['shuffle']:.0f} vs {costs['shared']:.0f} cycles for shared memory"
    return "shared", f"shared memory costs {costs['shared']:.0f} vs {costs['shuffle']:.0f} cycles for warp shuffles"
