"""gpu-check's shared-memory endpoints part (stores and loads, llgen.plan.endpoint): how its cases run.

The cases are the fixed ones (src/llgen/runtime/endpoint_cases.py: every shared family against real layouts, the
endpoint suite) and random pairs (src/llgen/runtime/endpoint_random.py). Each case is a store, a load and a round
trip through the same S, checked byte for byte and slot for slot by llgen.runtime.endpointcheck, BATCH cases to a
compile. gfx942 cases run on CPU threads (src/llgen/runtime/host.py), the rest on the GPU. Nsight Compute gets the
same kernels through save_items; the report's text is src/llgen/runtime/endpoint_report.py's.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from llgen.core.errors import LlgenError, error_line
from llgen.runtime.check import _ahead
from llgen.runtime.compile import CompileFailed
from llgen.runtime.endpoint_cases import EndpointCase, endpoint_suite_cases, real_cases
from llgen.runtime.endpoint_random import random_cases
from llgen.runtime.endpointcheck import compile_endpoints, round_trip, run_endpoint

BATCH = 16  # cases (32 plans) to one compile


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


def all_cases(n_random: int, seed: int, notes: list[str]) -> Iterator[EndpointCase]:
    """The real cases, the endpoint suite's and ``n_random`` random pairs, drawn as they are taken; the endpoint
    suite's line goes to ``notes``."""
    yield from real_cases()
    suite, note = endpoint_suite_cases()
    notes.append(note)
    yield from suite
    yield from random_cases(n_random, seed)


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
