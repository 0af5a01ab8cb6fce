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
        v = np.zeros(n, dtype=np.int64)
        for i, basis in enumerate(layout["bases"].get(name, [])):
            v ^= np.where((np.arange(n) >> i) & 1, _flat(basis, sizes), 0)
        return v

    regs = 1 << len(layout["bases"].get("register", []))
    return (
        values("warp", doc["warps"])[:, None, None]
        ^ values("lane", doc["lanes"])[None, :, None]
        ^ values("register", regs)[None, None, :]
    )


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
    sh = doc["shared"]
    warps, lanes = src.shape[0], src.shape[1]
    sizes = list(doc["src"]["out_dims"].values())
    offset = [_flat(c, sizes) for c in sh["offset_bases"]]
    round_ = [_flat(c, sizes) for c in sh["round_bases"]]
    n_off = 1 << len(offset)
    at_offset = np.zeros(n_off, dtype=np.int64)  # the element the memory layout puts at each offset, round 0
    for i, v in enumerate(offset):
        at_offset ^= np.where((np.arange(n_off) >> i) & 1, v, 0)
    if len(set(at_offset.tolist())) != n_off:
        raise ReplayError("offset_bases do not give every offset its own element")
    tid = np.arange(warps * lanes)
    warp_of, lane_of = tid // lanes, tid % lanes
    cta_barrier = sh["barrier"] == "__syncthreads"
    storing = np.isin(warp_of, sh["store_warps"])
    for rnd in range(sh["rounds"]):
        in_round = at_offset ^ int(np.bitwise_xor.reduce([v for j, v in enumerate(round_) if rnd >> j & 1] or [0]))
        writer = np.full(n_off, -1, dtype=np.int64)
        for off, t, reg in _accesses(sh["store"], rnd, tid):
            keep = storing[t]
            off, t, reg = off[keep], t[keep], reg[keep]
            elem = src[warp_of[t], lane_of[t], reg]
            wrong = elem != in_round[off]
            if wrong.any():
                i = int(np.argmax(wrong))
                raise ReplayError(
                    f"round {rnd}: warp {warp_of[t[i]]} lane {lane_of[t[i]]} stores element {elem[i]} at "
                    f"offset {off[i]}, where the memory layout keeps {in_round[off[i]]}"
                )
            clash = (writer[off] >= 0) & (writer[off] != warp_of[t])
            if clash.any():
                i = int(np.argmax(clash))
                raise ReplayError(f"round {rnd}: warps {writer[off[i]]} and {warp_of[t[i]]} both store offset {off[i]}")
            writer[off] = warp_of[t]
        for off, t, reg in _accesses(sh["load"], rnd, tid):
            who = writer[off]
            if (who < 0).any():
                i = int(np.argmax(who < 0))
                raise ReplayError(f"round {rnd}: warp {warp_of[t[i]]} loads offset {off[i]}, which no warp stored")
            if not cta_barrier and (who != warp_of[t]).any():
                i = int(np.argmax(who != warp_of[t]))
                raise ReplayError(
                    f"round {rnd}: warp {warp_of[t[i]]} loads offset {off[i]}, stored by warp {who[i]}, "
                    "with only __syncwarp between"
                )
            out[warp_of[t], lane_of[t], reg] = in_round[off]


def _accesses(side: dict, rnd: int, tid: np.ndarray):
    """(offsets, threads, registers) of each of ``side``'s instructions in round ``rnd``, one entry per element
    a thread moves. ld/st.shared: thread t moves its registers at consecutive offsets from its address.
    ldmatrix/stmatrix: lane 8m + i gives the address of row i of matrix m; thread t moves, of each matrix, the
    elements of row t / 4 at (t % 4) * k (k elements a word), or with .trans those at row 2 (t % 4) + e,
    column t / 4."""
    lanes = 32
    base = _affine(side["thread_offset"], tid)
    for ins in side["instructions"]:
        if ins["round"] != rnd:
            continue
        addr = (base ^ ins["xor"]) + ins["add"]
        regs = ins["regs"]
        if not side["matrices"]:
            for e, r in enumerate(regs):
                yield addr + e, tid, np.full(tid.shape, r)
            continue
        k = len(regs) // side["matrices"]
        t = tid % lanes
        warp_base = tid - t
        for m in range(side["matrices"]):
            for e in range(k):
                if side["op"].endswith("trans"):
                    off = addr[warp_base + 8 * m + 2 * (t % 4) + e] + t // 4
                else:
                    off = addr[warp_base + 8 * m + t // 4] + (t % 4) * k + e
                yield off, tid, np.full(tid.shape, regs[m * k + e])
