"""The shared-memory endpoint cases gpu-check runs (llgen.plan.endpoint): an EndpointCase is a store from a
distributed layout D into a shared layout S and a load back, both planned.

The fixed cases: every shared family against the distributed layouts kernels hand them (`real_cases`: the mma v2
accumulator, coalesced blocked tiles, dot operands, wgmma; rank-3 multi-buffers; AMD's rotating swizzle on gfx942),
the endpoint suite's plans (`endpoint_suite_cases`), and of those, what Nsight Compute measures (`ncu_cases`).
Random pairs are drawn in src/llgen/runtime/endpoint_random.py; src/llgen/runtime/endpoint_gpucheck.py runs them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from llgen.core.dtypes import dtype as to_dtype
from llgen.core.errors import LlgenError
from llgen.emit import emit
from llgen.plan.endpoint import plan_load, plan_store
from llgen.spec import Where, parse_encoding, parse_layout

TARGET = "sm_90"
AMD_TARGET = "gfx942"  # amd_rotating_shared is AMD's: planned for a 64-lane wave, run on CPU threads
FAMILIES = ("swizzled", "nvmma", "padded_shared", "shared_linear", "json_offsets", "amd_rotating_shared")

# every family against the layouts kernels hand it
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
NCU_DIST = DIST[:3]  # ncu measures each family against these (its time goes per kernel)
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
AMD = [
    ("blocked", "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>", "f16", (64, 64)),
    ("mfma", "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>", "f16", (64, 64)),
]


@dataclass(frozen=True)
class EndpointCase:
    label: str  # no spaces: the sanitizer worker's log lines are parsed by it
    family: str
    group: str  # "real", "random" or "suite" (the endpoint suite)
    dist: str  # D's spec, or "random" (llgen.randlayout)
    shared: str  # S's spec
    store: object  # EndpointPlan
    load: object

    @property
    def cpu(self) -> bool:
        return self.store.target.lang == "hip"


def _family_of(spec: str) -> str:
    """A real case's family, from its spec's kind."""
    kind = spec.removeprefix("#ttg.").split(":")[0].split("<")[0]
    return "swizzled" if kind == "swizzled_shared" else kind


@dataclass(frozen=True)
class Endpoints:
    """A case's D and S: their specs, as the case names them, and their layouts."""

    dist: str
    shared: str
    d: object
    s: object


def planned_case(label, family, group, ends: Endpoints, dtype, target) -> EndpointCase:
    return EndpointCase(
        label.replace(" ", ""),
        family,
        group,
        ends.dist,
        ends.shared,
        plan_store(ends.d, ends.s, dtype, target),
        plan_load(ends.s, ends.d, dtype, target),
    )


def _pair(dist: str, shared: str, dtype: str, shape, warps: int = 4, lanes: int = 32):
    w = to_dtype(dtype).bytes
    where = Where(dtype_bytes=w)
    return parse_layout(dist, shape, warps, lanes, where=where), parse_encoding(shared, shape, warps, lanes, where=where)


def _short(spec: str) -> str:
    """A spec without spaces or TTGIR punctuation, for labels."""
    return "".join(ch for ch in spec.replace("#ttg.", "") if ch.isalnum() or ch in ":=,x+-_")[:48]


def real_cases(dists=DIST) -> Iterator[EndpointCase]:
    """Every family of SHARED against ``dists`` (pairings the layouts do not allow are left out), the rank-3
    buffers, and the rotating AMD swizzle on gfx942, each planned as it is taken."""

    def label(dist, shared, dtype, shape):
        return f"real/{_short(dist)}/{_short(shared)}/{dtype}/{'x'.join(map(str, shape))}"

    for shared, dtype, shape in SHARED:
        for dist in dists:
            try:
                d, s = _pair(dist, shared, dtype, shape)
            except LlgenError:
                continue  # e.g. a dot operand of this dtype over this shape
            ends = Endpoints(dist, shared, d, s)
            yield planned_case(label(dist, shared, dtype, shape), _family_of(shared), "real", ends, dtype, TARGET)
    for dist, shared, dtype, shape in BUFFERS:
        d, s = _pair(dist, shared, dtype, shape)
        yield planned_case(label(dist, shared, dtype, shape), "swizzled", "real", Endpoints(dist, shared, d, s), dtype, TARGET)
    for dist, shared, dtype, shape in AMD:
        d, s = _pair(dist, shared, dtype, shape, 4, 64)
        yield planned_case(
            label(dist, shared, dtype, shape), "amd_rotating_shared", "real", Endpoints(dist, shared, d, s), dtype, AMD_TARGET
        )


def endpoint_suite_cases() -> tuple[list[EndpointCase], str]:
    """The endpoint suite's plans (`--suite endpoint`, src/llgen/cases/suite_endpoint.py: ``endpoint_suite()`` of
    EndpointSuiteCase(id, dtype, shape, warps, p, shared, q), a store from p and a load into q), and a line saying
    what ran."""
    from llgen.cases.suite_endpoint import endpoint_suite

    out = []
    for c in endpoint_suite():
        enc = c.encoding()
        out.append(
            EndpointCase(
                f"endpoint/{c.id}",
                _family_of(c.shared),
                "suite",
                "P -> S -> Q",
                c.shared,
                plan_store(c.p, enc, c.dtype, TARGET),
                plan_load(enc, c.q, c.dtype, TARGET),
            )
        )
    return out, f"The endpoint suite: {len(out)} cases (store from P, load into Q)."


def not_emittable(case: EndpointCase) -> str | None:
    """Why llgen will not emit this case's check kernels (one sentence, e.g. S over the static shared-memory
    limit), or None."""
    try:
        for p in (case.store, case.load):
            emit(p, "kernel", "probe")
    except LlgenError as e:
        return str(e)
    return None


def ncu_cases() -> tuple[list[EndpointCase], list[str]]:
    """What ncu measures: each family of SHARED against NCU_DIST, the rank-3 buffers and the endpoint suite, GPU cases
    whose kernels llgen emits; and a line for each case left out."""
    cases, left = [], []
    for c in [*real_cases(NCU_DIST), *endpoint_suite_cases()[0]]:
        why = None if not c.cpu else "a gfx942 case (no ncu on CPU threads)"
        why = why or not_emittable(c)
        if why:
            left.append(f"{c.label}: {why}")
        else:
            cases.append(c)
    return cases, left
