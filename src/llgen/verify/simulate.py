"""The CPU oracle: execute a plan on every warp and lane with NumPy and count bank
wavefronts by brute force.

It reads only what the emitter prints (register indices, affine thread maps, offsets, the
instruction names) and the two layouts' bases; it shares no arithmetic with the planner, so
agreement means something. Its hardware model, stated once:

* a shared-memory access is served in phases: a plain ld/st.shared of ``v`` bytes per thread
  serves ``128 / max(4, v)`` consecutive lanes per phase (whole warp for narrower accesses), except a
  16-byte load on 32 lanes whose quarter-warps each read at most two addresses, which half-warps serve;
  ldmatrix/stmatrix serve one 8x8 matrix (eight 16-byte rows) per phase;
* within a phase, each of the 32 banks of 4 bytes delivers one distinct 4-byte word per
  wavefront (any number of lanes may share a word): the phase takes as many wavefronts as the
  busiest bank has distinct words.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

POISON = -1


class SimError(AssertionError):
    """The plan does something the hardware would not do correctly (races, out-of-range)."""


@dataclass
class SimResult:
    out: np.ndarray  # [warps, lanes, n_out] element ids
    expected: np.ndarray
    store_wavefronts: int = 0
    load_wavefronts: int = 0
    shuffles: int = 0
    # per instruction (in plan order): brute-force wavefronts summed over the warps that run it
    store_instr_wavefronts: tuple[int, ...] = ()
    load_instr_wavefronts: tuple[int, ...] = ()
    store_instr_phases: tuple[int, ...] = ()  # phases per instruction summed over its warps
    load_instr_phases: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return bool((self.out == self.expected).all())

    def first_mismatch(self) -> tuple[int, int, int, int, int] | None:
        bad = np.argwhere(self.out != self.expected)
        if not len(bad):
            return None
        w, lane, r = (int(v) for v in bad[0])
        return w, lane, r, int(self.expected[w, lane, r]), int(self.out[w, lane, r])


@functools.lru_cache(maxsize=64)
def element_ids(layout, warps: int, lanes: int) -> np.ndarray:
    """[warps, lanes, regs] -> row-major flat tensor index, from the Triton-form bases."""
    d = layout.to_dict()
    sizes = list(d["out_dims"].values())
    strides = [int(np.prod(sizes[i + 1 :])) for i in range(len(sizes))]

    def dim_values(name, n):
        return _spans([[sum(c * s for c, s in zip(vec, strides, strict=True)) for vec in d["bases"].get(name, [])]], n)[0]

    regs = 1 << len(d["bases"].get("register", []))
    r = dim_values("register", regs)
    lane = dim_values("lane", lanes)
    w = dim_values("warp", warps)
    # XOR of flat indices equals the flat index of XORed coordinates (power-of-two dims)
    return w[:, None, None] ^ lane[None, :, None] ^ r[None, None, :]


def _spans(vectors, n: int) -> np.ndarray:
    """[len(vectors), n]: row i, column x is the XOR of ``vectors[i][j]`` over the set bits j of x (bits past the
    vectors ignored), built by doubling a table of all rows at once."""
    k = max(0, n - 1).bit_length()
    cols = np.zeros((len(vectors), k), dtype=np.int64)
    for i, v in enumerate(vectors):
        cols[i, : len(v[:k])] = v[:k]
    table = np.zeros((len(vectors), 1 << k), dtype=np.int64)
    for j in range(k):  # doubling: the second half of each prefix is the first half ^ column j
        np.bitwise_xor(table[:, : 1 << j], cols[:, j : j + 1], out=table[:, 1 << j : 2 << j])
    return table[:, :n]


def _affine(aff, tid: np.ndarray) -> np.ndarray:
    """const ^ XOR of cols[i] over the set bits i of each thread id."""
    return _affines([aff], tid)[0]


def _affines(affs, tid: np.ndarray) -> np.ndarray:
    """[len(affs), *tid.shape]: `_affine` of each of ``affs``."""
    consts = np.array([a.const for a in affs], dtype=np.int64).reshape((-1,) + (1,) * tid.ndim)
    return _spans([a.cols for a in affs], int(tid.max()) + 1)[:, tid] ^ consts


def simulate(plan, values: np.ndarray | None = None) -> SimResult:
    """Run ``plan``; ``values`` (default: the element ids) is the tensor's flat contents."""
    warps, lanes = plan.warps, plan.target.lanes
    src = element_ids(plan.src, warps, lanes)
    expected = element_ids(plan.dst, warps, lanes).copy()
    if values is not None:
        src, expected = values[src], values[expected]
    out = np.full(expected.shape, POISON, dtype=src.dtype)
    res = SimResult(out, expected)
    if plan.path in ("noop", "registers"):
        out[:] = src[:, :, list(plan.detail.perm)]
    elif plan.path == "select":
        _select(plan, src, out)
    elif plan.path == "shuffle":
        _shuffle(plan, src, out, res)
    else:
        _shared(plan, src, out, res)
    for j, k in plan.out_copies:
        out[:, :, j] = out[:, :, k]
    return res


def _select(plan, src, out) -> None:
    """A lane select's stages in turn, word by word as printed: where a lane's bits under a stage's lane mask have
    odd parity, 32-bit word w takes what word w ^ (reg_mask / registers a word) held before the stage (a mask's bits
    inside a word move nothing, as in the text)."""
    lane = np.arange(plan.target.lanes)
    per = max(1, 32 // plan.dtype.bits)
    regs = np.arange(src.shape[2])
    now = src
    for lanes, mask in plan.stages:
        odd = np.array([bin(int(x) & lanes).count("1") & 1 for x in lane], dtype=bool)
        moved = (regs // per ^ mask // per) * per + regs % per
        now = np.where(odd[None, :, None], now[:, :, moved], now)
    out[:] = now


def _pack_offsets(deltas) -> np.ndarray:
    return np.array([sum(d for j, d in enumerate(deltas) if t >> j & 1) for t in range(1 << len(deltas))], dtype=np.int64)


def _shuffle(plan, src, out, res) -> None:
    """The rounds in order: each thread sends A register send_reg (and the packed ones beside it) and fills B register
    recv_reg (and beside it) with what its source lane sent. All rounds' tables are computed at once; a check that
    fails names the first round that breaks it, with the first of the round's checks a round-by-round run meets."""
    d = plan.detail
    rounds = d.rounds
    if not rounds:
        return
    warps, lanes = plan.warps, plan.target.lanes
    n_in, n_out = src.shape[2], out.shape[2]
    tid = np.arange(warps * lanes).reshape(warps, lanes)
    lane = tid % lanes
    send = _affines([r.send_reg for r in rounds], tid)  # [round, warp, lane]
    sl = _affines([r.src_lane for r in rounds], tid)
    recv = _affines([r.recv_reg for r in rounds], tid)
    op = np.array([r.op for r in rounds])
    mask = np.array([r.xor_mask if r.op == "xor" else 0 for r in rounds], dtype=np.int64)[:, None, None]
    faults = [
        ((send >= n_in) | (send < 0)).any((1, 2)),
        (op == "local") & (sl != lane).any((1, 2)),
        (op == "xor") & (sl != lane ^ mask).any((1, 2)),
        (op != "local") & ((sl < 0) | (sl >= lanes)).any((1, 2)),
        ((recv >= n_out) | (recv < 0)).any((1, 2)),
    ]
    broken = np.logical_or.reduce(faults)
    if broken.any():
        i = int(np.argmax(broken))
        index = rounds[i].index
        raise SimError(
            [
                f"round {index} sends a register outside 0..{n_in - 1}",
                f"round {index} is local but its source lane is another lane",
                "shfl.xor round whose source is not lane ^ mask",
                f"round {index} reads a lane outside the warp",
                f"round {index} fills a register outside 0..{n_out - 1}",
            ][next(k for k, f in enumerate(faults) if f[i])]
        )
    res.shuffles += d.words_per_element * int((op != "local").sum())
    pa, pb = _pack_offsets(d.pack_a), _pack_offsets(d.pack_b)
    # thread (w, l) of a round reads thread (w, sl)'s A registers send(w, sl) ^ pa[t] (a local round: sl = l)
    sender = tid[:, :1] + sl  # [round, warp, lane]
    sent = np.take_along_axis(send.reshape(len(rounds), -1), sender.reshape(len(rounds), -1), 1).reshape(sl.shape)
    got = src.reshape(-1)[(sender * n_in)[..., None] + (sent[..., None] ^ pa)]
    # ... into its B registers recv ^ pb[t]; writes land in round order, then t, so a later write wins as in a run
    dest = (tid * n_out)[..., None] + (recv[..., None] ^ pb)
    out.reshape(-1)[dest.ravel()] = got[..., : len(pb)].ravel()


def _shared(plan, src, out, res) -> None:
    """Every round: stores, the barrier the plan prints, loads, then a barrier before the next round's stores.
    Besides the data, each shared word remembers which warp wrote it this round and which warps read it, so a
    missing barrier is caught: a warp that reads a word another warp wrote (or overwrites a word another warp
    read in the round before) with only __syncwarp between, a read of a word no one wrote this round, and two
    warps writing one word without a barrier between them."""
    d = plan.detail
    cta_barrier = plan.target.lang == "hip" or not d.warp_sync  # its own rule, not plan.barrier: an independent check
    smem = np.full(d.scratch_elems, POISON, dtype=src.dtype)
    # per word, the warp that read it in the round before (-1 none, -2 several): only __syncwarp needs it
    reader = None if cta_barrier else np.full(d.scratch_elems, -1, dtype=np.int64)
    stores, loads = _Sweep(plan, d.store, src, store=True), _Sweep(plan, d.load, out, store=False)
    st_wf, ld_wf, st_ph, ld_ph = [], [], [], []
    for rnd in range(d.rounds):
        smem[:] = POISON
        writer = np.full(d.scratch_elems, -1, dtype=np.int64)
        wf, ph = _access(plan, stores, rnd, smem, writer=writer, reader=reader)
        st_wf += wf
        st_ph += ph
        if reader is not None:
            reader[:] = -1
        wf, ph = _access(plan, loads, rnd, smem, writer=writer, reader=reader)
        ld_wf += wf
        ld_ph += ph
    res.store_instr_wavefronts, res.load_instr_wavefronts = tuple(st_wf), tuple(ld_wf)
    res.store_instr_phases, res.load_instr_phases = tuple(st_ph), tuple(ld_ph)
    res.store_wavefronts, res.load_wavefronts = sum(st_wf), sum(ld_wf)


class _Sweep:
    """One side's tables, built once for all its rounds: its instructions by round, the warps that run it, each of
    their threads' offset, and the flat index of the thread's register 0 in ``regs`` ([warps, lanes, n]: A's
    registers for stores, B's for loads, written through ``flat``)."""

    def __init__(self, plan, side, regs: np.ndarray, *, store: bool):
        lanes = plan.target.lanes
        self.side, self.store, self.n, self.flat = side, store, regs.shape[2], regs.reshape(-1)
        self.rounds = [[] for _ in range(plan.detail.rounds)]
        for ins in side.instrs:
            self.rounds[ins.round].append(ins)
        self.warps = np.array([w for w in range(plan.warps) if not (store and w & side.predicate_warp_mask)], dtype=np.int64)
        tid = self.warps[:, None] * lanes + np.arange(lanes)  # [warp, lane]
        self.base = _affine(side.thread_offset, tid)
        self.reg0 = tid * self.n


def _matrix_lanes(lanes: int, matrices: int, k: int, trans: bool) -> tuple[np.ndarray, np.ndarray]:
    """ldmatrix/stmatrix, per (lane t, matrix m, element e): the lane that gives the row's address and the element's
    offset from it. Row i of matrix m comes from lane 8m + i; without .trans thread t moves row t / 4 at
    (t % 4) * k + e, with .trans row 2 (t % 4) + e at column t / 4."""
    t = np.arange(lanes)[:, None, None]
    m = np.arange(matrices)[None, :, None]
    e = np.arange(k)[None, None, :]
    shape = (lanes, matrices, k)
    if trans:
        return np.broadcast_to(8 * m + 2 * (t % 4) + e, shape), np.broadcast_to(t // 4, shape)
    return np.broadcast_to(8 * m + t // 4, shape), np.broadcast_to((t % 4) * k + e, shape)


def _access(plan, sweep: _Sweep, rnd: int, smem: np.ndarray, *, writer: np.ndarray, reader) -> tuple[list[int], list[int]]:
    """Execute one side's instructions of round ``rnd`` on every warp that runs them; returns per instruction
    (wavefronts, phases), summed over warps, by brute force. ``writer`` (per word, the warp that stored it this
    round, -1 none) and ``reader`` (per word, the warp that loaded it: -1 none, -2 several; None under
    __syncthreads, which orders everything) are updated and checked against the barrier."""
    instrs, side, store = sweep.rounds[rnd], sweep.side, sweep.store
    if not instrs:
        return [], []
    lanes = plan.target.lanes
    w = plan.dtype.bytes
    nregs = len(instrs[0].regs)
    if any(len(i.regs) != nregs for i in instrs):
        raise SimError("instructions of one side move different numbers of registers")
    regtab = np.array([i.regs for i in instrs], dtype=np.int64)  # [instr, e]
    if (regtab < 0).any() or (regtab >= sweep.n).any():
        raise SimError(f"an instruction moves a register outside 0..{sweep.n - 1}")
    base, offs = _offsets(sweep, instrs, lanes)  # [instr, warp, lane], [instr, warp, lane, e]
    ni, nw = base.shape[0], base.shape[1]
    if side.matrices:
        mats, k = side.matrices, nregs // side.matrices  # k: elements per thread per matrix
        lo, hi = offs.min(), offs.max()
        regtab = regtab[:, : mats * k]  # element m * k + e is register regs[m * k + e]
        # a phase: one matrix of one instruction on one warp
        phase_offs = offs.reshape(ni, nw, lanes, mats, k).transpose(0, 1, 3, 2, 4).reshape(ni * nw * mats, lanes * k)
        phases = mats
    else:
        vbytes = nregs * w
        per = min(lanes, 128 // max(4, vbytes))
        phase = base.reshape(ni, nw, lanes // per, per)
        if not store and vbytes == 16 and lanes == 32 and _addresses_per_group(phase) <= 2:
            per *= 2  # a 16-byte load whose quarter-warps each read at most two addresses: half-warps serve it (H100)
        phases = lanes * max(4, vbytes) // 128  # the data-volume minimum reported beside the count
        lo, hi = base.min(), base.max() + nregs - 1
        phase_offs = offs.reshape(ni * nw * (lanes // per), per * nregs)  # a phase: `per` lanes of one instruction and warp
    if offs.size and (lo < 0 or hi >= len(smem)):
        raise SimError(f"offset {int(hi)} outside the scratch buffer of {len(smem)} elements")
    # accesses as [instr, warp, lane and element] in program order, each warp's number broadcast over its accesses
    offs = offs.reshape(ni, nw, -1)
    slot = (sweep.reg0[None, :, :, None] + regtab[:, None, None, :]).reshape(offs.shape)  # flat register index
    warp = sweep.warps[None, :, None]
    if store:
        vals = sweep.flat[slot]
        _check_writes(offs, warp, writer, reader)
        smem[offs] = vals
        if not (smem[offs] == vals).all():
            raise SimError("two threads store different elements to the same shared-memory offset")
    else:
        _check_reads(offs, warp, writer, under_syncwarp=reader is not None)
        if reader is not None:
            reader[offs] = warp
            reader[offs[reader[offs] != warp]] = -2  # a word that warps other than its last reader read too
        sweep.flat[slot] = smem[offs]
    per_phase = _wavefronts(phase_offs, len(smem), w, plan.target.banks, plan.target.bank_bytes)
    return per_phase.reshape(ni, -1).sum(1).tolist(), [nw * phases] * ni


def _offsets(sweep: _Sweep, instrs, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """The element offsets of ``instrs`` (one side, one round) on every warp that runs them: each thread's base
    ([instr, warp, lane]) and every element it moves ([instr, warp, lane, e]; ldmatrix/stmatrix: matrix by matrix)."""
    side, nregs = sweep.side, len(instrs[0].regs)
    xor, add = np.array([(i.xor_const, i.add_const) for i in instrs], dtype=np.int64).T[:, :, None, None]
    base = (sweep.base ^ xor) + add
    if side.matrices:
        k = nregs // side.matrices  # elements per thread per matrix
        row_lane, col = _matrix_lanes(lanes, side.matrices, k, side.op.endswith("trans"))
        return base, (base[:, :, row_lane] + col).reshape(*base.shape, side.matrices * k)
    return base, base[..., None] + np.arange(nregs)


def _check_writes(offs: np.ndarray, warp: np.ndarray, writer: np.ndarray, reader) -> None:
    """Stores of one side and round (``offs`` [instr, warp, access], ``warp`` [1, warp, 1]) into ``writer``, fresh
    for the round: no two warps may write one word (nothing orders them), and with only __syncwarp since the last
    loads (``reader`` given), no warp may overwrite a word another warp read."""
    writer[offs] = warp
    if warp.size > 1 and (writer[offs] != warp).any():  # a word stored by two warps: name the lowest such word and warps
        o, wp = offs.ravel(), np.broadcast_to(warp, offs.shape).ravel()
        order = np.lexsort((wp, o))
        o, wp = o[order], wp[order]
        clash = (o[1:] == o[:-1]) & (wp[1:] != wp[:-1])
        i = int(np.argmax(clash))
        raise SimError(f"warps {int(wp[i])} and {int(wp[i + 1])} both store offset {int(o[i])} with no barrier between")
    if reader is not None:
        r = reader[offs]
        others = (r != -1) & (r != warp)
        if others.any():
            i = np.unravel_index(int(np.argmax(others)), offs.shape)
            raise SimError(
                f"warp {int(warp[0, i[1], 0])} overwrites offset {int(offs[i])}, which another warp read in the round "
                "before, with only __syncwarp between"
            )


def _check_reads(offs: np.ndarray, warp: np.ndarray, writer: np.ndarray, under_syncwarp: bool) -> None:
    """Loads of one side and round (``offs`` [instr, warp, access], ``warp`` [1, warp, 1]): every word was written
    this round, and by the reading warp itself when only __syncwarp separates the stores from the loads."""
    who = writer[offs]
    if (who < 0).any():
        i = np.unravel_index(int(np.argmax(who < 0)), offs.shape)
        raise SimError(f"warp {int(warp[0, i[1], 0])} reads offset {int(offs[i])}, which no thread wrote in this round")
    if under_syncwarp and (who != warp).any():
        i = np.unravel_index(int(np.argmax(who != warp)), offs.shape)
        raise SimError(
            f"warp {int(warp[0, i[1], 0])} reads offset {int(offs[i])}, which warp {int(who[i])} wrote, with only "
            "__syncwarp between"
        )


def _addresses_per_group(groups: np.ndarray) -> int:
    """The most distinct values any group (the last axis) holds."""
    s = np.sort(groups, axis=-1)
    return int((s[..., 1:] != s[..., :-1]).sum(axis=-1).max()) + 1 if s.size else 0


def _wavefronts(phase_offs: np.ndarray, elems: int, elem_bytes: int, banks: int, bank_bytes: int) -> np.ndarray:
    """Brute force: per phase (a row of offsets below ``elems``), per bank, the number of distinct words; the max
    over banks. Element and word sizes are powers of two: an element covers whole words, or a word holds whole
    elements."""
    if not phase_offs.size:
        return np.zeros(len(phase_offs), dtype=np.int64)
    if elem_bytes >= bank_bytes:
        n = elem_bytes // bank_bytes
        words = phase_offs if n == 1 else (phase_offs[..., None] * n + np.arange(n)).reshape(len(phase_offs), -1)
    else:
        words = phase_offs // (bank_bytes // elem_bytes)
    words = np.sort(words.astype(np.int32) if elems * elem_bytes // bank_bytes < 2**31 else words, axis=1)
    distinct = np.empty(words.shape, dtype=bool)
    distinct[:, 0], distinct[:, 1:] = True, words[:, 1:] != words[:, :-1]
    # each distinct word counts once for its bank
    bank = (words & (banks - 1) if banks & (banks - 1) == 0 else words % banks) + np.arange(0, len(words) * banks, banks)[:, None]
    return np.bincount(bank[distinct], minlength=len(words) * banks).reshape(len(words), banks).max(axis=1)


# ---------------------------------------------------------------------------------------------- gather
def _deposit(x: np.ndarray, runs) -> np.ndarray:
    """OR over (src, dst, width) of ((x >> src) & (2^width - 1)) << dst, as the generated code computes it."""
    y = np.zeros_like(x)
    for s, d, w in runs:
        y |= ((x >> s) & ((1 << w) - 1)) << d
    return y


def simulate_gather(plan, src_values: np.ndarray, index_values: np.ndarray) -> SimResult:
    """Run a gather plan on every warp and lane. ``src_values`` and ``index_values`` are the tile
    (its shape, or flat row-major); the expected output is NumPy's take_along_axis, read through
    the layout into every (warp, lane, register) slot, replicas included."""
    layout = plan.layout
    shape = layout.shape
    src_t = np.asarray(src_values).reshape(shape)
    idx_t = np.asarray(index_values).reshape(shape).astype(np.int64)
    if (idx_t < 0).any() or (idx_t >= shape[plan.axis]).any():
        raise ValueError("indices must lie in 0..size of the axis - 1")
    warps, lanes = plan.warps, plan.target.lanes
    ids = element_ids(layout, warps, lanes)
    src = src_t.reshape(-1)[ids]
    idx = idx_t.reshape(-1)[ids]
    expected = np.take_along_axis(src_t, idx_t, axis=plan.axis).reshape(-1)[ids]
    out = np.zeros_like(expected)
    res = SimResult(out, expected)
    n = plan.n_regs
    d = plan.detail
    tid = np.arange(warps * lanes).reshape(warps, lanes)
    if d.kind == "shuffle":
        _gather_shuffle(plan, src, idx, tid, res)
    else:
        _gather_shared(plan, src, idx, out, tid)
    for j, k in plan.out_copies:
        out[:, :, j] = out[:, :, k]
    filled = {r.dest for r in d.rounds} if d.kind == "shuffle" else {j for j, _ in d.loads}
    missing = set(range(n)) - filled - {j for j, _ in plan.out_copies}
    if missing:
        raise SimError(f"the plan never fills registers {sorted(missing)}")
    return res


def _gather_shuffle(plan, src, idx, tid, res) -> None:
    """The rounds in order, each filling its destination register from one word: every thread sends its registers
    ``send`` and takes the word of its source lane (op "idx") or its own ("local"), keeping it where its index selects
    the round. All rounds are run at once; a failure names the first round (and the first of that round's checks) a
    round-by-round run would meet, then the first destination, in order, that no round fills on some thread. ``tid``:
    each (warp, lane)'s thread index; the output goes to ``res.out``."""
    d = plan.detail
    n, lanes = plan.n_regs, plan.target.lanes
    out, lane, warp_idx = res.out, tid % lanes, tid // lanes
    rounds = list(d.rounds)

    # a round whose registers or op are wrong ends the run: the rounds before it run, their failures come first
    def sends_wrong(r) -> bool:
        return any(not 0 <= x < n for x in r.send) or len(r.send) != d.pack

    static = next((i for i, r in enumerate(rounds) if sends_wrong(r) or r.op not in ("idx", "local")), len(rounds))
    ran = rounds[:static]
    dest = np.array([r.dest for r in ran], dtype=np.int64)
    ix = np.moveaxis(idx[:, :, dest], 2, 0)  # [round, warp, lane]: the index each round's destination holds
    is_idx = np.array([r.op == "idx" for r in ran], dtype=bool)[:, None, None]
    sl = np.where(is_idx, (lane & d.lane_keep) | _deposit(ix, d.lane_runs), lane)
    lane_bad = ((sl < 0) | (sl >= lanes)).any((1, 2))
    keep = (ix & d.select_mask) == np.array([r.select_value for r in ran], dtype=np.int64)[:, None, None]
    # per round, whether a thread keeps a word an earlier round of its destination kept: sorted by destination, the
    # rounds of one destination are one run, and a running count within the run says how many kept before
    order = np.argsort(dest, kind="stable")
    counts = np.cumsum(keep[order], axis=0, dtype=np.int64)
    start = np.searchsorted(dest[order], dest[order], side="left")  # each round's run start, in sorted order
    before = counts - keep[order] - np.where(start[:, None, None] > 0, counts[np.maximum(start - 1, 0)], 0)
    twice = np.empty(len(ran), dtype=bool)
    twice[order] = (keep[order] & (before > 0)).any((1, 2))
    failed = lane_bad | twice
    if failed.any():
        i = int(np.argmax(failed))
        raise SimError(
            "a source lane outside the warp" if lane_bad[i] else f"two rounds both keep a word for register {ran[i].dest}"
        )
    if static < len(rounds):
        rnd = rounds[static]
        if sends_wrong(rnd):
            raise SimError(f"a round for register {rnd.dest} sends registers {rnd.send} (pack {d.pack})")
        raise SimError(f"unknown round op {rnd.op!r}")
    res.shuffles += d.words_per_element * int(is_idx.sum())
    send = np.array([r.send for r in ran], dtype=np.int64).reshape(len(ran), d.pack)
    # round r's word at thread (w, l): registers send[r] of thread (w, sl)
    got = src[warp_idx[None, :, :, None], sl[..., None], send[:, None, None, :]]  # [round, warp, lane, pack]
    for j in dict.fromkeys(dest.tolist()):
        mine = np.flatnonzero(dest == j)
        if not keep[mine].any(0).all():
            raise SimError(f"no round keeps a word for register {j} on some thread")
        word = np.take_along_axis(got[mine], keep[mine].argmax(0)[None, :, :, None], 0)[0]  # the one kept word
        pos = _deposit(idx[:, :, j], d.pack_runs)
        if (pos >= d.pack).any():
            raise SimError("an element position outside the shuffled word")
        out[:, :, j] = np.take_along_axis(word, pos[..., None], 2)[..., 0]


def _gather_shared(plan, src, idx, out, tid) -> None:
    """Every store (instruction and element, in order) by the threads that store, then every load. The stores are
    checked at once: a failure names the first store a store-by-store run fails at (out of the buffer, or onto an
    offset an earlier store or another thread of the same store wrote). ``tid``: each (warp, lane)'s thread index."""
    d = plan.detail
    lanes = plan.target.lanes
    lane, warp_idx = tid % lanes, tid // lanes
    st = d.store
    active = (((lane & st.skip_lane_mask) == 0) & ((warp_idx & st.skip_warp_mask) == 0)).ravel()
    base = _affine(st.thread_offset, tid).ravel()[active]
    thread = tid.ravel()[active]
    # one row per store (instruction, element): its xor and add constants and register
    rows = np.array([(i.xor_const, i.add_const + e, r) for i in st.instrs for e, r in enumerate(i.regs)], dtype=np.int64)
    rows = rows.reshape(-1, 3)
    if ((rows[:, 2] < 0) | (rows[:, 2] >= src.shape[2])).any():
        raise SimError(f"a store moves a register outside 0..{src.shape[2] - 1}")
    off = (base[None, :] ^ rows[:, :1]) + rows[:, 1:2]  # [store, thread]
    outside = ((off < 0) | (off >= d.scratch_elems)).any(1)
    first_outside = int(np.argmax(outside)) if outside.any() else len(rows)
    flat = off.ravel()
    order = np.argsort(flat, kind="stable")
    again = np.flatnonzero(flat[order][1:] == flat[order][:-1]) + 1  # later accesses to an offset seen before
    first_again = int(order[again].min()) // len(thread) if len(again) else len(rows)
    if min(first_outside, first_again) < len(rows):
        raise SimError(
            "a store outside the scratch buffer" if first_outside <= first_again else "two stores to one shared-memory offset"
        )
    data = np.zeros(d.scratch_elems, dtype=src.dtype)
    written = np.zeros(d.scratch_elems, dtype=bool)
    data[off] = src.reshape(-1)[thread[None, :] * src.shape[2] + rows[:, 2:3]]
    written[off] = True
    if not written.all():
        raise SimError("the stores leave part of the scratch tile unwritten")
    ld = _affine(d.load_thread, tid)
    js = [j for j, _ in d.loads]
    consts = np.array([c for _, c in d.loads], dtype=np.int64)[:, None, None]
    loads = ld + consts + ((np.moveaxis(idx[:, :, js], 2, 0) & d.axis_mask) << d.axis_shift)  # [load, warp, lane]
    if ((loads < 0) | (loads >= d.scratch_elems)).any():
        raise SimError("a load outside the scratch buffer")
    for j, vals in zip(js, data[loads], strict=True):  # in order: a register loaded twice keeps the last
        out[:, :, j] = vals


def _warps_touching(plan, side, *, store: bool) -> np.ndarray:
    """Per byte of the scratch: the bit mask of the warps whose instructions of ``side`` (every round) access it."""
    d, lanes, w = plan.detail, plan.target.lanes, plan.dtype.bytes
    regs = np.zeros((plan.warps, lanes, plan.n_in if store else plan.n_out), dtype=np.int64)
    sweep = _Sweep(plan, side, regs, store=store)
    mask = np.zeros(d.scratch_elems, dtype=np.int64)
    for instrs in sweep.rounds:
        if not instrs:
            continue
        offs = _offsets(sweep, instrs, lanes)[1]
        offs = offs.reshape(offs.shape[0], offs.shape[1], -1)
        bits = np.broadcast_to((1 << sweep.warps)[None, :, None], offs.shape)
        np.bitwise_or.at(mask, offs.ravel(), bits.ravel())
    return np.repeat(mask, w)


def chain_hazard(first, second, entry: str) -> str | None:
    """Run ``second``'s shared plan on the buffer ``first`` used last, with ``entry`` ("none", "warp" or "cta") as the
    barrier between them: the first byte that a warp of ``second`` stores while another warp of ``first`` may still
    access it (any warp, with no barrier), as a sentence; None where the barrier orders every such pair."""
    if entry == "cta" or not (first.uses_shared and second.uses_shared):
        return None
    before = _warps_touching(first, first.detail.store, store=True) | _warps_touching(first, first.detail.load, store=False)
    after = _warps_touching(second, second.detail.store, store=True)
    n = min(len(before), len(after))
    before, after = before[:n], after[:n]
    for w in range(second.warps):
        mine = (after >> w & 1).astype(bool)
        others = before & ~(np.int64(0) if entry == "none" else np.int64(1 << w))
        clash = mine & (others != 0)
        if clash.any():
            o = int(np.argmax(clash))
            them = [v for v in range(first.warps) if others[o] >> v & 1]
            return f"warp {w} stores byte {o} of the scratch, which warp {them[0]} may still access, behind {entry} barrier"
    return None
