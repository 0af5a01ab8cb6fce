"""gpu-check's shared-memory endpoints (local_store / local_load, llgen.plan.endpoint): which cases it runs and how.

The cases: every shared family against the distributed layouts kernels hand them (`real_cases`: the mma v2
accumulator, coalesced blocked tiles, dot operands, wgmma; rank-3 multi-buffers; AMD's rotating swizzle on gfx942),
random pairs that cycle through the families (`random_cases`: swizzled, nvmma 0/32/64/128 plain and transposed with
8/16/32-bit elements, padded_shared, shared_linear, JSON offset maps, amd_rotating_shared; ranks 1-3; against
llgen.randlayout's layouts or a real one that fits), and the smem suite's endpoint plans where that suite exists.
Each case is a store, a load and a round trip through the same S, checked byte for byte and slot for slot by
llgen.runtime.endpointcheck. gfx942 cases run on CPU threads (runtime/host.py), the rest on the GPU.
"""

from __future__ import annotations

import json
import pickle
import random
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from llgen.dtypes import dtype as to_dtype
from llgen.emit.endpoint import emit_endpoint
from llgen.errors import LlgenError, error_line
from llgen.layout import LinearLayout
from llgen.plan.endpoint import plan_load, plan_store
from llgen.randlayout import random_layout
from llgen.spec import parse_encoding, parse_layout
from llgen.target import target as to_target

from .check import _ahead
from .compile import CompileFailed
from .endpointcheck import compile_endpoints, round_trip, run_endpoint

TARGET = "sm_90"
AMD_TARGET = "gfx942"  # amd_rotating_shared is AMD's: planned for a 64-lane wave, run on CPU threads
FAMILIES = ("swizzled", "nvmma", "padded_shared", "shared_linear", "json_offsets", "amd_rotating_shared")
BATCH = 16  # cases (32 plans) to one compile
TILE_BYTES = 16 * 1024  # random tiles stay under this, and at most 64 elements a thread
DTYPES = ("i8", "f16", "bf16", "f32")

# session 11's probe: every family against the layouts kernels hand it
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
    group: str  # "real", "random" or "smem"
    dist: str  # D's spec, or "random" (llgen.randlayout)
    shared: str  # S's spec
    store: object  # EndpointPlan
    load: object

    @property
    def cpu(self) -> bool:
        return self.store.target.lang == "hip"


@dataclass
class EndpointResult:
    label: str
    family: str
    group: str
    target: str
    dtype: str
    store_op: str
    load_op: str
    store_wavefronts: int
    load_wavefronts: int
    runs: int = 0
    mismatches: list[str] = field(default_factory=list)
    error: str | None = None  # a compile or launch failure: a failure
    not_run: str | None = None  # what llgen itself refuses to emit here (one sentence): listed, not a failure

    @property
    def ok(self) -> bool:
        return not self.mismatches and self.error is None

    def to_json(self) -> dict:
        return {**self.__dict__, "ok": self.ok}


# ------------------------------------------------------------------------------------------- drawing
def _family_of(spec: str) -> str:
    """A real case's family, from its spec's kind."""
    kind = spec.removeprefix("#ttg.").split(":")[0].split("<")[0]
    return "swizzled" if kind == "swizzled_shared" else kind


def _case(label, family, group, dist_spec, shared_spec, d, s, dtype, target) -> EndpointCase:
    return EndpointCase(
        label.replace(" ", ""),
        family,
        group,
        dist_spec,
        shared_spec,
        plan_store(d, s, dtype, target),
        plan_load(s, d, dtype, target),
    )


def _pair(dist: str, shared: str, dtype: str, shape, warps: int = 4, lanes: int = 32):
    w = to_dtype(dtype).bytes
    return parse_layout(dist, shape, warps, lanes, w), parse_encoding(shared, shape, warps, lanes, w)


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
            yield _case(label(dist, shared, dtype, shape), _family_of(shared), "real", dist, shared, d, s, dtype, TARGET)
    for dist, shared, dtype, shape in BUFFERS:
        d, s = _pair(dist, shared, dtype, shape)
        yield _case(label(dist, shared, dtype, shape), "swizzled", "real", dist, shared, d, s, dtype, TARGET)
    for dist, shared, dtype, shape in AMD:
        d, s = _pair(dist, shared, dtype, shape, 4, 64)
        yield _case(label(dist, shared, dtype, shape), "amd_rotating_shared", "real", dist, shared, d, s, dtype, AMD_TARGET)


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
            return spec, parse_layout(spec, shape, warps, tgt.lanes, to_dtype(dtype).bytes)
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
                        s = parse_encoding(spec, shape, warps, lanes, to_dtype(dtype).bytes)
                    case = _case(
                        f"random{i}/{family}/{dist}/{dtype}/{'x'.join(map(str, shape))}/w{warps}",
                        family,
                        "random",
                        dist,
                        ("JSON " + json.dumps(s.to_dict()["bases"]["offset"])) if spec.startswith("@") else spec,
                        d,
                        s,
                        dtype,
                        target,
                    )
                except LlgenError:
                    continue
                yield case
                break


def smem_cases() -> tuple[list[EndpointCase], str]:
    """The smem suite's endpoint plans (codegen/suite_smem.py: ``smem()`` of SmemCase(id, dtype, shape, warps, p,
    shared, q), a store from p and a load into q), and a line saying what ran."""
    from llgen.suite_smem import smem

    out = []
    for c in smem():
        enc = c.encoding()
        out.append(
            EndpointCase(
                f"smem/{c.id}",
                _family_of(c.shared),
                "smem",
                "P -> S -> Q",
                c.shared,
                plan_store(c.p, enc, c.dtype, TARGET),
                plan_load(enc, c.q, c.dtype, TARGET),
            )
        )
    return out, f"The smem suite: {len(out)} cases (store from P, load into Q)."


def not_emittable(case: EndpointCase) -> str | None:
    """Why llgen will not emit this case's check kernels (one sentence, e.g. S over the static shared-memory
    limit), or None."""
    try:
        for p in (case.store, case.load):
            emit_endpoint(p, "kernel", "probe")
    except LlgenError as e:
        return str(e)
    return None


def all_cases(n_random: int, seed: int, notes: list[str]) -> Iterator[EndpointCase]:
    """The real cases, the smem suite's and ``n_random`` random pairs, drawn as they are taken; the smem suite's
    line goes to ``notes``."""
    yield from real_cases()
    smem, note = smem_cases()
    notes.append(note)
    yield from smem
    yield from random_cases(n_random, seed)


def ncu_cases() -> tuple[list[EndpointCase], list[str]]:
    """What ncu measures: each family of SHARED against NCU_DIST, the rank-3 buffers and the smem suite, GPU cases
    whose kernels llgen emits; and a line for each case left out."""
    cases, left = [], []
    for c in [*real_cases(NCU_DIST), *smem_cases()[0]]:
        why = None if not c.cpu else "a gfx942 case (no ncu on CPU threads)"
        why = why or not_emittable(c)
        if why:
            left.append(f"{c.label}: {why}")
        else:
            cases.append(c)
    return cases, left


def kernel_items(cases: list[EndpointCase], prefix: str = "ep") -> list[tuple[str, object]]:
    """(kernel name, plan) of every case's store and load: ``{prefix}{i}s`` and ``{prefix}{i}l``."""
    return [(f"{prefix}{i}{k}", p) for i, c in enumerate(cases) for k, p in (("s", c.store), ("l", c.load))]


def save_items(items: list[tuple[str, object]], path: Path) -> str:
    """Write ``items`` (kernel name, plan) to ``path`` for runtime.ncu's endpoint worker, which would otherwise plan
    them all again; the worker's source that reads them back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(items))
    return f"llgen.runtime.endpoint_gpucheck:load_items {path}"


def load_items(path: str) -> list[tuple[str, object]]:
    return pickle.loads(Path(path).read_bytes())  # only the file save_items wrote in this run


def sample(cases: list, n: int) -> list:
    """``n`` of ``cases``, evenly spaced (so every group and family is reached), in order."""
    if n >= len(cases):
        return list(cases)
    return [cases[i * len(cases) // n] for i in range(n)]


# --------------------------------------------------------------------------------------------- running
def _result(case: EndpointCase) -> EndpointResult:
    st, ld = case.store, case.load
    return EndpointResult(
        case.label,
        case.family,
        case.group,
        st.target.name,
        st.dtype.name,
        f"{st.side.op} x{st.side.width}" + (" +" + st.convert.path if st.convert is not None else ""),
        f"{ld.side.op} x{ld.side.width}" + (" +" + ld.convert.path if ld.convert is not None else ""),
        st.wavefronts,
        ld.wavefronts,
    )


def _compile(items, cpu: bool):
    """(module, None) or (None, (kind, sentence)): kind "not_run" where llgen refuses to emit, "error" otherwise."""
    try:
        return compile_endpoints(items, cpu), None
    except CompileFailed as e:
        return None, ("error", f"compile failed: {str(e).strip()[:400]}")
    except LlgenError as e:
        return None, ("not_run", str(e))


def _run_case(module, case: EndpointCase, names: tuple[str, str], runs: int, rng, res: EndpointResult) -> None:
    try:
        for _ in range(runs):
            bad = run_endpoint(module, case.store, names[0], rng) + run_endpoint(module, case.load, names[1], rng)
            bad += round_trip(module, (names[0], case.store), (names[1], case.load), rng)
            res.mismatches += bad
            res.runs += 1
    except Exception as e:  # noqa: BLE001 - a launch error is this case's result, not the run's end
        res.error = f"launch failed: {error_line(e)}"


def _batches(cases: Iterable[EndpointCase], out_of_time) -> Iterator[tuple[list[EndpointCase], bool]]:
    """(cases, on CPU threads): the GPU cases BATCH at a time as they are drawn, then the CPU ones; nothing more is
    drawn or given once ``out_of_time()``."""
    gpu, cpu = [], []
    for c in cases:
        if out_of_time():
            return
        (cpu if c.cpu else gpu).append(c)
        if len(gpu) == BATCH:
            yield gpu, False
            gpu = []
    if gpu and not out_of_time():
        yield gpu, False
    for b in range(0, len(cpu), BATCH):
        if out_of_time():
            return
        yield cpu[b : b + BATCH], True


def run_cases(
    cases: Iterable[EndpointCase], *, runs: int, seed: int, on_result, out_of_time=lambda: False, compile_workers: int = 4
) -> list[EndpointResult]:
    """Store, load and round trip of every case, ``runs`` times each on fresh input, BATCH cases to a compile,
    ``compile_workers`` batches compiling ahead on threads while cases are drawn and run (a batch that fails to
    compile is compiled again case by case, so one bad case costs only itself); stops drawing once
    ``out_of_time()``."""
    rng = np.random.default_rng(seed)
    results = []

    def build(arg):
        batch, cpu = arg
        return batch, cpu, _compile(kernel_items(batch), cpu)[0]

    for batch, cpu, module in _ahead(build, _batches(cases, out_of_time), compile_workers):
        for i, case in enumerate(batch):
            res = _result(case)
            if module is not None:
                mod, fail, names = module, None, (f"ep{i}s", f"ep{i}l")
            else:
                (mod, fail), names = _compile(kernel_items([case]), cpu), ("ep0s", "ep0l")
            if fail:
                setattr(res, fail[0], fail[1])
            else:
                _run_case(mod, case, names, runs, rng, res)
            results.append(res)
            on_result(res)
    return results


# --------------------------------------------------------------------------------------------- report
def counts(results: list[EndpointResult]) -> dict:
    return {
        "cases": len(results),
        "ok": sum(r.ok and r.not_run is None for r in results),
        "failed": sum(not r.ok for r in results),
        "not_run": sum(r.not_run is not None for r in results),
        "mismatches": sum(len(r.mismatches) for r in results),
        "errors": sum(r.error is not None for r in results),
        "on_cpu": sum(r.target == AMD_TARGET for r in results),
    }


def by_family(results: list[EndpointResult]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in results:
        f = out.setdefault(r.family, {"cases": 0, "failed": 0, "not_run": 0})
        f["cases"] += 1
        f["failed"] += not r.ok
        f["not_run"] += r.not_run is not None
    return out


def section(results: list[EndpointResult], notes: list[str], stopped: str = "") -> str:
    """The report's endpoints part: counts, a line per family, every failure and what was not run."""
    if not results and not notes:
        return "Not run."
    c = counts(results)
    lines = [
        f"{c['cases']} cases (each a store, a load and a round trip through the same S; {c['on_cpu']} gfx942 cases on "
        f"CPU threads): {c['ok']} exact, {c['failed']} failed ({c['mismatches']} mismatches, {c['errors']} errors), "
        f"{c['not_run']} not run." + (f" {stopped}" if stopped else ""),
        "",
        *notes,
        "",
        "```",
        f"{'family':22} {'cases':>6} {'failed':>6} {'not run':>7}",
        *(f"{k:22} {v['cases']:>6} {v['failed']:>6} {v['not_run']:>7}" for k, v in sorted(by_family(results).items())),
        "```",
    ]
    bad = [r for r in results if not r.ok][:20]
    if bad:
        lines += ["", "Failures:", ""] + [f"- {r.label}: {r.error or '; '.join(r.mismatches[:2])}" for r in bad]
    skipped = [r for r in results if r.not_run][:20]
    if skipped:
        lines += ["", "Not run:", ""] + [f"- {r.label}: {r.not_run}" for r in skipped]
    return "\n".join(lines)


def ncu_section(rows: list[dict]) -> str:
    """Endpoint kernels under ncu: each check kernel's shared counters next to the plan's wavefronts plus the
    byte loops that fill S and copy it out (runtime.ncu.endpoint_prediction)."""
    if not rows:
        return "Not run."

    def f(v):
        return "-" if v is None else f"{v:g}"

    out = [
        "A store kernel's st counter is the plan's stores plus the 0xa5 fill, its ld counter the copy-out; a load "
        "kernel's st counter is the fill from global memory, its ld counter the plan's loads. `frame` is the byte "
        "loops' wavefronts (one a warp instruction).",
        "",
        "```",
        f"{'kernel':44} {'access':22} {'plan':>5} {'frame':>5} {'st pred':>7} {'st meas':>7} {'ld pred':>7} {'ld meas':>7}  verdict",
    ]
    for r in rows:
        out.append(
            f"{r['kernel'][:44]:44} {r['access'][:22]:22} {r['plan_wf']:>5} {r['frame_wf']:>5} {r['pred_st_wf']:>7} "
            f"{f(r['st_wf']):>7} {r['pred_ld_wf']:>7} {f(r['ld_wf']):>7}  {r['verdict']}"
            + (f" ({r['note']})" if r.get("note") else "")
        )
    out.append("```")
    return "\n".join(out)
