"""The CPU oracle of 4-bit plans (llgen.plan.packed): random nibbles packed into bytes as the emitted code packs them
(register 2i low, 2i + 1 high), moved by the byte plan's own simulation, unpacked, and compared element by element
with the destination layout. For a shared-memory endpoint, the byte plan is simulated on its own and every 4-bit
offset of S is checked against the byte and nibble the quotients put it in."""

from __future__ import annotations

import numpy as np

from llgen.core import f2
from llgen.plan.packed import drop_bit
from llgen.verify.simulate import POISON, SimResult, element_ids, simulate
from llgen.verify.simulate_endpoint import simulate_endpoint


def simulate_packed(plan, seed: int = 0) -> SimResult:
    """Run a 4-bit conversion plan on random nibbles; ``out`` and ``expected`` are [warps, lanes, registers] nibbles."""
    warps, lanes = plan.warps, plan.target.lanes
    size = int(np.prod(plan.src.shape))
    vals = np.random.default_rng(seed).integers(0, 16, size, dtype=np.int64)
    expected = vals[element_ids(plan.dst, warps, lanes)]
    if plan.form == "nibbles":
        res = simulate(plan.inner, vals)
        return SimResult(res.out, expected)
    pos = plan.src.out_offset(plan.src.out_names[plan.pair.dim]) + plan.pair.bit
    flat = np.arange(size, dtype=np.int64)
    packed = np.zeros(size // 2, dtype=np.int64)
    np.bitwise_or.at(packed, drop_bit(flat, pos), vals << (4 * ((flat >> pos) & 1)))
    res = simulate(plan.inner, packed)
    out = np.empty(expected.shape, dtype=np.int64)
    out[:, :, 0::2], out[:, :, 1::2] = res.out & 15, res.out >> 4
    out[:, :, 0::2][res.out == POISON] = POISON
    out[:, :, 1::2][res.out == POISON] = POISON
    return SimResult(out, expected)


def check_packed_endpoint(plan) -> list[str]:
    """A 4-bit endpoint's faults (empty: none): the byte endpoint's simulation, and for each of D's registers the
    4-bit offset S gives its element against the byte the quotient S' gives its byte and the register's nibble."""
    errors = list(simulate_endpoint(plan.inner).errors)
    dist, shared = (plan.src, plan.dst) if plan.inner.direction == "store" else (plan.dst, plan.src)
    qdist, qshared = plan.inner.dist, plan.inner.shared
    s_inv = [f2.solve(list(shared.flat_cols("offset")), 1 << i) for i in range(shared.total_out_bits)]
    q_inv = [f2.solve(list(qshared.flat_cols("offset")), 1 << i) for i in range(qshared.total_out_bits)]
    at = dist.in_offset("register")
    for hw in range(1 << dist.total_in_bits):
        offset = f2.combine(dist.apply_flat(hw), s_inv)
        byte = f2.combine(qdist.apply_flat(drop_bit(hw, at)), q_inv)
        if offset != 2 * byte + (hw >> at & 1):
            errors.append(f"hardware index {hw}: S puts its element at 4-bit offset {offset}, the bytes at {2 * byte}")
            break
    return errors
