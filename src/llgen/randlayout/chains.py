"""Chains of two warp-local conversions on one scratch buffer whose warps own other bytes of it: A -> B and B -> A,
B being A with register and lane bits exchanged (warp bits stay, so both plans are warp-local), kept where the
two shared plans' warp regions disagree (llgen.plan.scratch). Such a chain raced when a warp-local plan began with
__syncwarp whoever used the buffer last; the scratch rule gives it the group's barrier."""

from __future__ import annotations

import random

from llgen.layouts import swapped
from llgen.plan import plan_conversion
from llgen.plan.scratch import entry_barrier
from llgen.plan.shared import Barrier
from llgen.randlayout.draw import draw_layout
from llgen.randlayout.pairs import draw_context
from llgen.spec import Where, parse_layout

# the two chains the bench's LOOP and STREAM got wrong on an H200, 128x128 f16
RACED_CHAINS = (
    (
        "blocked_to_linear_f16",
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>",
        "#ttg.linear<{register = [[64, 0], [32, 0], [16, 0], [8, 0], [0, 4], [0, 2], [0, 1]], lane = [[0, 8], [0, 16], "
        "[0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]], block = []}>",
    ),
    (
        "wgmma_dotA_to_mma_dotA_f16",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 32, 16]}>, kWidth = 1}>",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 8]}>, kWidth = 8}>",
    ),
)


def raced_chains(target: str = "sm_90") -> list[tuple[str, object, object]]:
    """(label, A -> B, B -> A) forced through shared memory, for the two chains above."""
    out = []
    for label, a_text, b_text in RACED_CHAINS:
        a, b = (parse_layout(t, (128, 128), where=Where(target=target)) for t in (a_text, b_text))
        out.append(
            (label, plan_conversion(a, b, "f16", target, path="shared"), plan_conversion(b, a, "f16", target, path="shared"))
        )
    return out


def _swapped(rng: random.Random, lay):
    """``lay`` with 1 to 4 random transpositions among its register and lane bases (its warp bases kept)."""
    slots = [(n, i) for n in ("register", "lane") for i in range(lay.in_bits(n))]
    return swapped(lay, [rng.sample(slots, 2) for _ in range(rng.randint(1, 4))])


def warp_local_chains(n: int, seed: int, target: str = "sm_90", tries: int = 4000) -> list[tuple[str, object, object]]:
    """``n`` chains (label, A -> B, B -> A): both plans forced through shared memory and warp-local, their warp
    regions disagreeing, so one buffer needs the group's barrier before each conversion's stores."""
    rng, out = random.Random(seed), []
    for i in range(tries):
        if len(out) == n:
            break
        dt, ctx = draw_context(rng, target)
        if ctx.warps < 2 or len(ctx.shape) < 2 or min(ctx.shape) < 4:
            continue
        a = draw_layout(rng, ctx.shape, ctx.warps, target, dt)
        if a.layout.in_bits("register") + a.layout.in_bits("lane") < 2:
            continue
        b = _swapped(rng, a.layout)
        try:
            fwd = plan_conversion(a.layout, b, dt, target, path="shared")
            bwd = plan_conversion(b, a.layout, dt, target, path="shared")
        except Exception:  # noqa: BLE001 - a pair the planner refuses (e.g. over the scratch limit) is not a chain
            continue
        if fwd.barrier == bwd.barrier == Barrier.WARP and entry_barrier(fwd, bwd) == Barrier.CTA:
            out.append((f"c{seed}_{i}_{dt}_{a.family}", fwd, bwd))
    return out
