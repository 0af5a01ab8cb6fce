"""Warp-shuffle plans (ALGORITHMS §3): rounds of one 32-bit shuffle per thread.

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

from .. import f2
from ..dtypes import DType
from ..target import Target
from .affine import Affine
from .hw import Hw


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


@dataclass(frozen=True)
class ShufflePlan:
    """A warp-shuffle conversion. Registers are element registers of A (send) and B (recv).

    A word packs ``2**len(pack_a)`` elements: element t of the word is A register
    ``send_reg ^ sum(t_j * pack_a[j])`` and lands in B register ``recv_reg ^ sum(t_j * pack_b[j])``.
    ``words_per_element`` is 2 for 64-bit types (two shuffles), else 1.
    """

    kind = "shuffle"
    rounds: tuple[ShuffleRound, ...]
    pack_a: tuple[int, ...]
    pack_b: tuple[int, ...]
    words_per_element: int
    pack_selectors: tuple[int, ...]  # __byte_perm selectors that build a word from element pairs
    shuffles: int  # SHFL instructions per thread

    @property
    def num_rounds(self) -> int:
        return len(self.rounds)


def warp_local(a: Hw, b: Hw) -> bool:
    """Can every B thread find what it needs in its own warp under A (ALGORITHMS §3.3)?"""
    span_a = a.local_span
    return all(f2.contains(span_a, c) for c in b.local) and all(
        f2.contains(span_a, cb ^ ca) for cb, ca in zip(b.warp, a.warp))


def plan_shuffle(a: Hw, b: Hw, dt: DType, tgt: Target) -> ShufflePlan | str:
    """The shuffle plan, or a sentence saying why shuffles cannot do this conversion."""
    if not warp_local(a, b):
        return "data must cross warps"
    nl, nw = len(a.lane), len(a.warp)
    a_reg_idx = {c: i for i, c in enumerate(a.reg) if c}
    a_lane_idx = {c: i for i, c in enumerate(a.lane) if c}

    # V: common register vectors, as many as one 32-bit word holds
    cap = max(0, (tgt.shuffle_bytes // dt.bytes).bit_length() - 1) if dt.bytes < tgt.shuffle_bytes else 0
    pack_a, pack_b, vvecs = [], [], []
    for j, c in enumerate(b.reg):
        if len(vvecs) < cap and c and c in a_reg_idx:
            vvecs.append(c)
            pack_a.append(1 << a_reg_idx[c])
            pack_b.append(1 << j)

    # K: one vector per non-broadcast B lane bit, with its physical source-lane image alpha'
    b_reg_set = {c for c in b.reg if c}
    partners = [c for c in a.lane if c and c in b_reg_set]
    free_lanes = [i for i, c in enumerate(a.lane) if not c]
    kvecs: dict[int, int] = {}  # B lane bit p -> k_p
    alpha: dict[int, int] = {}  # B lane bit p -> physical A lane vector
    alpha_basis: list[int] = []
    for p, f in enumerate(b.lane):
        if not f:
            continue
        k = f if f in a_lane_idx else f ^ (partners.pop(0) if partners else 0)
        coords = a.local_coords(k)
        lane_vec = coords[1] if coords else 0
        if f2.contains(alpha_basis, lane_vec):
            if not free_lanes:
                return "two destination lanes would need different registers from one source lane in the same round"
            z = p if p in free_lanes else free_lanes[0]
            free_lanes.remove(z)
            lane_vec ^= 1 << z
        alpha_basis = f2.reduce(alpha_basis + [lane_vec])
        kvecs[p], alpha[p] = k, lane_vec

    # R: B register vectors completing V ∪ K to the B-local space
    span_vk = f2.reduce(vvecs + list(kvecs.values()))
    rvecs = []
    for c in b.reg:
        if c and not f2.contains(span_vk, c):
            rvecs.append(c)
            span_vk = f2.reduce(span_vk + [c])

    lanes_p = sorted(kvecs)
    alpha_cols = [alpha[p] for p in lanes_p]

    def b_reg(x: int) -> int:
        sol = f2.solve(list(b.reg), x)
        return sol if sol is not None else 0

    def a_coords(x: int) -> tuple[int, int]:
        return a.local_coords(x) or (0, 0)

    def coset_rep(r: int, warp: int) -> int:
        x = 0
        for i, v in enumerate(rvecs):
            if r >> i & 1:
                x ^= v
        for i, (cb, ca) in enumerate(zip(b.warp, a.warp)):
            if warp >> i & 1:
                x ^= cb ^ ca
        return x

    def kappa_from_lane(lane_vec: int) -> int:
        """The element of span(K) whose physical source lane is lane_vec (left inverse of alpha')."""
        coeff, _ = f2.least_squares(alpha_cols, lane_vec)
        return _combine(coeff, [kvecs[p] for p in lanes_p])

    def recv(r: int, t: int) -> int:
        lane = t & ((1 << nl) - 1)
        y = coset_rep(r, 0) ^ _combine(lane, [kvecs.get(p, 0) for p in range(nl)])
        return b_reg(y)

    def src(r: int, t: int) -> int:
        lane, warp = t & ((1 << nl) - 1), t >> nl
        return a_coords(coset_rep(r, warp))[1] ^ _combine(lane, [alpha.get(p, 0) for p in range(nl)])

    def send(r: int, t: int) -> int:
        lane, warp = t & ((1 << nl) - 1), t >> nl
        base = coset_rep(r, warp)
        kappa = kappa_from_lane(lane ^ a_coords(base)[1])
        return a_coords(base)[0] ^ a_coords(kappa)[0]

    nbits = nl + nw
    lin_src = Affine.fit(lambda t: src(0, t), nbits).linear()
    lin_send = Affine.fit(lambda t: send(0, t), nbits).linear()
    lin_recv = Affine.fit(lambda t: recv(0, t), nbits).linear()
    identity = tuple(1 << i for i in range(nl)) + (0,) * nw
    rounds = []
    shuffles = 0
    words = 2 if dt.bits == 64 else 1
    for r in range(1 << len(rvecs)):
        s = lin_src.with_const(src(r, 0))
        op = "idx"
        if s.cols == identity:
            op = "local" if s.const == 0 else "xor"
        if op != "local":
            shuffles += words
        rounds.append(ShuffleRound(r, s, lin_send.with_const(send(r, 0)), lin_recv.with_const(recv(r, 0)), op,
                                   s.const if op == "xor" else 0))
    selectors = _pack_selectors(dt.bits, len(pack_a))
    return ShufflePlan(tuple(rounds), tuple(pack_a), tuple(pack_b), words, selectors, shuffles)


def _combine(bits: int, vecs: list[int]) -> int:
    x = 0
    for i, v in enumerate(vecs):
        if bits >> i & 1:
            x ^= v
    return x


def _pack_selectors(bits: int, npack: int) -> tuple[int, ...]:
    """__byte_perm selectors: 0x5410 joins two 16-bit halves; 0x0040 / 0x0400 style selectors
    join 8-bit values pairwise (0x0040 -> bytes a0 b0, then 0x5410 joins the pairs)."""
    if npack == 0:
        return ()
    if bits == 16:
        return (0x5410,)
    return (0x0040, 0x5410) if npack == 2 else (0x0040,)
