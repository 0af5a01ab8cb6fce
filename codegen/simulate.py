"""The CPU oracle: execute a plan on every warp and lane with NumPy and count bank
wavefronts by brute force.

It reads only what the emitter prints (register indices, affine thread maps, offsets, the
instruction names) and the two layouts' bases; it shares no arithmetic with the planner, so
agreement means something. Its hardware model, stated once:

* a shared-memory access is served in phases: a plain ld/st.shared of ``v`` bytes per thread
  serves ``128 / max(4, v)`` consecutive lanes per phase (whole warp for narrower accesses), except a
  16-byte load on 32 lanes whose quarter-warps each read one address, which half-warps serve;
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

    def flat(vec):
        return sum(c * s for c, s in zip(vec, strides, strict=True))

    def dim_values(name, n):
        vals = np.zeros(n, dtype=np.int64)
        for i, vec in enumerate(d["bases"].get(name, [])):
            vals ^= np.where((np.arange(n) >> i) & 1, flat(vec), 0)
        return vals

    regs = 1 << len(d["bases"].get("register", []))
    r = dim_values("register", regs)
    lane = dim_values("lane", lanes)
    w = dim_values("warp", warps)
    # XOR of flat indices equals the flat index of XORed coordinates (power-of-two dims)
    return w[:, None, None] ^ lane[None, :, None] ^ r[None, None, :]


def _affine(aff, tid: np.ndarray) -> np.ndarray:
    """const ^ XOR of cols[i] over the set bits i of each thread id."""
    cols = np.array(aff.cols, dtype=np.int64)
    if not len(cols):
        return np.full(tid.shape, aff.const, dtype=np.int64)
    bits = (tid[..., None] >> np.arange(len(cols))) & 1
    return np.bitwise_xor.reduce(bits * cols, axis=-1) ^ aff.const


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
    elif plan.path == "shuffle":
        _shuffle(plan, src, out, res)
    else:
        _shared(plan, src, out, res)
    for j, k in plan.out_copies:
        out[:, :, j] = out[:, :, k]
    return res


def _pack_offsets(deltas) -> list[int]:
    return [sum(d for j, d in enumerate(deltas) if t >> j & 1) for t in range(1 << len(deltas))]


def _shuffle(plan, src, out, res) -> None:
    d = plan.detail
    warps, lanes = plan.warps, plan.target.lanes
    n_in, n_out = src.shape[2], out.shape[2]
    tid = np.arange(warps * lanes).reshape(warps, lanes)
    lane = tid % lanes
    warp_idx = tid // lanes
    pa, pb = _pack_offsets(d.pack_a), _pack_offsets(d.pack_b)
    for rnd in d.rounds:
        send = _affine(rnd.send_reg, tid)
        if (send >= n_in).any() or (send < 0).any():
            raise SimError(f"round {rnd.index} sends a register outside 0..{n_in - 1}")
        word = np.stack([np.take_along_axis(src, (send ^ o)[:, :, None], 2)[:, :, 0] for o in pa], axis=-1)
        if rnd.op == "local":
            if not (_affine(rnd.src_lane, tid) == lane).all():
                raise SimError(f"round {rnd.index} is local but its source lane is another lane")
            got = word
        else:
            sl = _affine(rnd.src_lane, tid)
            if rnd.op == "xor" and not (sl == lane ^ rnd.xor_mask).all():
                raise SimError("shfl.xor round whose source is not lane ^ mask")
            if (sl < 0).any() or (sl >= lanes).any():
                raise SimError(f"round {rnd.index} reads a lane outside the warp")
            got = word[warp_idx, sl]
            res.shuffles += d.words_per_element
        recv = _affine(rnd.recv_reg, tid)
        if (recv >= n_out).any() or (recv < 0).any():
            raise SimError(f"round {rnd.index} fills a register outside 0..{n_out - 1}")
        for t, o in enumerate(pb):
            np.put_along_axis(out, (recv ^ o)[:, :, None], got[:, :, t : t + 1], 2)


def _shared(plan, src, out, res) -> None:
    """Every round: stores, the barrier the plan prints, loads, then a barrier before the next round's stores.
    Besides the data, each shared word remembers which warp wrote it this round and which warps read it, so a
    missing barrier is caught: a warp that reads a word another warp wrote (or overwrites a word another warp
    read in the round before) with only __syncwarp between, a read of a word no one wrote this round, and two
    warps writing one word without a barrier between them."""
    d = plan.detail
    cta_barrier = plan.target.lang == "hip" or not d.warp_sync  # its own rule, not plan.barrier: an independent check
    smem = np.full(d.scratch_elems, POISON, dtype=src.dtype)
    readers = np.zeros(d.scratch_elems, dtype=np.int64)  # bit w: warp w read the word in the previous round
    st_wf, ld_wf, st_ph, ld_ph = [], [], [], []
    for rnd in range(d.rounds):
        smem[:] = POISON
        writer = np.full(d.scratch_elems, -1, dtype=np.int64)
        wf, ph = _access(
            plan,
            d.store,
            [i for i in d.store.instrs if i.round == rnd],
            smem,
            src,
            store=True,
            writer=writer,
            readers=readers,
            cta_barrier=cta_barrier,
        )
        st_wf += wf
        st_ph += ph
        readers = np.zeros(d.scratch_elems, dtype=np.int64)
        wf, ph = _access(
            plan,
            d.load,
            [i for i in d.load.instrs if i.round == rnd],
            smem,
            out,
            store=False,
            writer=writer,
            readers=readers,
            cta_barrier=cta_barrier,
        )
        ld_wf += wf
        ld_ph += ph
    res.store_instr_wavefronts, res.load_instr_wavefronts = tuple(st_wf), tuple(ld_wf)
    res.store_instr_phases, res.load_instr_phases = tuple(st_ph), tuple(ld_ph)
    res.store_wavefronts, res.load_wavefronts = sum(st_wf), sum(ld_wf)


def _access(
    plan, side, instrs, smem, regs, *, store: bool, writer: np.ndarray, readers: np.ndarray, cta_barrier: bool
) -> tuple[list[int], list[int]]:
    """Execute instructions (all of one side and round) on every warp that runs them; returns
    per instruction (wavefronts, phases), summed over warps, by brute force. ``writer`` (per word, the warp
    that stored it this round, -1 none) and ``readers`` (per word, a bit per warp that loaded it) are
    updated and checked against the barrier (``cta_barrier``: __syncthreads, else __syncwarp)."""
    if not instrs:
        return [], []
    warps, lanes = plan.warps, plan.target.lanes
    w = plan.dtype.bytes
    tid = np.arange(warps * lanes)
    active = np.array([not (store and warp & side.predicate_warp_mask) for warp in range(warps)])
    base0 = _affine(side.thread_offset, tid).reshape(warps, lanes)[active]
    xor = np.array([i.xor_const for i in instrs], dtype=np.int64)[:, None, None]
    add = np.array([i.add_const for i in instrs], dtype=np.int64)[:, None, None]
    base = (base0[None] ^ xor) + add  # [instr, warp, lane]
    ni, nw = base.shape[0], base.shape[1]
    nregs = len(instrs[0].regs)
    if any(len(i.regs) != nregs for i in instrs):
        raise SimError("instructions of one side move different numbers of registers")
    regtab = np.array([i.regs for i in instrs], dtype=np.int64)  # [instr, e]
    t = np.arange(lanes)
    slot = (np.arange(ni)[:, None] * nw + np.arange(nw)[None, :])[:, :, None]  # [instr, warp, 1]
    if side.matrices:
        k = nregs // side.matrices  # elements per thread per matrix
        offs, group, regi = [], [], []
        for mtx in range(side.matrices):
            rows = base[:, :, 8 * mtx : 8 * mtx + 8]  # row addresses come from lanes 8m..8m+7
            for e in range(k):
                if side.op.endswith("trans"):
                    o = rows[:, :, 2 * (t % 4) + e] + t // 4
                else:
                    o = rows[:, :, t // 4] + (t % 4) * k + e
                offs.append(o)
                group.append(np.broadcast_to(slot * side.matrices + mtx, o.shape))
                regi.append(np.broadcast_to(regtab[:, mtx * k + e][:, None, None], o.shape))
        offs, group, regi = np.stack(offs, -1), np.stack(group, -1), np.stack(regi, -1)  # [instr, warp, lane, e]
        phases = side.matrices
    else:
        vbytes = nregs * w
        per = min(lanes, 128 // max(4, vbytes))
        phase = base.reshape(ni, nw, lanes // per, per)
        if not store and vbytes == 16 and lanes == 32 and not (phase != phase[..., :1]).any():
            per *= 2  # a 16-byte load whose quarter-warps each read one address: half-warps serve it (the H100)
        groups = lanes // per
        phases = lanes * max(4, vbytes) // 128  # the data-volume minimum reported beside the count
        offs = base[..., None] + np.arange(nregs)  # [instr, warp, lane, e]
        group = np.broadcast_to((slot * groups + (t // per)[None, None, :])[..., None], offs.shape)
        regi = np.broadcast_to(regtab[:, None, None, :], offs.shape)
    if (offs < 0).any() or (offs >= len(smem)).any():
        raise SimError(f"offset {int(offs.max())} outside the scratch buffer of {len(smem)} elements")
    widx = np.nonzero(active)[0][None, :, None, None]
    lidx = t[None, None, :, None]
    warp_of = np.broadcast_to(widx, offs.shape)
    if store:
        vals = regs[widx, lidx, regi]
        _check_writes(offs.ravel(), warp_of.ravel(), writer, readers, cta_barrier)
        smem[offs] = vals
        if not (smem[offs] == vals).all():
            raise SimError("two threads store different elements to the same shared-memory offset")
    else:
        _check_reads(offs.ravel(), warp_of.ravel(), writer, cta_barrier)
        np.bitwise_or.at(readers, offs.ravel(), np.int64(1) << warp_of.ravel())
        regs[widx, lidx, regi] = smem[offs]
    ngroups = side.matrices or groups
    per_group = _wavefronts(offs.ravel(), group.ravel(), w, plan.target.banks, plan.target.bank_bytes, ni * nw * ngroups)
    per_instr = per_group.reshape(ni, nw * ngroups).sum(1)
    return [int(x) for x in per_instr], [nw * phases] * ni


def _check_writes(offs: np.ndarray, warp: np.ndarray, writer: np.ndarray, readers: np.ndarray, cta_barrier: bool) -> None:
    """Stores of one side and round: no two warps may write one word (nothing orders them), and with only
    __syncwarp since the last loads, no warp may overwrite a word another warp read."""
    last = np.full(len(writer), -1, dtype=np.int64)
    last[offs] = warp
    if (last[offs] != warp).any():  # some word is stored by two warps: name the lowest such word and warps
        order = np.lexsort((warp, offs))
        o, wp = offs[order], warp[order]
        clash = (o[1:] == o[:-1]) & (wp[1:] != wp[:-1])
        i = int(np.argmax(clash))
        raise SimError(f"warps {int(wp[i])} and {int(wp[i + 1])} both store offset {int(o[i])} with no barrier between")
    if not cta_barrier:
        others = readers[offs] & ~(np.int64(1) << warp)
        if others.any():
            i = int(np.argmax(others != 0))
            raise SimError(
                f"warp {int(warp[i])} overwrites offset {int(offs[i])}, which another warp read in the round "
                "before, with only __syncwarp between"
            )
    writer[offs] = warp


def _check_reads(offs: np.ndarray, warp: np.ndarray, writer: np.ndarray, cta_barrier: bool) -> None:
    """Loads of one side and round: every word was written this round, and by the reading warp itself when only
    __syncwarp separates the stores from the loads."""
    who = writer[offs]
    if (who < 0).any():
        i = int(np.argmax(who < 0))
        raise SimError(f"warp {int(warp[i])} reads offset {int(offs[i])}, which no thread wrote in this round")
    if not cta_barrier and (who != warp).any():
        i = int(np.argmax(who != warp))
        raise SimError(
            f"warp {int(warp[i])} reads offset {int(offs[i])}, which warp {int(who[i])} wrote, with only __syncwarp between"
        )


def _wavefronts(offs: np.ndarray, group: np.ndarray, elem_bytes: int, banks: int, bank_bytes: int, ngroups: int) -> np.ndarray:
    """Brute force: per phase group, per bank, the number of distinct 4-byte words; the max over banks."""
    if not len(offs):
        return np.zeros(ngroups, dtype=np.int64)
    first = offs * elem_bytes // bank_bytes
    last = (offs * elem_bytes + elem_bytes - 1) // bank_bytes
    words = np.concatenate([first + i for i in range(int((last - first).max()) + 1)])
    span = int(words.max()) + 1
    # (group, word) pairs sorted: each distinct pair counts once for its group's bank
    pairs = np.sort(np.tile(group.astype(np.int64), len(words) // len(group)) * span + words)
    distinct = np.empty(len(pairs), dtype=bool)
    distinct[0], distinct[1:] = True, pairs[1:] != pairs[:-1]
    pairs = pairs[distinct]
    per_bank = np.bincount(pairs // span * banks + pairs % span % banks, minlength=ngroups * banks)
    return per_bank.reshape(ngroups, banks).max(axis=1)


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
    lane, warp_idx = tid % lanes, tid // lanes
    if d.kind == "shuffle":
        filled = np.zeros((warps, lanes, n), dtype=bool)
        kept: dict[int, np.ndarray] = {}
        for rnd in d.rounds:
            if any(not 0 <= r < n for r in rnd.send) or len(rnd.send) != d.pack:
                raise SimError(f"a round for register {rnd.dest} sends registers {rnd.send} (pack {d.pack})")
            word = src[:, :, list(rnd.send)]  # [warp, lane, pack]
            ix = idx[:, :, rnd.dest]
            if rnd.op == "idx":
                sl = (lane & d.lane_keep) | _deposit(ix, d.lane_runs)
                if (sl < 0).any() or (sl >= lanes).any():
                    raise SimError("a source lane outside the warp")
                got = word[warp_idx, sl]
                res.shuffles += d.words_per_element
            elif rnd.op == "local":
                got = word
            else:
                raise SimError(f"unknown round op {rnd.op!r}")
            keep = (ix & d.select_mask) == rnd.select_value
            prev = kept.get(rnd.dest)
            if prev is not None and (keep & filled[:, :, rnd.dest]).any():
                raise SimError(f"two rounds both keep a word for register {rnd.dest}")
            kept[rnd.dest] = np.where(keep[..., None], got, prev if prev is not None else got)
            filled[:, :, rnd.dest] |= keep
        for j, v in kept.items():
            if not filled[:, :, j].all():
                raise SimError(f"no round keeps a word for register {j} on some thread")
            pos = _deposit(idx[:, :, j], d.pack_runs)
            if (pos >= d.pack).any():
                raise SimError("an element position outside the shuffled word")
            out[:, :, j] = np.take_along_axis(v, pos[..., None], 2)[..., 0]
    else:
        _gather_shared(plan, src, idx, out, lane, warp_idx, tid)
    for j, k in plan.out_copies:
        out[:, :, j] = out[:, :, k]
    filled = {r.dest for r in d.rounds} if d.kind == "shuffle" else {j for j, _ in d.loads}
    missing = set(range(n)) - filled - {j for j, _ in plan.out_copies}
    if missing:
        raise SimError(f"the plan never fills registers {sorted(missing)}")
    return res


def _gather_shared(plan, src, idx, out, lane, warp_idx, tid) -> None:
    d = plan.detail
    st = d.store
    written = np.zeros(d.scratch_elems, dtype=bool)
    data = np.full(d.scratch_elems, 0, dtype=src.dtype)
    active = ((lane & st.skip_lane_mask) == 0) & ((warp_idx & st.skip_warp_mask) == 0)
    base = _affine(st.thread_offset, tid)
    for ins in st.instrs:
        off0 = (base ^ ins.xor_const) + ins.add_const
        for e, r in enumerate(ins.regs):
            off = (off0 + e)[active]
            if (off < 0).any() or (off >= d.scratch_elems).any():
                raise SimError("a store outside the scratch buffer")
            if written[off].any() or len(np.unique(off)) != len(off):
                raise SimError("two stores to one shared-memory offset")
            data[off] = src[:, :, r][active]
            written[off] = True
    if not written.all():
        raise SimError("the stores leave part of the scratch tile unwritten")
    ld = _affine(d.load_thread, tid)
    for j, c in d.loads:
        off = ld + c + ((idx[:, :, j] & d.axis_mask) << d.axis_shift)
        if (off < 0).any() or (off >= d.scratch_elems).any():
            raise SimError("a load outside the scratch buffer")
        out[:, :, j] = data[off]
