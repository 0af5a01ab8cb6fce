"""LOOP and STREAM (docs/design.md §10) of every variant of one case: build their bench sources, check each LOOP
and STREAM kernel against NumPy, time them (LOOP in both forms, each on its own build: many CTAs an SM for
throughput, one for latency), and time llgen's picks against Triton's in alternating rounds: the throughput pick's
LOOP, the latency pick's one-CTA LOOP."""

from __future__ import annotations

import functools

import numpy as np

from llgen.core.errors import error_line
from llgen.emit import emit_bench, plan_scratch_bytes
from llgen.plan.benchshape import bench_shape
from llgen.plan.explain import MAX_REGISTERS, registers
from llgen.plan.variants import LATENCY_PICK, PICK, Variant, plan_cost, plan_latency
from llgen.runtime.bench.baseline import triton_row
from llgen.runtime.bench.buffers import Measurement
from llgen.runtime.bench.device import compile_all
from llgen.runtime.bench.loopcheck import check_loop
from llgen.runtime.bench.rules import LOOP_ROUNDS, MAX_SOURCE, STREAM_ROUNDS, STREAM_UNROLLS, fastest_free, short
from llgen.runtime.bench.timing import alternate, fastest_unroll, loop_times, rotating_rounds, stream_grid
from llgen.runtime.reference import raw_dtype


def run_variants(m: Measurement, vs: list[Variant], res: dict, with_triton: bool, log) -> None:
    """Every variant of ``vs`` (then Triton's, with ``with_triton``) into res["variants"]; what is not run goes
    under res["skipped"] with why."""
    case = m.case
    log(f"  {case.id}: compile {len(vs)} variant(s)")
    sources = {}
    for v in vs:
        peak = max(registers(v.fwd), registers(v.bwd))
        if peak > MAX_REGISTERS and not v.is_pick:
            res["skipped"][v.name] = (
                f"not run: its plans hold {peak} registers a thread at their peak, over the {MAX_REGISTERS} a thread has, "
                f"and NVRTC takes minutes over kernels that spill ({_model(v, vs[0])})"
            )
            continue
        try:
            src = emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd))
        except Exception as e:  # noqa: BLE001
            res["variants"][v.name] = {"path": f"{v.fwd.path}/{v.bwd.path}", "error": f"emit: {error_line(e)}"}
            continue
        if len(src) > MAX_SOURCE and not v.is_pick:
            res["skipped"][v.name] = (
                f"not run: its kernels' source is {len(src) // 1000} KB, over the {MAX_SOURCE // 1000} KB NVRTC compiles "
                f"in the run's time ({_model(v, vs[0])})"
            )
            continue
        sources[v.name] = src
        # its STREAM and copy at the other tiles a step, unless its kernels spill anyway: NVRTC's minutes once is enough
        if v.name == PICK and "stream" in m.measures and peak <= MAX_REGISTERS:
            for u in STREAM_UNROLLS:
                if u != bench_shape(v.fwd, v.bwd).unroll:
                    sources[(v.name, u)] = emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd, u))
    one_cta: set = set()
    # the one-CTA latency is timed on the LOOP built as a lone CTA would be: both builds in the same batch
    lone = dict.fromkeys(v.name for v in vs if v.name in sources) if "loop" in m.measures else {}
    modules = compile_all(sources, one_cta, lone=lone)
    for v in vs:
        if v.name not in modules:
            continue
        r = {
            "path": f"{v.fwd.path}/{v.bwd.path}",
            "kinds": list(v.kinds),
            "same_as": v.same_as,
            "smem": max(plan_scratch_bytes(v.fwd), plan_scratch_bytes(v.bwd)),
            "wavefronts_pred": _wavefronts(v.fwd, v.bwd),
            "ideal_clocks": (_ideal_clocks(v.fwd) + _ideal_clocks(v.bwd)) / 2,
            "cost_pred": plan_cost(v.fwd) + plan_cost(v.bwd),
            "lat_pred": plan_latency(v.fwd) + plan_latency(v.bwd),
            "loop_one_cta": v.name in one_cta,
        }
        try:
            mod = modules[v.name]
            if isinstance(mod, Exception):
                raise mod
            by_unroll = {u: modules[(v.name, u)] for u in STREAM_UNROLLS if (v.name, u) in modules}
            by_unroll[bench_shape(v.fwd, v.bwd).unroll] = mod
            measure_variant(m, v, r, by_unroll, lone.get(v.name))
        except Exception as e:  # noqa: BLE001 - the variant is a row that says why; the run goes on
            r["error"] = error_line(e)
        res["variants"][v.name] = r
        log(f"  {case.id} / {v.name}: {short(r)}")
    if with_triton:
        res["variants"]["triton"] = triton_row(m, log)
    latency_pick = next((v.name for v in vs if LATENCY_PICK in (v.name, *v.same_as)), None)
    for pick, one_cta, key in ((PICK, False, "loop_per_sm_ns"), (latency_pick, True, "loop_lat_ns")):
        if pick not in m.launches or "triton" not in m.launches:
            continue
        try:
            launches = m.launches | m.lat_launches if one_cta else m.launches
            alternate(res["variants"], launches, m, (pick, "triton"), one_cta)
            log(
                f"  {case.id}: {pick} vs triton, {LOOP_ROUNDS} alternating rounds{' of one CTA' if one_cta else ''}: "
                + ", ".join(f"{n} {res['variants'][n][key]:.2f} ns" for n in (pick, "triton"))
            )
        except Exception as e:  # noqa: BLE001
            res["variants"]["triton"].setdefault("error", f"alternating rounds: {error_line(e)}")
    free = fastest_free(res["variants"])
    if free and free in m.launches | m.lat_launches and "triton" in m.launches:  # the free-pairing target's pair, alternated too
        try:
            alternate(res["variants"], m.launches | m.lat_launches, m, (free, "triton"), True, "free")
            log(f"  {case.id}: {free} vs triton, {LOOP_ROUNDS} alternating rounds of one CTA")
        except Exception as e:  # noqa: BLE001
            res["variants"]["triton"].setdefault("error", f"alternating rounds: {error_line(e)}")


def measure_variant(m: Measurement, v: Variant, r: dict, by_unroll: dict, alone=None) -> None:
    """LOOP and STREAM of one variant into r; STREAM and copy of each module of ``by_unroll`` (tiles a step ->
    module), keeping the tiles a step whose STREAM is fastest (stream_times). ``alone``: the module built for one CTA
    (compile_all's ``lone``), whose LOOP the one-CTA latency is timed on; r names the build of each LOOP number
    (loop_build, lat_build) and the registers and local memory of each (regs, local_bytes; lat_regs,
    lat_local_bytes)."""
    loop = by_unroll[bench_shape(v.fwd, v.bwd).unroll].get_function("b_loop")
    smem = bench_shape(v.fwd, v.bwd).loop.bytes  # LOOP's scratch is dynamic shared memory
    loop.max_dynamic_shared_size_bytes = smem
    r.update(regs=loop.num_regs, local_bytes=loop.local_size_bytes)

    def run(k, g, f=loop, smem=smem):
        f((g,), (m.threads,), (m.x, m.y, np.int32(k)), shared_mem=smem)

    r.update(check_loop(lambda k: run(k, m.grid), m.y, m.loop_ref, m.case.shape))
    if "loop" in m.measures:  # both forms for every variant: each objective's pick is held to the best of them
        own = "one_cta" if r.get("loop_one_cta") else "throughput"  # the throughput build is one CTA's where it spilled
        lat_run, lat = run, loop
        if alone is not None and alone is not by_unroll[bench_shape(v.fwd, v.bwd).unroll]:
            lat = alone.get_function("b_loop")
            lat.max_dynamic_shared_size_bytes = smem
            lat_run = functools.partial(run, f=lat)
            wrong = check_loop(lambda k: lat_run(k, m.grid), m.y, m.loop_ref, m.case.shape)
            if not wrong["loop_correct"]:
                r.update(wrong, loop_wrong_build="one_cta")
        r.update(
            loop_build=own,
            lat_build="one_cta" if lat is not loop else own,
            lat_regs=lat.num_regs,
            lat_local_bytes=lat.local_size_bytes,
        )
        loop_times(r, run, m.sms, m.rep, lat_run=lat_run)
        m.launches[v.name] = run
        m.lat_launches[v.name] = lat_run
    if "stream" in m.measures:
        stream_times(m, v, r, by_unroll)


def stream_times(m: Measurement, v: Variant, r: dict, by_unroll: dict) -> None:
    """STREAM and copy of each tiles-a-step module (checked against the input), timed in rotating rounds; r gets
    those of the fastest STREAM whose kernels keep no stack (any, where every one does), each one under
    "stream_by_unroll"."""
    import cupy as cp

    shape = bench_shape(v.fwd, v.bwd)
    xs, ys = m.xs, m.ys
    block = m.threads * shape.groups
    grid = min(m.nstream, stream_grid(m.sms, block))
    ss = shape.stream_smem
    args = (xs, ys, np.int32(m.nstream), raw_dtype(m.case.dtype).type(0))
    fns, stack, correct = {}, {}, {}
    for u, mod in sorted(by_unroll.items()):
        if isinstance(mod, Exception):
            continue
        stream, copy = mod.get_function("b_stream"), mod.get_function("b_copy")
        stream.max_dynamic_shared_size_bytes = ss
        ys[:] = 0
        stream((grid,), (block,), args, shared_mem=ss)
        correct[u] = bool((ys == xs).all())
        stack[u] = max(stream.local_size_bytes, copy.local_size_bytes)
        fns[f"stream{u}"] = lambda f=stream: f((grid,), (block,), args, shared_mem=ss)
        fns[f"copy{u}"] = lambda f=copy: f((grid,), (block,), args)
    if v.name == PICK:  # the roofline of our copy: cudaMemcpy of the same bytes, timed between its rounds
        fns["d2d"] = lambda: cp.cuda.runtime.memcpyAsync(ys.data.ptr, xs.data.ptr, xs.nbytes, 3, 0)
    t = rotating_rounds(fns, STREAM_ROUNDS if v.name == PICK else 1, m.rep)
    u = fastest_unroll({k: t[f"stream{k}"] for k in stack}, stack)
    r.update(
        stream_ms=t[f"stream{u}"],
        copy_ms=t[f"copy{u}"],
        stream_ratio=t[f"stream{u}"] / t[f"copy{u}"],
        stream_correct=all(correct.values()),
        copy_GBps=2 * xs.nbytes / t[f"copy{u}"] / 1e6,
        stream_groups=shape.groups,
        stream_smem=ss,
        stream_unroll=u,
    )
    if len(stack) > 1:
        r["stream_by_unroll"] = {
            str(k): {"stream_ms": t[f"stream{k}"], "copy_ms": t[f"copy{k}"], "stack": stack[k]} for k in sorted(stack)
        }
    if "d2d" in t:
        r.update(d2d_ms=t["d2d"], copy_vs_d2d=t["d2d"] / t[f"copy{u}"])


def _model(v: Variant, pick: Variant) -> str:
    """What the models predict for a variant that is not run, next to the throughput pick."""
    return (
        f"the model: {plan_cost(v.fwd) + plan_cost(v.bwd):.0f} cycles a round trip, one CTA "
        f"{plan_latency(v.fwd) + plan_latency(v.bwd):.0f}; the pick {plan_cost(pick.fwd) + plan_cost(pick.bwd):.0f}, "
        f"{plan_latency(pick.fwd) + plan_latency(pick.bwd):.0f}"
    )


def _ideal_clocks(plan) -> float:
    """Clocks of one SM for one conversion at the hardware's limit: the data-volume floor of
    shared-memory wavefronts, or one warp-wide shuffle per clock; 0 when no data moves."""
    if plan.path == "shared":
        return plan.detail.floor_wavefronts
    if plan.path == "shuffle":
        return plan.detail.shuffles * plan.warps
    return 0.0


def _wavefronts(fwd, bwd) -> dict:
    """The planner's shared-memory wavefronts of each direction that goes through shared memory."""
    out = {}
    for tag, p in (("fwd", fwd), ("bwd", bwd)):
        if p.path == "shared":
            d = p.detail
            out[tag] = {"st": d.predicted_store_wavefronts, "ld": d.predicted_load_wavefronts, "floor": d.floor_wavefronts}
    return out
