"""Random shared-memory endpoint cases for gpu-check: pairs that cycle through the families (swizzled, nvmma
0/32/64/128 plain and transposed with 8/16/32-bit elements, padded_shared, shared_linear, JSON offset maps,
amd_rotating_shared; ranks 1-3), each S against llgen.randlayout's layouts or a real one that fits. The fixed cases
are src/llgen/runtime/endpoint_cases.py's.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.target import target as to_target
from llgen.randlayout import random_layout
from llgen.runtime.endpoint_cases import AMD_TARGET, FAMILIES, TARGET, EndpointCase, Endpoints, planned_case
from llgen.spec import Where, parse_encoding, parse_layout

TILE_BYTES = 16 * 1024  # random tiles stay under this, and at most 64 elements a thread
DTYPES = ("i8", "f16", "bf16", "f32")


def _shape(rng: random.Random, rank: int, max_elems: int) -> tuple[int, ...]:
    """A power-of-two shape of ``rank`` dims, each at least 2, at most ``max_elems`` elements, at least 64."""
    top = max_elems.bit_length() - 1
    bits = [1] * rank
    for _ in range(rng.randint(max(6, rank), top) - rank):
        bits[rng.randrange(rank)] += 1
    return tuple(1 << b for b in bits)


def _order(rng: random.Random, rank: int) -> list[int]:
    order = list(range(rank))[::-1]
    if rng.random() < 0.4:
        rng.shuffle(order)
    return order


def _bijection(rng: random.Random, shape: tuple[int, ...]) -> list[list[int]]:
    """Offset bases of a random one-to-one offset map over ``shape``: the tensor's bits in a random order, each
    XORed with some before it (a triangular mix, so still invertible)."""
    units = [
        [(1 << b) if k == d else 0 for k in range(len(shape))] for d, s in enumerate(shape) for b in range(s.bit_length() - 1)
    ]
    if rng.random() < 0.5:
        rng.shuffle(units)  # else row-major first: a swizzle-like map
    cols: list[list[int]] = []
    for u in units:
        v = list(u)
        for c in cols:
            if rng.random() < 0.15:
                v = [a ^ b for a, b in zip(v, c, strict=True)]
        cols.append(v)
    return cols


def _draw_shared(rng: random.Random, family: str, warps: int, lanes: int, json_dir: Path) -> tuple[str, str, tuple]:
    """(S's spec, dtype, shape) of ``family``."""
    dtype = rng.choice(DTYPES)
    eb = to_dtype(dtype).bytes
    max_elems = min(TILE_BYTES // eb, 64 * warps * lanes)
    if family == "nvmma":
        swz, trans = rng.choice((0, 32, 64, 128)), rng.random() < 0.5
        contig = max(8, 8 * swz // (8 * eb)) << rng.randint(0, 1)
        other = max(8, min(1 << rng.randint(3, 7), max_elems // contig))
        shape = (contig, other) if trans else (other, contig)
        return f"nvmma:{swz}" + (",transposed=true" if trans else ""), dtype, shape
    if family == "amd_rotating_shared":
        shape = _shape(rng, 2, max_elems)
        vec, per, mx = rng.choice((1, 2, 4, 8)), rng.choice((1, 2, 4)), rng.choice((1, 2, 4, 8, 16))
        order = ", ".join(map(str, _order(rng, 2)))
        return f"#ttg.amd_rotating_shared<{{vec = {vec}, perPhase = {per}, maxPhase = {mx}, order = [{order}]}}>", dtype, shape
    rank = rng.choice((1, 2, 2, 2, 3))
    shape = _shape(rng, rank, max_elems)
    if family == "swizzled":
        vec, per, mx = rng.choice((1, 2, 4, 8, 16)), rng.choice((1, 2, 4)), rng.choice((1, 2, 4, 8))
        return f"swizzled:vec={vec},per_phase={per},max_phase={mx},order={'x'.join(map(str, _order(rng, rank)))}", dtype, shape
    if family == "padded_shared":
        n = 1
        for s in shape:
            n *= s
        intervals = sorted({1 << rng.randint(2, n.bit_length() - 1) for _ in range(rng.randint(1, 2))})
        pads = ", ".join(f"{i}:+{1 << rng.randint(0, 3)}" for i in intervals)
        order, dims = ", ".join(map(str, _order(rng, rank))), ", ".join(map(str, shape))
        return f"#ttg.padded_shared<[{pads}] {{order = [{order}], shape = [{dims}]}}>", dtype, shape
    bases = _bijection(rng, shape)
    if family == "shared_linear":
        return f"#ttg.shared_linear<{{offset = {json.dumps(bases).replace(' ', '')}}}, alignment = 16>", dtype, shape
    lay = LinearLayout.from_bases({"offset": bases, "block": []}, [(f"dim{i}", s) for i, s in enumerate(shape)])
    path = json_dir / f"offsets-{rng.getrandbits(32):08x}.json"
    path.write_text(json.dumps(lay.to_dict()))
    return f"@{path}", dtype, shape


def _draw_dist(rng: random.Random, shape, warps: int, target: str, dtype: str) -> tuple[str, LinearLayout]:
    """A real layout that fits (a third of the time, where one does), else one of llgen.randlayout's."""
    tgt = to_target(target)
    if rng.random() < 0.35:
        spec = rng.choice(("mfma", "blocked") if tgt.lanes == 64 else ("mma", "wgmma", "dot:0", "dot:1", "blocked"))
        try:
            return spec, parse_layout(spec, shape, warps, tgt.lanes, where=Where(dtype_bytes=to_dtype(dtype).bytes))
        except LlgenError:
            pass
    return "random", random_layout(rng, shape, warps, target, dtype)


def random_cases(n: int, seed: int, tries: int = 20) -> Iterator[EndpointCase]:
    """``n`` random pairs, drawn as they are taken: case i of family FAMILIES[i % 6], from its own seed (seed, i),
    so the same arguments give the same cases. A draw the planner refuses is drawn again (up to ``tries`` times,
    then case i is left out)."""
    with tempfile.TemporaryDirectory(prefix="llgen-endpoints-") as tmp:
        for i in range(n):
            family = FAMILIES[i % len(FAMILIES)]
            target = AMD_TARGET if family == "amd_rotating_shared" else TARGET
            lanes = to_target(target).lanes
            rng = random.Random(f"endpoint/{seed}/{i}")
            for _ in range(tries):
                warps = rng.choice((1, 2, 4, 8))
                spec, dtype, shape = _draw_shared(rng, family, warps, lanes, Path(tmp))
                try:
                    dist, d = _draw_dist(rng, shape, warps, target, dtype)
                    if spec.startswith("@"):
                        s = parse_layout(spec, shape, warps, lanes)
                    else:
                        s = parse_encoding(spec, shape, warps, lanes, where=Where(dtype_bytes=to_dtype(dtype).bytes))
                    case = planned_case(
                        f"random{i}/{family}/{dist}/{dtype}/{'x'.join(map(str, shape))}/w{warps}",
                        family,
                        "random",
                        Endpoints(
                            dist,
                            ("JSON " + json.dumps(s.to_dict()["bases"]["offset"])) if spec.startswith("@") else spec,
                            d,
                            s,
                        ),
                        dtype,
                        target,
                    )
                except LlgenError:
                    continue
                yield case
                break
