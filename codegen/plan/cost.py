"""The cost model that picks a path: cycles of one SM's issue slots per converted tile."""

from __future__ import annotations

from .shared import SharedPlan
from .shuffle import ShufflePlan

# Throughputs per SM per clock on sm_80/sm_90 (the same model is used for gfx9). A warp-wide SHFL and a
# shared-memory wavefront take turns in one pipe: on the H100, a round trip that sends K of 32 registers by
# SHFL and the rest through shared memory takes K + 2(32 - K) clocks per warp, not max(K, 2(32 - K))
# (bench/NOTES.md, probe 2). So splitting a conversion between the two paths never beats the cheaper one.
SHFL_PER_CLK = 1.0  # warp-wide SHFL (32 x 4 bytes = one wavefront's worth of data)
WAVEFRONTS_PER_CLK = 1.0  # shared-memory wavefronts (128 bytes)
ALU_PER_CLK = 4.0  # warp-wide integer/select instructions (4 sub-partitions)
BARRIER_CLK = 20.0  # a CTA-wide barrier's bubble, paid once per store/load round


def shuffle_cost(plan: ShufflePlan, warps: int) -> float:
    """Each non-local round costs one SHFL per 32-bit word; selecting the word to send and the
    register to fill costs a select per candidate register. Local rounds are selects only."""
    alu = 0
    for r in plan.rounds:
        send_choices = 1 << len(r.send_reg.image_basis())
        recv_choices = 1 << len(r.recv_reg.image_basis())
        alu += (send_choices - 1 + recv_choices) * plan.words_per_element * (1 << len(plan.pack_a))
    return warps * (plan.shuffles / SHFL_PER_CLK + alu / ALU_PER_CLK)


def shared_cost(plan: SharedPlan) -> float:
    """Wavefronts dominate: every wavefront is a clock of the shared-memory pipe. Each round adds
    two barriers (store/load and load/next store)."""
    wf = plan.predicted_store_wavefronts + plan.predicted_load_wavefronts
    syncs = 0 if plan.warp_sync else 2 * plan.rounds * BARRIER_CLK
    return wf / WAVEFRONTS_PER_CLK + syncs


def choose_path(costs: dict[str, float], forced: str | None) -> tuple[str, str]:
    """The cheapest valid path and one sentence saying why."""
    if forced:
        return forced, f"the {forced} path was forced"
    if "shuffle" not in costs:
        return "shared", "data crosses warps, so it goes through shared memory"
    if costs["shuffle"] <= costs["shared"]:
        return "shuffle", f"warp shuffles cost {costs['shuffle']:.0f} vs {costs['shared']:.0f} cycles for shared memory"
    return "shared", f"shared memory costs {costs['shared']:.0f} vs {costs['shuffle']:.0f} cycles for warp shuffles"
