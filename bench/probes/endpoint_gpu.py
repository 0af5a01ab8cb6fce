"""On the GPU machine: shared-memory endpoints (local_store / local_load, issue 26) run on the GPU, checked byte for
byte against each shared layout's own offset map (llgen.runtime.endpointcheck), and round trips through the same S.

Every shared family (swizzled, nvmma 0/32/64/128 plain and transposed, 8/16/32-bit, padded, rank-3 buffers) against
the distributed layouts kernels hand them (mma v2 accumulator, coalesced blocked, dot operands, wgmma, a column
read), both directions, then random distributed layouts. Prints one line per case and a table at the end; exit 1
on any mismatch. Usage: python3 bench/probes/endpoint_gpu.py [N_RANDOM] [-o OUT.json]
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np

from llgen.dtypes import dtype as to_dtype
from llgen.errors import LlgenError
from llgen.plan.endpoint import plan_load, plan_store
from llgen.randlayout import random_layout
from llgen.runtime.endpointcheck import compile_endpoints, round_trip, run_endpoint
from llgen.spec import parse_encoding, parse_layout

SHARED = [
    ("swizzled:vec=8,per_phase=1,max_phase=8,order=1x0", "f16", (64, 64)),
    ("swizzled:vec=4,per_phase=2,max_phase=4,order=1x0", "f32", (64, 32)),
    ("swizzled:vec=2,per_phase=1,max_phase=4,order=0x1", "f16", (64, 64)),
    ("swizzled:vec=1,per_phase=1,max_phase=1,order=1x0", "f32", (64, 64)),
    ("nvmma:0", "f16", (64, 64)),
    ("nvmma:32", "f16", (64, 64)),
    ("nvmma:64", "f32", (64, 64)),
    ("nvmma:64,transposed=true", "f16", (64, 64)),
    ("nvmma:128", "f16", (128, 64)),
    ("nvmma:128,transposed=true", "f16", (64, 64)),
    ("nvmma:128", "i8", (64, 128)),
    ("nvmma:128", "f32", (64, 64)),
    ("#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>", "f16", (64, 64)),
    ("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 32]}>", "f32", (64, 32)),
]
DIST = [
    "mma",
    "blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0",
    "blocked:spt=8x1,tpw=8x4,wpc=1x4,order=0x1",
    "dot:0",
    "dot:1",
    "wgmma",
]
BUFFERS = [  # rank 3: a multi-buffer, one stage a tile
    (
        "blocked:spt=1x1x8,tpw=1x4x8,wpc=2x2x1,order=2x1x0",
        "swizzled:vec=8,per_phase=1,max_phase=8,order=2x1x0",
        "f16",
        (2, 64, 64),
    ),
    (
        "blocked:spt=1x8x1,tpw=1x8x4,wpc=1x1x4,order=1x2x0",
        "swizzled:vec=8,per_phase=1,max_phase=8,order=2x1x0",
        "f16",
        (2, 64, 64),
    ),
]


def _pair(dist: str, shared: str, dtype: str, shape):
    w = to_dtype(dtype).bytes
    return parse_layout(dist, shape, 4, 32, w), parse_encoding(shared, shape, 4, 32, w)


def cases(n_random: int) -> list[tuple[str, object, object]]:
    """(name, store plan, load plan) over the families, the buffers and ``n_random`` random layouts."""
    out = []
    for shared, dtype, shape in SHARED:
        for dist in DIST:
            try:
                d, s = _pair(dist, shared, dtype, shape)
                out.append((f"{dist} | {shared} | {dtype}", plan_store(d, s, dtype, "sm_90"), plan_load(s, d, dtype, "sm_90")))
            except LlgenError:
                continue  # a pairing the layouts do not allow (e.g. a dot operand of this dtype over this shape)
    for dist, shared, dtype, shape in BUFFERS:
        d, s = _pair(dist, shared, dtype, shape)
        out.append((f"{dist} | {shared}", plan_store(d, s, dtype, "sm_90"), plan_load(s, d, dtype, "sm_90")))
    for seed in range(n_random):
        rng = random.Random(seed)
        shared, dtype, shape = SHARED[seed % len(SHARED)]
        try:
            d = random_layout(rng, shape, rng.choice([1, 2, 4]), "sm_90", dtype)
            _, s = _pair("blocked", shared, dtype, shape)
            out.append((f"random{seed} | {shared}", plan_store(d, s, dtype, "sm_90"), plan_load(s, d, dtype, "sm_90")))
        except LlgenError:
            continue
    return out


def main(argv: list[str]) -> int:
    n_random = int(argv[0]) if argv and not argv[0].startswith("-") else 60
    out_json = argv[argv.index("-o") + 1] if "-o" in argv else None
    rows, bad_total = [], 0
    items = cases(n_random)
    rng = np.random.default_rng(2026)
    for i in range(0, len(items), 16):  # one module a batch of 16 cases (32 plans)
        batch = items[i : i + 16]
        named = [(f"st{i + j}", st) for j, (_, st, _) in enumerate(batch)] + [
            (f"ld{i + j}", ld) for j, (_, _, ld) in enumerate(batch)
        ]
        module = compile_endpoints(named, cpu=False)
        for j, (label, st, ld) in enumerate(batch):
            bad = run_endpoint(module, st, f"st{i + j}", rng) + run_endpoint(module, ld, f"ld{i + j}", rng)
            bad += round_trip(module, (f"st{i + j}", st), (f"ld{i + j}", ld), rng)
            bad_total += len(bad)
            rows.append(
                {
                    "case": label,
                    "store": f"{st.side.op} x{st.side.width}",
                    "load": f"{ld.side.op} x{ld.side.width}",
                    "store_wavefronts": st.wavefronts,
                    "load_wavefronts": ld.wavefronts,
                    "floor": [st.floor, ld.floor],
                    "mismatches": len(bad),
                    "first": bad[:2],
                }
            )
            print(f"{'ok ' if not bad else 'BAD'} {label}: {rows[-1]['store']} / {rows[-1]['load']}", flush=True)
            for line in bad[:2]:
                print("   ", line, flush=True)
    if out_json:
        with open(out_json, "w") as f:
            json.dump(rows, f, indent=1)
    print(f"\nendpoint cases {len(rows)} (store + load + round trip each): {bad_total} mismatches")
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
