"""Random distributed layouts and random conversion plans, for property tests and `llgen check --random`.

A random layout is a permutation of the tensor's bits over register, lane and warp, with a few zero
(broadcast) columns where the hardware has spare bits; a random plan pairs two of them with a random dtype
and a random path (default, or forced shuffle or shared where that path can work). Same seed, same plans.
"""

from __future__ import annotations

import random

from .errors import LlgenError
from .layout import LinearLayout

DTYPES = ["f64", "i64", "f32", "i32", "f16", "bf16", "i16", "f8e4m3", "f8e5m2", "i8"]


def random_layout(rng: random.Random, nbits: int, lane_bits: int, warp_bits: int, shape) -> LinearLayout:
    """A random distributed layout: a permutation of the tensor bits over register/lane/warp,
    with a few zero (broadcast) columns mixed in where the hardware has spare bits."""
    bits = list(range(nbits))
    rng.shuffle(bits)
    hw = lane_bits + warp_bits
    slots = ["lane"] * lane_bits + ["warp"] * warp_bits
    cols = {"register": [], "lane": [], "warp": []}
    zeros = max(0, hw - nbits)
    pool = bits[:]
    for kind in slots:
        if zeros and rng.random() < 0.5:
            cols[kind].append(0)
            zeros -= 1
        elif pool:
            cols[kind].append(1 << pool.pop())
        else:
            cols[kind].append(0)
    cols["register"] = [1 << b for b in pool] + [0] * rng.choice([0, 0, 1])
    col_bits = shape[1].bit_length() - 1

    def coords(c):
        return [c >> col_bits, c & ((1 << col_bits) - 1)]
    bases = {k: [coords(c) for c in v] for k, v in cols.items()}
    return LinearLayout.from_bases(bases, {"dim0": shape[0], "dim1": shape[1]})


def random_cases(n: int, seed: int, target: str, **options) -> list[tuple[str, object]]:
    """``n`` (label, plan) pairs; the label names the pair by seed and index, dtype and requested path.
    ``options`` go to every plan_conversion call (e.g. matrix=False)."""
    from .plan import plan_conversion
    from .target import target as to_target
    rng = random.Random(seed)
    lanes = to_target(target).lanes
    out = []
    while len(out) < n:
        warp_bits = rng.randint(0, 2)
        nbits = rng.randint(6 + warp_bits, 10)
        rows = rng.randint(1, nbits - 1)
        shape = (1 << rows, 1 << (nbits - rows))
        lb = lanes.bit_length() - 1
        a = random_layout(rng, nbits, lb, warp_bits, shape)
        b = random_layout(rng, nbits, lb, warp_bits, shape)
        if not (a.is_surjective() and b.is_surjective()):
            continue
        path = rng.choice([None, None, "shared", "shuffle"])
        dt = rng.choice(DTYPES)
        try:
            plan = plan_conversion(a, b, dt, target, path=path, **options)
        except LlgenError as e:  # a forced path that cannot work
            if "cannot" not in str(e):
                raise
            continue
        out.append((f"r{seed}_{len(out)}_{dt}_{path or 'auto'}", plan))
    return out


def random_plans(n: int, seed: int, target: str) -> list:
    """``n`` random plans (see `random_cases`)."""
    return [p for _, p in random_cases(n, seed, target)]
