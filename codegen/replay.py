"""Replay a plan from its JSON alone (`llgen plan --json`, docs/plan-schema.md) and prove it moves every element
to every slot of B, replicas included, with the barrier it names.

This reads nothing but the JSON: the two layouts' bases, and for a shared plan the memory layout
(``offset_bases`` and ``round_bases``: which tensor element lives at each offset in each round), the warps that
store, the barrier, and every instruction's registers, offset and round. So it checks the plan's own claims
against each other: a store must put A's element where the memory layout says it lives, a load must find there
B's element, and under ``__syncwarp`` a warp may read only words it wrote itself.
"""

from __future__ import annotations

import numpy as np


class ReplayError(AssertionError):
    """The JSON's plan does not do what it claims."""


def replay(doc: dict) -> None:
    """Raise ReplayError naming the first thing that is wrong; return None when the plan is proved (and its sm_80
    fallback, where it has one)."""
    if "fallback" in doc:
        replay(doc["fallback"])
    src, dst = _ids(doc["src"], doc), _ids(doc["dst"], doc)
    out = np.full(dst.shape, -1, dtype=np.int64)
    if doc["path"] in ("noop", "registers"):
        out[:] = src[:, :, doc["perm"]]
    elif doc["path"] == "shuffle":
        _shuffle(doc, src, out)
    else:
        _shared(doc, src, out)
    for j, k in doc["out_copies"]:
        out[:, :, j] = out[:, :, k]
    bad = np.argwhere(out != dst)
    if len(bad):
        w, lane, r = (int(x) for x in bad[0])
        raise ReplayError(
            f"warp {w} lane {lane} register {r} holds element {int(out[w, lane, r])}, "
            f"not {int(dst[w, lane, r])}, after the plan ({len(bad)} slots wrong)"
        )


def _flat(coords, sizes) -> int:
    flat = 0
    for c, s in zip(coords, sizes, strict=True):
        flat = flat * s + c
    return flat


def _ids(layout: dict, doc: dict) -> np.ndarray:
    """[warp, lane, register] -> the flat row-major index of the element held there."""
    sizes = list(layout["out_dims"].values())

    def values(name: str, n: int) -> np.ndarray:
        return _span([_flat(basis, sizes) for basis in layout["bases"].get(name, [])], n)

    regs = 1 << len(layout["bases"].get("register", []))
    return (
        values("warp", doc["warps"])[:, None, None]
        ^ values("lane", doc["lanes"])[None, :, None]
        ^ values("register", regs)[None, None, :]
    )


def _span(vectors: list[int], n: int) -> np.ndarray:
    """For each index x below n, the XOR of ``vectors[i]`` over the set bits i of x (bits past the vectors ignored)."""
    v = np.zeros(1, dtype=np.int64)
    for c in vectors:
        v = np.concatenate([v, v ^ c])
    return v[np.arange(n) % len(v)]


def _affine(aff: dict, tid: np.ndarray) -> np.ndarray:
    y = np.full(tid.shape, aff["const"], dtype=np.int64)
    for i, c in enumerate(aff["cols"]):
        y ^= np.where((tid >> i) & 1, c, 0)
    return y


def _shuffle(doc: dict, src: np.ndarray, out: np.ndarray) -> None:
    """Each round, per the round's table: every thread sends A register send_reg (and the packed ones beside it)
    and fills B register recv_reg with what its source lane sent."""
    sh = doc["shuffle"]
    lanes = src.shape[1]
    pack_a = [sum(x for j, x in enumerate(sh["pack_a"]) if t >> j & 1) for t in range(1 << len(sh["pack_a"]))]
    pack_b = [sum(x for j, x in enumerate(sh["pack_b"]) if t >> j & 1) for t in range(1 << len(sh["pack_b"]))]
    for rnd in sh["rounds"]:
        rows = rnd["table"]
        w = np.array([r["warp"] for r in rows])
        lane = np.array([r["lane"] for r in rows])
        send = np.zeros(src.shape[:2], dtype=np.int64)
        send[w, lane] = [r["send_reg"] for r in rows]
        sl = np.array([r["src_lane"] for r in rows])
        if ((sl < 0) | (sl >= lanes)).any():
            raise ReplayError(f"round {rnd['index']} reads a lane outside the warp")
        recv = np.array([r["recv_reg"] for r in rows])
        for pa, pb in zip(pack_a, pack_b, strict=True):
            out[w, lane, recv ^ pb] = src[w, sl, send[w, sl] ^ pa]


def _shared(doc: dict, src: np.ndarray, out: np.ndarray) -> None:
    """Each round's stores, then its loads, each side checked at once over all its accesses; where several are
    wrong, the error names the first in program order (instruction, element, thread), as a thread-by-thread run
    would meet it."""
    sh = doc["shared"]
    warps, lanes = src.shape[0], src.shape[1]
    sizes = list(doc["src"]["out_dims"].values())
    offset = [_flat(c, sizes) for c in sh["offset_bases"]]
    round_ = [_flat(c, sizes) for c in sh["round_bases"]]
    n_off = 1 << len(offset)
    at_offset = _span(offset, n_off)  # the element the memory layout puts at each offset, round 0
    ordered = np.sort(at_offset)
    if (ordered[1:] == ordered[:-1]).any():
        raise ReplayError("offset_bases do not give every offset its own element")
    tid = np.arange(warps * lanes)
    warp_of, lane_of = tid // lanes, tid % lanes
    cta_barrier = sh["barrier"] == "__syncthreads"
    storing = np.isin(warp_of, sh["store_warps"])
    for rnd in range(sh["rounds"]):
        in_round = at_offset ^ int(np.bitwise_xor.reduce([v for j, v in enumerate(round_) if rnd >> j & 1] or [0]))
        off, t, reg, group = _accesses(sh["store"], rnd, tid)
        keep = storing[t]
        off, t, reg, group, w = off[keep], t[keep], reg[keep], group[keep], warp_of[t[keep]]
        outside = (off < 0) | (off >= n_off)
        elem, kept = src[w, lane_of[t], reg], in_round[np.where(outside, 0, off)]
        writer = np.full(n_off, -1, dtype=np.int64)
        writer[np.where(outside, 0, off)] = w  # the last store to an offset wins, as in program order
        # the warp whose store to the offset a thread-by-thread run saw last (only where two warps store one offset)
        shared_offsets = (writer[np.where(outside, 0, off)] != w).any()
        before = _last_earlier_writer(off, group, w) if shared_offsets else np.full(len(off), -1, dtype=np.int64)
        fault = _first(group, outside, elem != kept, (before >= 0) & (before != w))
        if fault is not None:
            kind, i = fault
            where = f"round {rnd}: warp {w[i]} lane {lane_of[t[i]]}"
            raise ReplayError(
                [
                    f"{where} stores at offset {off[i]}, outside the memory layout's {n_off} offsets",
                    f"{where} stores element {elem[i]} at offset {off[i]}, where the memory layout keeps {kept[i]}",
                    f"round {rnd}: warps {before[i]} and {w[i]} both store offset {off[i]}",
                ][kind]
            )
        off, t, reg, group = _accesses(sh["load"], rnd, tid)
        w = warp_of[t]
        outside = (off < 0) | (off >= n_off)
        who = writer[np.where(outside, 0, off)]
        fault = _first(group, outside, who < 0, (who != w) & (not cta_barrier))
        if fault is not None:
            kind, i = fault
            raise ReplayError(
                [
                    f"round {rnd}: warp {w[i]} lane {lane_of[t[i]]} loads offset {off[i]}, outside the memory layout's "
                    f"{n_off} offsets",
                    f"round {rnd}: warp {w[i]} loads offset {off[i]}, which no warp stored",
                    f"round {rnd}: warp {w[i]} loads offset {off[i]}, stored by warp {who[i]}, with only __syncwarp between",
                ][kind]
            )
        out[w, lane_of[t], reg] = in_round[off]


def _first(group: np.ndarray, *faults: np.ndarray) -> tuple[int, int] | None:
    """(kind, access) a step-by-step run fails at: in the first access group (instruction and element) with any
    fault, the first access with the first kind of ``faults`` it has (each group checks one kind for all its threads
    before the next). None when there is no fault."""
    faulty = np.logical_or.reduce(faults)
    if not faulty.any():
        return None
    in_group = group == group[int(np.argmax(faulty))]
    return next((kind, int(np.argmax(f & in_group))) for kind, f in enumerate(faults) if (f & in_group).any())


def _last_earlier_writer(off: np.ndarray, group: np.ndarray, warp: np.ndarray) -> np.ndarray:
    """Per access, the warp of the last access to the same offset in an earlier group (-1: none), i.e. what a
    writer table updated after each whole group holds when this access's group runs."""
    order = np.lexsort((np.arange(len(off)), off))
    o, g = off[order], group[order]
    # run start of each (offset, group) run in the sorted order; the access just before it is the earlier writer
    new_run = np.ones(len(o), dtype=bool)
    new_run[1:] = (o[1:] != o[:-1]) | (g[1:] != g[:-1])
    start = np.maximum.accumulate(np.where(new_run, np.arange(len(o)), 0))
    prev = start - 1
    has = (prev >= 0) & (o[np.maximum(prev, 0)] == o)
    before = np.full(len(off), -1, dtype=np.int64)
    before[order] = np.where(has, warp[order][np.maximum(prev, 0)], -1)
    return before


def _accesses(side: dict, rnd: int, tid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, threads, registers, groups) of ``side``'s accesses in round ``rnd``, one entry per element a thread
    moves, in program order: by instruction, then element, then thread; a group is one instruction's element.
    ld/st.shared: thread t moves its registers at consecutive offsets from its address.
    ldmatrix/stmatrix: lane 8m + i gives the address of row i of matrix m; thread t moves, of each matrix, the
    elements of row t / 4 at (t % 4) * k (k elements a word), or with .trans those at row 2 (t % 4) + e,
    column t / 4."""
    lanes = 32
    ins = [i for i in side["instructions"] if i["round"] == rnd]
    if not ins:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    nregs = len(ins[0]["regs"])
    if any(len(i["regs"]) != nregs for i in ins):
        raise ReplayError("instructions of one side move different numbers of registers")
    base = _affine(side["thread_offset"], tid)
    xor = np.array([i["xor"] for i in ins], dtype=np.int64)[:, None]
    add = np.array([i["add"] for i in ins], dtype=np.int64)[:, None]
    addr = (base[None, :] ^ xor) + add  # [instruction, thread]
    regs = np.array([i["regs"] for i in ins], dtype=np.int64)  # [instruction, element]
    if not side["matrices"]:
        off = addr[:, None, :] + np.arange(nregs)[None, :, None]  # [instruction, element, thread]
    else:
        mats = side["matrices"]
        k = nregs // mats
        t = tid % lanes
        warp_base = tid - t
        m = np.arange(mats)[:, None, None]
        e = np.arange(k)[None, :, None]
        if side["op"].endswith("trans"):
            row, col = warp_base + 8 * m + 2 * (t % 4) + e, t // 4 + 0 * e
        else:
            row, col = warp_base + 8 * m + t // 4 + 0 * e, (t % 4) * k + e
        off = (addr[:, row] + col).reshape(len(ins), nregs, len(tid))  # element m * k + e is register regs[m * k + e]
    shape = off.shape
    threads = np.broadcast_to(tid, shape)
    reg = np.broadcast_to(regs[:, :, None], shape)
    group = np.broadcast_to(np.arange(len(ins) * nregs).reshape(len(ins), nregs, 1), shape)
    return off.ravel(), threads.ravel(), reg.ravel(), group.ravel()
