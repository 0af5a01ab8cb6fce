"""The CPU oracle for shared-memory endpoints (plan/endpoint.py): run a store or load plan on every warp,
lane and register with NumPy, place every element where the shared layout's own map says, and count bank
wavefronts by brute force.

It reads only what an emitter would print (the instruction names, register lists, the thread's affine offset and
constants, the replica copies) and the layouts themselves: S's offset bases (through its encoding when there is
one, with its ``padded_offset``) and D's bases. It shares no arithmetic with the planner. Its hardware model,
stated here on its own:

* a ld/st.shared of ``v`` bytes a thread is served in phases of ``128 / max(4, v)`` consecutive lanes (a whole
  warp up to 4 bytes, half-warps at 8, quarter-warps at 16), except a 16-byte load on 32 lanes whose quarter-warps
  each read a single address, which half-warps serve;
* ldmatrix/stmatrix serve one 8x8 matrix a phase: eight 16-byte rows whose addresses come from lanes 8m..8m+7;
  without .trans thread t holds row t/4, elements (t%4)*k.., with .trans element e of row 2(t%4)+e at column t/4;
* in a phase each of the 32 four-byte banks delivers one distinct word a wavefront: the phase takes as many
  wavefronts as its busiest bank has distinct words.

A store must write every element exactly once, at the offset S gives it (lanes of one instruction that write one
word with the same value are one write), and nothing into padding; a load must fill every register of the
distributed layout, every replica included, with its element.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class EndpointSim:
    errors: list[str] = field(default_factory=list)
    instr_wavefronts: list[int] = field(default_factory=list)  # per instruction, summed over the warps that run it

    @property
    def ok(self) -> bool:
        return not self.errors


def _ids(layout, warps: int, lanes: int) -> np.ndarray:
    """[warp, lane, register] -> flat element (row-major over the layout's out-dims), from its Triton bases."""
    d = layout.to_dict()
    sizes = list(d["out_dims"].values())

    def flat(vec) -> int:
        x = 0
        for c, s in zip(vec, sizes, strict=True):
            x = x * s + c
        return x

    def values(name: str, n: int) -> np.ndarray:
        out = np.zeros(n, dtype=np.int64)
        for i, vec in enumerate(d["bases"].get(name, [])):
            out ^= np.where((np.arange(n) >> i) & 1, flat(vec), 0)
        return out

    regs = 1 << len(d["bases"].get("register", []))
    return values("warp", warps)[:, None, None] ^ values("lane", lanes)[None, :, None] ^ values("register", regs)[None, None, :]


def _memory_image(plan) -> tuple[np.ndarray, np.ndarray]:
    """(address of each offset, element at each offset) straight from S: its encoding's map over the tensor when
    it has one, coordinates flattened in D's out-dim order, then its padding."""
    lay = plan.encoding.to_linear(plan.dist.shape) if plan.encoding is not None else plan.shared
    d = lay.to_dict()
    names = list(d["out_dims"])
    n = 1 << len(d["bases"]["offset"])
    coords = {name: np.zeros(n, dtype=np.int64) for name in names}
    o = np.arange(n)
    for i, vec in enumerate(d["bases"]["offset"]):
        for name, c in zip(names, vec, strict=True):
            coords[name] ^= np.where((o >> i) & 1, c, 0)
    elem = np.zeros(n, dtype=np.int64)
    for name, size in zip(plan.dist.out_names, plan.dist.shape, strict=True):
        elem = elem * size + coords[name]
    pad = plan.buffer.pad if plan.buffer.padded else None
    addr = np.array([pad(int(x)) for x in o], dtype=np.int64) if pad else o
    return addr, elem


def _thread_base(side, warp: int, lanes: int) -> np.ndarray:
    """Each lane's element offset before the instruction's constants: XOR of the affine map's columns over the
    thread id bits (lane bits, then warp bits)."""
    tid = warp * lanes + np.arange(lanes)
    base = np.full(lanes, side.thread_offset.const, dtype=np.int64)
    for i, c in enumerate(side.thread_offset.cols):
        base ^= np.where((tid >> i) & 1, c, 0)
    return base


def _accesses(side, ins, base: np.ndarray, lanes: int) -> tuple[list[tuple[int, int, int]], list[list[int]]]:
    """One warp's instruction: (lane, register, element offset) for every element moved, and the phases as lists
    of the offsets each serves (row starts for matrices, vector starts otherwise)."""
    start = (base ^ ins.xor_const) + ins.add_const
    moves, phases = [], []
    if side.matrices:
        k = len(ins.regs) // side.matrices
        for m in range(side.matrices):
            rows = start[8 * m : 8 * m + 8]
            phases.append([int(r) for r in rows])
            for t in range(lanes):
                for e in range(k):
                    if side.op.endswith(".trans"):
                        o = rows[2 * (t % 4) + e] + t // 4
                    else:
                        o = rows[t // 4] + (t % 4) * k + e
                    moves.append((t, ins.regs[m * k + e], int(o)))
        return moves, phases
    for t in range(lanes):
        for e, r in enumerate(ins.regs):
            moves.append((t, r, int(start[t]) + e))
    return moves, [[int(x) for x in start]]


def _phase_groups(side, starts: list[int], vbytes: int, lanes: int, store: bool) -> list[list[int]]:
    if side.matrices:
        return [starts]
    per = min(lanes, 128 // max(4, vbytes))
    if not store and vbytes == 16 and lanes == 32 and all(len(set(starts[q : q + 8])) == 1 for q in range(0, 32, 8)):
        per = 16
    return [starts[g : g + per] for g in range(0, lanes, per)]


def _wavefronts(byte_ranges: list[tuple[int, int]]) -> int:
    words: set[int] = set()
    for a, n in byte_ranges:
        words.update(range(a // 4, (a + n - 1) // 4 + 1))
    banks: dict[int, int] = {}
    for w in words:
        banks[w % 32] = banks.get(w % 32, 0) + 1
    return max(banks.values())


def simulate_endpoint(plan) -> EndpointSim:
    """Run ``plan`` (an EndpointPlan) and check it; a two-step plan's conversion runs in llgen.verify.simulate."""
    from llgen.plan.chain import steps_of
    from llgen.verify.simulate import simulate

    res = EndpointSim()
    store = plan.direction == "store"
    warps, lanes, w = plan.warps, plan.target.lanes, plan.dtype.bytes
    regs_layout = plan.staging if plan.staging is not None else plan.dist
    steps = steps_of(plan.convert)
    if steps:  # the steps join D and Q: each from the last one's layout, a store from D to Q, a load from Q to D
        ends = (plan.dist, plan.staging) if store else (plan.staging, plan.dist)
        joints = [ends[0], *(st.src for st in steps[1:]), ends[1]]
        if [st.src for st in steps] != joints[:-1] or [st.dst for st in steps] != joints[1:]:
            res.errors.append("the in-warp conversions do not lead from " + ("D to Q" if store else "Q to D") + " step by step")
    for i, step in enumerate(steps):  # a chain's steps each from the last one's layout (llgen.plan.chain)
        conv = simulate(step)
        if not conv.ok:
            which = f"step {i} of the chain" if len(steps) > 1 else f"the {step.path} conversion"
            res.errors.append(f"{which} between D and Q misplaces (warp, lane, reg, want, got) {conv.first_mismatch()}")
    held = _ids(regs_layout, warps, lanes)  # a store's source registers; a load's expected ones
    addr, elem = _memory_image(plan)
    size = plan.smem_bytes // w
    if (addr >= size).any():
        res.errors.append(f"S's offsets reach element {int(addr.max())}, past the {plan.smem_bytes}-byte buffer")
        return res
    mem = np.full(size, -1, dtype=np.int64)
    if not store:
        mem[addr] = elem
    writes = np.zeros(size, dtype=np.int64)
    loaded = np.full(held.shape, -1, dtype=np.int64)
    side = plan.side
    for ins in side.instrs:
        total = 0
        vbytes = len(ins.regs) * w
        for warp in range(warps):
            if store and warp & side.predicate_warp_mask:
                continue
            moves, starts = _accesses(side, ins, _thread_base(side, warp, lanes), lanes)
            written: dict[int, int] = {}
            for t, r, o in moves:
                if not 0 <= o < len(addr):
                    res.errors.append(f"warp {warp} lane {t} register {r} accesses offset {o}, outside S")
                    return res
                p = int(addr[o])
                if store:
                    if written.setdefault(p, held[warp, t, r]) != held[warp, t, r]:
                        res.errors.append(f"two lanes of warp {warp} store different elements at element {p}")
                else:
                    loaded[warp, t, r] = mem[p]
            for p, v in written.items():
                mem[p] = v
                writes[p] += 1
            nbytes = 16 if side.matrices else vbytes
            for group in starts:
                for phase in _phase_groups(side, group, vbytes, lanes, store):
                    for o in phase:
                        if o + nbytes // w > len(addr) or addr[o + nbytes // w - 1] - addr[o] != nbytes // w - 1:
                            res.errors.append(f"the {nbytes}-byte access at offset {o} is not contiguous in the buffer")
                        elif addr[o] * w % nbytes:
                            res.errors.append(f"the {nbytes}-byte access at offset {o} is not aligned in the buffer")
                    total += _wavefronts([(int(addr[o]) * w, nbytes) for o in phase])
        res.instr_wavefronts.append(total)
    if store:
        if (writes[addr] != 1).any():
            i = int(np.argmax(writes[addr] != 1))
            res.errors.append(f"offset {i} (element {int(elem[i])}) is written {int(writes[addr][i])} times, not once")
        if (mem[addr] != elem).any():
            i = int(np.argmax(mem[addr] != elem))
            res.errors.append(f"offset {i} holds element {int(mem[addr][i])}, but S puts element {int(elem[i])} there")
        if writes.sum() != writes[addr].sum():
            res.errors.append("a store writes into S's padding")
    else:
        for j, k in plan.copies:
            loaded[:, :, j] = loaded[:, :, k]
        bad = np.argwhere(loaded != held)
        if len(bad):
            wp, t, r = (int(v) for v in bad[0])
            res.errors.append(f"warp {wp} lane {t} register {r} holds {int(loaded[wp, t, r])}, not element {int(held[wp, t, r])}")
    return res
