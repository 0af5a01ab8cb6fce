"""One case of the endpoint suite (`--suite endpoint`, llgen.cases.suite_endpoint) on the GPU: llgen's LOOP through the
fixed shared layout S by its pick and, where the planner has them, forced direct, two-step and lane-select plans,
then Triton's Gluon loop over the same P, S and Q (llgen.runtime.gluon_endpoint); each checked against NumPy, then timed
as the conversion bench times LOOP: per-SM throughput (32 CTAs an SM) and one-CTA latency, llgen's pick and
Triton's again in alternating rounds. What cannot be planned, compiled or run is a row that says why."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llgen.core.errors import LlgenError, error_line
from llgen.core.vocab import ENDPOINT_FORMS
from llgen.plan.endpoint import plan_load, plan_store
from llgen.runtime.bench.baseline import triton_row
from llgen.runtime.bench.buffers import Measurement
from llgen.runtime.bench.loopcheck import check_loop
from llgen.runtime.bench.rules import case_failed, case_row, short
from llgen.runtime.bench.timing import alternate, loop_times

PICK = "llgen"
_FORM_PREFIX = {"direct": "", "two_step": "2-step ", "select": "select "}


@dataclass(frozen=True)
class EndpointVariant:
    """One llgen variant of the endpoint LOOP: its four endpoint plans, each a store or a load through S."""

    name: str
    plans: tuple  # (store P, load Q, store Q, load P)

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(p.form for p in self.plans)

    @property
    def path(self) -> str:
        """Each op's form and instruction, as the report names it."""
        return ", ".join(f"{_FORM_PREFIX[p.form]}{p.side.op}" for p in self.plans)


def _op(case, target: str, i: int, form: str | None):
    """Op i of the loop (store P, load Q, store Q, load P) through the case's S, of ``form`` (None: the pick)."""
    enc, dist = case.encoding(), (case.p, case.q, case.q, case.p)[i]
    if i % 2 == 0:
        return plan_store(dist, enc, case.dtype, target, form)
    return plan_load(enc, dist, case.dtype, target, form)


def endpoint_variants(case, target: str = "sm_90") -> tuple[list[EndpointVariant], dict]:
    """(variants, skipped): llgen's pick, then all four ops forced direct, then all four of each other form (two-step,
    lane select) where the planner has one (direct where it has none); a forced variant that repeats an earlier one is
    skipped, saying which."""
    pick = EndpointVariant(PICK, tuple(_op(case, target, i, None) for i in range(4)))
    out, skipped = [pick], {}
    for form in ENDPOINT_FORMS:  # the forced variants
        plans = []
        for i, kept in enumerate(pick.plans):
            if kept.form == form:
                plans.append(kept)
                continue
            try:
                plans.append(_op(case, target, i, form))
            except LlgenError:  # no plan of this form for this op: its direct one
                plans.append(_op(case, target, i, "direct"))
        v = EndpointVariant(form, tuple(plans))
        same = next((o.name for o in out if o.forms == v.forms), None)
        if form != "direct" and form not in v.forms:
            skipped[form] = f"the planner has no {form.replace('_', '-')} plan for any of the four ops"
        elif same is not None:
            skipped[form] = f"the same kernels as {same}"
        else:
            out.append(v)
    return out, skipped


def floor_wavefronts(v: EndpointVariant) -> int:
    """The data-volume floor of one LOOP step (two stores, two loads): the tile through S at 128 bytes a wavefront,
    loads counting the replicas their layout holds (EndpointPlan.floor)."""
    return sum(p.floor for p in v.plans)


def run_endpoint_case(case, target: str, rep: int, with_triton: bool, log) -> dict:
    """Every variant of one endpoint-suite case, then Triton's, as a report row (see endpoint_suite_report.py)."""
    res = case_row(case, shared=case.shared)
    try:
        vs, res["skipped"] = endpoint_variants(case, target)
        res["smem_bytes"] = vs[0].plans[0].smem_bytes
        res["floor_wavefronts"] = floor_wavefronts(vs[0])
    except Exception as e:  # noqa: BLE001 - the case is a row that says why
        case_failed(res, e, log)
        return res
    from llgen.runtime.bench.device import free_device_memory

    try:
        m = Measurement.allocate(case, {"loop"}, rep)
        measure_variants(m, vs, res, log)
        if with_triton:
            res["variants"]["triton"] = triton_row(m, log, triton_endpoint_case)
        if PICK in m.launches and "triton" in m.launches:
            try:
                alternate(res["variants"], m.launches, m)
            except Exception as e:  # noqa: BLE001
                res["variants"]["triton"].setdefault("error", f"alternating rounds: {error_line(e)}")
    except Exception as e:  # noqa: BLE001 - e.g. out of device memory for the case's buffers
        case_failed(res, e, log)
    finally:
        free_device_memory()
    return res


def measure_variants(m: Measurement, vs: list[EndpointVariant], res: dict, log) -> None:
    """Emit, compile (NVRTC, on threads), check and time each variant's LOOP into res["variants"]."""
    from llgen.emit.endpoint_bench import emit_endpoint_loop
    from llgen.runtime.bench.device import compile_all

    loops, sources = {}, {}
    for v in vs:
        try:
            loops[v.name] = emit_endpoint_loop(v.plans, "s")
            sources[v.name] = loops[v.name].source
        except Exception as e:  # noqa: BLE001
            res["variants"][v.name] = {"path": v.path, "error": f"emit: {error_line(e)}"}
    log(f"  {m.case.id}: compile {len(sources)} variant(s)")
    modules = compile_all(sources, loop="s_loop")
    for v in vs:
        if v.name not in modules:
            continue
        r = {
            "path": v.path,
            "forms": list(v.forms),
            "ops": [f"{p.path} {p.side.op}: {p.wavefronts} wavefronts (floor {p.floor})" for p in v.plans],
            "smem": v.plans[0].smem_bytes,
            "smem_wavefronts_pred": sum(p.wavefronts for p in v.plans),
            "floor_reasons": list(dict.fromkeys(p.floor_reason for p in v.plans if p.floor_reason)),
            "cost_pred": sum(p.cost for p in v.plans),
            # the step's wavefronts, shuffles and selects, each on its own pipe: the stated floor of a pick with an
            # in-warp step
            "pipe_floor_pred": max(
                sum(p.wavefronts for p in v.plans),
                *(sum(p.convert_cycles for p in v.plans if p.form == form) for form in ("two_step", "select")),
            ),
        }
        try:
            mod = modules[v.name]
            if isinstance(mod, Exception):
                raise mod
            measure_loop(m, v.name, loops[v.name], mod, r)
        except Exception as e:  # noqa: BLE001 - the variant is a row that says why; the run goes on
            r["error"] = error_line(e)
        res["variants"][v.name] = r
        log(f"  {m.case.id} / {v.name}: {short(r)}")


def measure_loop(m: Measurement, name: str, loop, module, r: dict) -> None:
    """Check one LOOP kernel against NumPy, then its throughput and latency forms into r; its launcher joins
    m.launches."""
    fn = module.get_function(loop.kernel)
    if loop.launch_smem:
        fn.max_dynamic_shared_size_bytes = loop.launch_smem
    r.update(regs=fn.num_regs, local_bytes=fn.local_size_bytes)

    def run(k, g, f=fn):
        f((g,), (loop.threads,), (m.x, m.y, np.int32(k)), shared_mem=loop.launch_smem)

    r.update(check_loop(lambda k: run(k, m.grid), m.y, m.loop_ref, m.case.shape))
    loop_times(r, run, m.sms, m.rep, latency=True)
    m.launches[name] = run


def triton_endpoint_case(case):
    """Triton's Gluon loop through the same S (llgen.runtime.gluon_endpoint); that module missing is one sentence."""
    try:
        from llgen.runtime.gluon_endpoint import TritonEndpointCase  # imports Triton: only where Triton runs
    except ImportError as e:
        raise RuntimeError(f"not run: Triton's side of the endpoint suite cannot be imported ({e})") from None
    return TritonEndpointCase(case)
