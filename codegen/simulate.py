"""The CPU oracle: execute a plan on every warp and lane with NumPy and count bank
wavefronts by brute force.

It reads only what the emitter prints (register indices, affine thread maps, offsets) and the
two layouts' bases; it shares no arithmetic with the planner, so agreement means something.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POISON = -1


@dataclass
class SimResult:
    out: np.ndarray  # [warps, lanes, n_out] element ids
    expected: np.ndarray
    store_wavefronts: int = 0
    load_wavefronts: int = 0
    shuffles: int = 0

    @property
    def ok(self) -> bool:
        return bool((self.out == self.expected).all())

    def first_mismatch(self) -> tuple[int, int, int, int, int] | None:
        bad = np.argwhere(self.out != self.expected)
        if not len(bad):
            return None
        w, lane, r = (int(v) for v in bad[0])
        return w, lane, r, int(self.expected[w, lane, r]), int(self.out[w, lane, r])


def element_ids(layout, warps: int, lanes: int) -> np.ndarray:
    """[warps, lanes, regs] -> row-major flat tensor index, from the Triton-form bases."""
    d = layout.to_dict()
    sizes = list(d["out_dims"].values())
    strides = [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]

    def flat(vec):
        return sum(c * s for c, s in zip(vec, strides))

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
    out = np.full(tid.shape, aff.const, dtype=np.int64)
    for i, c in enumerate(aff.cols):
        out ^= np.where((tid >> i) & 1, c, 0)
    return out


def simulate(plan, values: np.ndarray | None = None) -> SimResult:
    """Run ``plan``; ``values`` (default: the element ids) is the tensor's flat contents."""
    warps, lanes = plan.warps, plan.target.lanes
    src = element_ids(plan.src, warps, lanes)
    expected = element_ids(plan.dst, warps, lanes)
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
    tid = np.arange(warps * lanes).reshape(warps, lanes)
    lane = tid % lanes
    warp_idx = tid // lanes
    pa, pb = _pack_offsets(d.pack_a), _pack_offsets(d.pack_b)
    for rnd in d.rounds:
        send = _affine(rnd.send_reg, tid)
        word = np.stack([np.take_along_axis(src, (send ^ o)[:, :, None], 2)[:, :, 0] for o in pa], axis=-1)
        if rnd.op == "local":
            got = word
        else:
            sl = _affine(rnd.src_lane, tid)
            if rnd.op == "xor":
                assert (sl == lane ^ rnd.xor_mask).all(), "shfl.xor round whose source is not lane ^ mask"
            assert (sl >= 0).all() and (sl < lanes).all()
            got = word[warp_idx, sl]
            res.shuffles += d.words_per_element
        recv = _affine(rnd.recv_reg, tid)
        for t, o in enumerate(pb):
            np.put_along_axis(out, (recv ^ o)[:, :, None], got[:, :, t:t + 1], 2)


def _shared(plan, src, out, res) -> None:
    d = plan.detail
    w = plan.dtype.bytes
    warps, lanes = plan.warps, plan.target.lanes
    smem = np.full(d.scratch_elems, POISON, dtype=src.dtype)
    tid = np.arange(warps * lanes)
    for rnd in range(d.rounds):
        smem[:] = POISON
        for ins in d.store.instrs:
            if ins.round == rnd:
                res.store_wavefronts += _access(plan, d.store, ins, tid, smem, src, store=True)
        for ins in d.load.instrs:
            if ins.round == rnd:
                res.load_wavefronts += _access(plan, d.load, ins, tid, smem, out, store=False)
    del w


def _access(plan, side, ins, tid, smem, regs, *, store: bool) -> int:
    """Execute one instruction for every warp; returns its wavefronts (brute force)."""
    warps, lanes = plan.warps, plan.target.lanes
    w = plan.dtype.bytes
    base = (_affine(side.thread_offset, tid) ^ ins.xor_const) + ins.add_const  # per thread
    base = base.reshape(warps, lanes)
    wf = 0
    for warp in range(warps):
        if store and warp & side.predicate_warp_mask:
            continue
        lane_elems: list[list[tuple[int, int]]] = [[] for _ in range(lanes)]  # (reg index, offset)
        groups: list[list[int]] = []  # per phase: element offsets touched
        if side.matrices:
            k = len(ins.regs) // side.matrices  # elements per thread per matrix
            for m in range(side.matrices):
                rows = [int(base[warp, 8 * m + i]) for i in range(8)]
                touched = []
                for t in range(lanes):
                    for e in range(k):
                        reg = ins.regs[m * k + e]
                        if side.op.endswith("trans"):
                            o = rows[2 * (t % 4) + e] + t // 4
                        else:
                            o = rows[t // 4] + (t % 4) * k + e
                        lane_elems[t].append((reg, o))
                        touched.append(o)
                groups.append(touched)
        else:
            nphase = side.phases
            per = lanes // nphase
            for p in range(nphase):
                touched = []
                for t in range(p * per, (p + 1) * per):
                    for e, reg in enumerate(ins.regs):
                        o = int(base[warp, t]) + e
                        lane_elems[t].append((reg, o))
                        touched.append(o)
                groups.append(touched)
        for touched in groups:
            wf += _wavefronts(touched, w, plan.target.banks, plan.target.bank_bytes)
        for t in range(lanes):
            for reg, o in lane_elems[t]:
                assert 0 <= o < len(smem), f"offset {o} outside the scratch buffer"
                if store:
                    smem[o] = regs[warp, t, reg]
                else:
                    regs[warp, t, reg] = smem[o]
    return wf


def _wavefronts(offsets: list[int], elem_bytes: int, banks: int, bank_bytes: int) -> int:
    """Brute force: per bank, the number of distinct 4-byte words; the max over banks."""
    words: dict[int, set[int]] = {}
    for o in offsets:
        lo = o * elem_bytes // bank_bytes
        hi = (o * elem_bytes + elem_bytes - 1) // bank_bytes
        for word in range(lo, hi + 1):
            words.setdefault(word % banks, set()).add(word)
    return max(len(s) for s in words.values())
