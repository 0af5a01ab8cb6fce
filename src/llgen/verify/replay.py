"""Replay a plan from its JSON alone (`llgen plan --json`, docs/plan-schema.md) and prove it moves every element
to every slot of B, replicas included, with the barrier it names.

This reads nothing but the JSON: the two layouts' bases, and for a shared plan the memory layout
(``offset_bases`` and ``round_bases``: which tensor element lives at each offset in each round), the warps that
store, the barrier, and every instruction's registers, offset and round. So it checks the plan's own claims
against each other: a store must put A's element where the memory layout says it lives, a load must find there
B's element, and under ``__syncwarp`` a warp may read only words it wrote itself.
"""

from __future__ import annotations

import functools
import operator

import numpy as np


class ReplayError(AssertionError):
    """The JSON's plan does not do what it claims."""


def replay(doc: dict) -> None:
    """Raise ReplayError naming the first thing that is wrong; return None when the plan is proved (and its sm_80
    fallback, where it has one). A 4-bit conversion's JSON (``packing``) replays the byte plan under ``bytes``, after
    checking the bytes' tensor is the elements' with the paired dim halved (pairs) or the same (nibbles)."""
    if "packing" in doc:
        _packing(doc["packing"])
        replay(doc["bytes"])
        return
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
    wrong = out != dst
    if wrong.any():
        bad = np.argwhere(wrong)
        w, lane, r = (int(x) for x in bad[0])
        raise ReplayError(
            f"warp {w} lane {lane} register {r} holds element {int(out[w, lane, r])}, "
            f"not {int(dst[w, lane, r])}, after the plan ({len(bad)} slots wrong)"
        )


def _packing(packing: dict) -> None:
    shape, byte_shape, along = packing["shape"], packing["byte_shape"], packing["pairs_along"]
    if packing["form"] == "nibbles":
        want = shape
    else:
        want = [n // 2 if d == along["axis"] else n for d, n in enumerate(shape)]
    if byte_shape != want:
        raise ReplayError(f"the bytes' tensor is {byte_shape}, not {want} for a {packing['form']} plan over {shape}")


def _flat(coords, sizes) -> int:
    flat = 0
    for c, s in zip(coords, sizes, strict=True):
        flat = flat * s + c
    return flat


def _ids(layout: dict, doc: dict) -> np.ndarray:
    """[warp, lane, register] -> the flat row-major index of the element held there."""
    sizes = list(layout["out_dims"].values())

    def vectors(name: str, n: int) -> list[int]:
        """The dim's bases flattened, one per bit of an index below n (zero where the layout has none)."""
        bits = (n - 1).bit_length()
        flat = [_flat(basis, sizes) for basis in layout["bases"].get(name, [])][:bits]
        return flat + [0] * (bits - len(flat))

    warps, lanes, regs = doc["warps"], doc["lanes"], 1 << len(layout["bases"].get("register", []))
    # (warp, lane, register) is index (warp * lanes + lane) * regs + register: the register's bits, the lane's, the warp's
    return _id_table(tuple(vectors("register", regs) + vectors("lane", lanes) + vectors("warp", warps)), warps, lanes, regs)


@functools.lru_cache(maxsize=64)
def _id_table(vectors: tuple[int, ...], warps: int, lanes: int, regs: int) -> np.ndarray:
    """`_ids` from its flattened bases, read-only: the plans of one pair of layouts share it."""
    ids = _span(list(vectors), warps * lanes * regs).reshape(warps, lanes, regs)
    ids.flags.writeable = False
    return ids


def _span(vectors: list[int], n: int) -> np.ndarray:
    """For each index x below n, the XOR of ``vectors[i]`` over the set bits i of x (bits past the vectors ignored)."""
    vectors = vectors[: max(0, n - 1).bit_length()]
    v = np.zeros(1 << len(vectors), dtype=np.int64)
    for j, c in enumerate(vectors):  # doubling: the second half of each prefix is the first half ^ c
        np.bitwise_xor(v[: 1 << j], c, out=v[1 << j : 2 << j])
    return v[:n] if len(v) >= n else np.tile(v, n // len(v))


def _affine(aff: dict, tid: np.ndarray) -> np.ndarray:
    return _span(aff["cols"], int(tid.max()) + 1)[tid] ^ aff["const"]


def _shuffle(doc: dict, src: np.ndarray, out: np.ndarray) -> None:
    """Each round, per the round's table: every thread sends A register send_reg (and the packed ones beside it)
    and fills B register recv_reg with what its source lane sent."""
    sh = doc["shuffle"]
    lanes = src.shape[1]
    pack_a = [sum(x for j, x in enumerate(sh["pack_a"]) if t >> j & 1) for t in range(1 << len(sh["pack_a"]))]
    pack_b = [sum(x for j, x in enumerate(sh["pack_b"]) if t >> j & 1) for t in range(1 << len(sh["pack_b"]))]
    for rnd in sh["rounds"]:
        w, lane, send_reg, sl, recv = np.array([_row(r) for r in rnd["table"]], dtype=np.int64).reshape(-1, 5).T
        send = np.zeros(src.shape[:2], dtype=np.int64)
        send[w, lane] = send_reg
        if ((sl < 0) | (sl >= lanes)).any():
            raise ReplayError(f"round {rnd['index']} reads a lane outside the warp")
        for pa, pb in zip(pack_a, pack_b, strict=True):
            out[w, lane, recv ^ pb] = src[w, sl, send[w, sl] ^ pa]


_row = operator.itemgetter("warp", "lane", "send_reg", "src_lane", "recv_reg")


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
    if not _independent(offset):  # else two offsets' spans meet: some element would live at two offsets
        raise ReplayError("offset_bases do not give every offset its own element")
    at_offset = _span(offset, n_off)  # the element the memory layout puts at each offset, round 0
    tid = np.arange(warps * lanes)
    warp_of, lane_of = tid // lanes, tid % lanes
    cta_barrier = sh["barrier"] == "__syncthreads"
    store_warps = set(sh["store_warps"])
    storing = tid[np.array([w in store_warps for w in range(warps)])[warp_of]]
    for rnd in range(sh["rounds"]):
        in_round = at_offset ^ int(np.bitwise_xor.reduce([v for j, v in enumerate(round_) if rnd >> j & 1] or [0]))
        # accesses as [group (instruction and element), thread] in program order
        off, reg = _accesses(sh["store"], rnd, tid, src.shape[2])
        off, w = off[:, storing], warp_of[storing]
        outside = _outside(off, n_off)
        inside = off if outside is None else np.where(outside, 0, off)
        elem, kept = src.reshape(-1)[storing * src.shape[2] + reg], in_round[inside]
        writer = np.full(n_off, -1, dtype=np.int64)
        writer[inside] = w  # the last store to an offset wins, as in program order
        # the warp whose store to the offset a thread-by-thread run saw last (only where two warps store one offset)
        before = _last_earlier_writer(inside, w) if (writer[inside] != w).any() else None
        fault = _first(outside, elem != kept, None if before is None else (before >= 0) & (before != w))
        if fault is not None:
            kind, (g, i) = fault
            where = f"round {rnd}: warp {w[i]} lane {lane_of[storing[i]]}"
            if kind == 0:
                raise ReplayError(f"{where} stores at offset {off[g, i]}, outside the memory layout's {n_off} offsets")
            if kind == 1:
                raise ReplayError(
                    f"{where} stores element {elem[g, i]} at offset {off[g, i]}, where the memory layout keeps {kept[g, i]}"
                )
            raise ReplayError(f"round {rnd}: warps {before[g, i]} and {w[i]} both store offset {off[g, i]}")
        off, reg = _accesses(sh["load"], rnd, tid, out.shape[2])
        w = warp_of
        outside = _outside(off, n_off)
        who = writer[off if outside is None else np.where(outside, 0, off)]
        fault = _first(outside, who < 0, None if cta_barrier else who != w)
        if fault is not None:
            kind, (g, i) = fault
            if kind == 0:
                raise ReplayError(
                    f"round {rnd}: warp {w[i]} lane {lane_of[i]} loads offset {off[g, i]}, outside the memory layout's "
                    f"{n_off} offsets"
                )
            if kind == 1:
                raise ReplayError(f"round {rnd}: warp {w[i]} loads offset {off[g, i]}, which no warp stored")
            raise ReplayError(
                f"round {rnd}: warp {w[i]} loads offset {off[g, i]}, stored by warp {who[g, i]}, with only __syncwarp between"
            )
        out.reshape(-1)[tid * out.shape[2] + reg] = in_round[off]


def _independent(vectors: list[int]) -> bool:
    """Whether no nonempty subset of ``vectors`` XORs to zero (Gaussian elimination over GF(2))."""
    pivots: dict[int, int] = {}  # leading bit -> a reduced vector with that leading bit
    for v in vectors:
        while v and v.bit_length() in pivots:
            v ^= pivots[v.bit_length()]
        if not v:
            return False
        pivots[v.bit_length()] = v
    return True


def _outside(off: np.ndarray, n_off: int) -> np.ndarray | None:
    """Where ``off`` falls outside the memory layout's offsets; None when nowhere."""
    if not off.size or (off.min() >= 0 and off.max() < n_off):
        return None
    return (off < 0) | (off >= n_off)


def _first(*faults: np.ndarray | None) -> tuple[int, tuple[int, int]] | None:
    """(kind, (group, thread)) a step-by-step run fails at: in the first access group (a row: instruction and
    element) with any fault, the first access with the first kind of ``faults`` it has (each group checks one kind
    for all its threads before the next; None: a kind with no fault). None when there is no fault."""
    found = [(kind, f.any(axis=1)) for kind, f in enumerate(faults) if f is not None and f.any()]
    if not found:
        return None
    g = min(int(np.argmax(rows)) for _, rows in found)
    kind = next(kind for kind, rows in found if rows[g])
    return kind, (g, int(np.argmax(faults[kind][g])))


def _last_earlier_writer(off: np.ndarray, warp: np.ndarray) -> np.ndarray:
    """Per access of ``off`` [group, thread] (by threads of ``warp``), the warp of the last access to the same offset
    in an earlier group (-1: none), i.e. what a writer table updated after each whole group holds when this access's
    group runs."""
    flat = off.ravel()
    group = np.repeat(np.arange(off.shape[0]), off.shape[1])
    order = np.lexsort((np.arange(len(flat)), flat))
    o, g = flat[order], group[order]
    # run start of each (offset, group) run in the sorted order; the access just before it is the earlier writer
    new_run = np.ones(len(o), dtype=bool)
    new_run[1:] = (o[1:] != o[:-1]) | (g[1:] != g[:-1])
    start = np.maximum.accumulate(np.where(new_run, np.arange(len(o)), 0))
    prev = start - 1
    has = (prev >= 0) & (o[np.maximum(prev, 0)] == o)
    before = np.full(len(flat), -1, dtype=np.int64)
    before[order] = np.where(has, np.tile(warp, off.shape[0])[order][np.maximum(prev, 0)], -1)
    return before.reshape(off.shape)


def _accesses(side: dict, rnd: int, tid: np.ndarray, n_regs: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets [group, thread], registers [group, 1]) of ``side``'s accesses in round ``rnd``, one per element a
    thread moves, in program order: a group is one instruction's element (by instruction, then element), its row
    every thread's access. ld/st.shared: thread t moves its registers at consecutive offsets from its address.
    ldmatrix/stmatrix: lane 8m + i gives the address of row i of matrix m; thread t moves, of each matrix, the
    elements of row t / 4 at (t % 4) * k (k elements a word), or with .trans those at row 2 (t % 4) + e,
    column t / 4. A register outside the thread's ``n_regs`` is an error."""
    lanes = 32
    ins = [i for i in side["instructions"] if i["round"] == rnd]
    if not ins:
        return np.zeros((0, len(tid)), dtype=np.int64), np.zeros((0, 1), dtype=np.int64)
    nregs = len(ins[0]["regs"])
    if any(len(i["regs"]) != nregs for i in ins):
        raise ReplayError("instructions of one side move different numbers of registers")
    regs = np.array([i["regs"] for i in ins], dtype=np.int64)  # [instruction, element]
    if (regs < 0).any() or (regs >= n_regs).any():
        raise ReplayError(f"round {rnd}: an instruction moves a register outside 0..{n_regs - 1}")
    base = _affine(side["thread_offset"], tid)
    xor = np.array([i["xor"] for i in ins], dtype=np.int64)[:, None]
    add = np.array([i["add"] for i in ins], dtype=np.int64)[:, None]
    addr = (base[None, :] ^ xor) + add  # [instruction, thread]
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
    return off.reshape(len(ins) * nregs, len(tid)), regs.reshape(-1, 1)
