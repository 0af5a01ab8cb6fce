"""Warp-shuffle plans (docs/design.md §4): rounds of one 32-bit shuffle per thread.

Notation follows the paper. Work in the warp-local logical space of the destination B:
  V  common register vectors, packed into one 32-bit word (sub-word types);
  K  one vector k_p per non-broadcast B lane bit p: k_p = f when A also has f in a lane
     (I), else f XOR e with e an A lane vector that B holds in a register (G = E XOR F);
  R  B register vectors completing V ∪ K: there are 2^|R| rounds.
Round r is the coset R(r) + span(V ∪ K) (shifted by D(w) = B_warp(w) - A_warp(w) when A
broadcasts over warps): it holds one word for every B thread and at most one for every A
lane, so each thread sends one word and receives one. Where A replicates a lane bit, the
replica lane is chosen (``tau``) to keep the source lanes distinct.

Every per-thread quantity (source lane, register to send, register to fill) is an affine
function of the lane and warp bits (plan/affine.py); only the constants change per round.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from llgen.core import f2
from llgen.core.dtypes import DType
from llgen.core.target import Target
from llgen.plan.affine import Affine
from llgen.plan.hw import Hw
from llgen.plan.shuffle_round import ShuffleRound
from llgen.plan.shuffle_words import Assembly, assemble


@dataclass(frozen=True)
class ShufflePlan:
    """A warp-shuffle conversion. Registers are element registers of A (send) and B (recv).

    A word packs ``2**len(pack_a)`` elements: element t of the word is A register
    ``send_reg ^ sum(t_j * pack_a[j])`` and lands in B register ``recv_reg ^ sum(t_j * pack_b[j])``.
    ``words_per_element`` is 2 for 64-bit types (two shuffles), else 1. ``assembly`` says how each word a round
    sends and each word of B is built (plan/shuffle_words.py): the cost model counts it and the emitter spells it.
    """

    kind = "shuffle"
    rounds: tuple[ShuffleRound, ...]
    pack_a: tuple[int, ...]
    pack_b: tuple[int, ...]
    words_per_element: int
    shuffles: int  # SHFL instructions per thread
    assembly: Assembly

    @property
    def num_rounds(self) -> int:
        return len(self.rounds)


@dataclass(frozen=True)
class _LaneSources:
    """Per B lane bit p (plan_shuffle): ``alpha[p]``, its source-lane column; ``tau[p]``, its column of T, the A
    register a sender adds; ``m[p]``, its column of M, the B register a receiver fills (``r ^ M l``)."""

    alpha: tuple[int, ...]
    tau: tuple[int, ...]
    m: tuple[int, ...]


def warp_local(a: Hw, b: Hw) -> bool:
    """Can every B thread find what it needs in its own warp under A (docs/design.md §4)?"""
    span_a = a.local_span
    return all(f2.contains(span_a, c) for c in b.local) and all(
        f2.contains(span_a, cb ^ ca) for cb, ca in zip(b.warp, a.warp, strict=True)
    )


def plan_shuffle(a: Hw, b: Hw, dt: DType, tgt: Target) -> ShufflePlan | str:
    """The shuffle plan, or a sentence saying why shuffles cannot do this conversion.

    Round r, receiver (lane l, warp w) fills B register ``r ^ M l`` (r over the round vectors R,
    which complete the packed bits to B's live registers), i.e. the element
    ``y = c(r, w) ^ sum_p l_p k_p`` with c(r, w) = B_reg(r) ^ B_warp(w) ^ A_warp(w) (read in A's
    warp-w frame) and k_p = B_lane[p] ^ B_reg(M e_p). Writing c = A_reg(i0) ^ A_lane(lam0) and
    k_p = A_lane(alpha_p) ^ A_reg(tau_p), the source lane is lam0 ^ alpha l and the sender of
    lane l' sends i0 ^ T(lam0) ^ T(l') with T(alpha_p) = tau_p: the same word for every
    receiver that reads it, because the nonzero alpha_p are distinct unit vectors."""
    if not warp_local(a, b):
        return "data must cross warps"
    nl = len(a.lane)
    a_reg_idx = {c: i for i, c in enumerate(a.reg) if c}
    a_lane_idx = {c: i for i, c in enumerate(a.lane) if c}
    b_reg_idx = {c: j for j, c in enumerate(b.reg) if c}

    # V: common register vectors, as many as one 32-bit word holds: B's lowest such bits, or A's (the words one side
    # already holds whole), whichever builds its words with fewer selects and permutes
    cap = max(0, (tgt.shuffle_bytes // dt.bytes).bit_length() - 1) if dt.bytes < tgt.shuffle_bytes else 0
    common = [(j, c) for j, c in enumerate(b.reg) if c and c in a_reg_idx]
    packings = []
    for order in (common, sorted(common, key=lambda jc: a_reg_idx[jc[1]])):
        pack = (tuple(1 << a_reg_idx[c] for _, c in order[:cap]), tuple(1 << j for j, _ in order[:cap]))
        if pack not in packings:
            packings.append(pack)

    # per B lane bit p: k_p, the source-lane column alpha_p, tau_p (A register) and m_p (B register)
    partners = [q for q, c in enumerate(a.lane) if c and c in b_reg_idx]
    free_lanes = [q for q, c in enumerate(a.lane) if not c]
    alpha, tau, m = [0] * nl, [0] * nl, [0] * nl
    for p, f in enumerate(b.lane):
        if not f:
            continue
        if f in a_lane_idx:
            alpha[p] = 1 << a_lane_idx[f]
            continue
        i = a_reg_idx[f]  # warp-local: B's lane elements are in A's registers or lanes
        if partners:
            q = p if p in partners else partners[0]
            partners.remove(q)
            alpha[p], tau[p], m[p] = 1 << q, 1 << i, 1 << b_reg_idx[a.lane[q]]
        elif free_lanes:
            z = p if p in free_lanes else free_lanes[0]
            free_lanes.remove(z)
            alpha[p], tau[p] = 1 << z, 1 << i
        else:
            return "two destination lanes would need different registers from one source lane in the same round"

    # a lane bit both layouts broadcast: read from the same lane bit, so a fully broadcast warp reads its own lane
    # (a local round) instead of lane 0 (a shuffle the compiler may even drop as uniform)
    for p in range(nl):
        if not b.lane[p] and not a.lane[p] and (1 << p) not in alpha:
            alpha[p] = 1 << p

    sources = _LaneSources(tuple(alpha), tuple(tau), tuple(m))
    plans = [_rounds(a, b, dt, sources, pack_a, pack_b) for pack_a, pack_b in packings]
    return min(plans, key=lambda p: p.assembly.instructions())


def _rounds(a: Hw, b: Hw, dt: DType, sources: _LaneSources, pack_a: tuple, pack_b: tuple):
    """The plan whose words pack ``pack_a`` (A registers) into ``pack_b`` (B registers), given each B lane bit's
    ``sources``."""
    alpha, tau, m = sources.alpha, sources.tau, sources.m
    nl, nw = len(a.lane), len(a.warp)
    # R: live B register bits outside the packed ones; there are 2^|R| rounds
    packed = sum(pack_b)
    rbits = [j for j, c in enumerate(b.reg) if c and not packed >> j & 1]
    nz_alpha = [x for x in alpha if x]
    t_cols = [tau[p] for p in range(nl) if alpha[p]]

    # T and const are pure, and every round's src and send ask them for the same values: each is computed once
    @cache
    def T(lane_vec: int) -> int:
        coeff, _ = f2.least_squares(nz_alpha, lane_vec)
        return f2.combine(coeff, t_cols)

    @cache
    def const(r: int, warp: int) -> tuple[int, int]:
        """(i0, lam0): where A's warp-``warp`` frame holds c(r, warp)."""
        reg = f2.combine(r, f2.units(rbits))
        c = b.element(reg, 0, warp) ^ f2.combine(warp, list(a.warp))
        coords = a.local_coords(c)
        assert coords is not None, "warp_local() admitted a conversion whose data crosses warps"
        return coords

    def recv(r: int, t: int) -> int:
        return f2.combine(r, f2.units(rbits)) ^ f2.combine(t & ((1 << nl) - 1), m)

    def src(r: int, t: int) -> int:
        lane, warp = t & ((1 << nl) - 1), t >> nl
        return const(r, warp)[1] ^ f2.combine(lane, alpha)

    def send(r: int, t: int) -> int:
        lane, warp = t & ((1 << nl) - 1), t >> nl
        i0, lam0 = const(r, warp)
        return i0 ^ T(lam0) ^ T(lane)

    nbits = nl + nw
    lin_src = Affine.fit(lambda t: src(0, t), nbits).linear()
    lin_send = Affine.fit(lambda t: send(0, t), nbits).linear()
    lin_recv = Affine.fit(lambda t: recv(0, t), nbits).linear()
    identity = tuple(1 << i for i in range(nl)) + (0,) * nw
    rounds = []
    shuffles = 0
    words = 2 if dt.bits == 64 else 1
    for r in range(1 << len(rbits)):
        s = lin_src.with_const(src(r, 0))
        op = "idx"
        if s.cols == identity:
            op = "local" if s.const == 0 else "xor"
        if op != "local":
            shuffles += words
        rounds.append(
            ShuffleRound(
                r, s, lin_send.with_const(send(r, 0)), lin_recv.with_const(recv(r, 0)), op, s.const if op == "xor" else 0
            )
        )
    rounds = tuple(rounds)
    asm = assemble(rounds, pack_a, pack_b, dt.bits, 1 << len(b.reg), nl)
    return ShufflePlan(rounds, pack_a, pack_b, words, shuffles, asm)
