"""One warp-shuffle round, the unit the shuffle planner (plan/shuffle.py) lays out and the word assembly
(plan/shuffle_words.py) builds words for: a leaf both import."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.plan.affine import Affine


@dataclass(frozen=True)
class ShuffleRound:
    """One round: each thread sends word ``send_reg`` and fills ``recv_reg``.

    ``src_lane``, ``send_reg`` and ``recv_reg`` are affine in the thread bits (lane, warp).
    ``op`` is "local" (the source is the thread itself: a register select), "xor" (src lane =
    lane ^ xor_mask: shfl.xor) or "idx" (shfl.idx)."""

    index: int
    src_lane: Affine
    send_reg: Affine
    recv_reg: Affine
    op: str
    xor_mask: int
