"""How the bench times a kernel: medians of `triton.testing.do_bench` (CUDA events, L2 flushed between reps), rounds
in rotating or alternating order, and LOOP's slope in K (docs/design.md §10)."""

from __future__ import annotations

import numpy as np

from llgen.runtime.bench.rules import KS, KS_ONE_CTA, LOOP_ROUNDS, MAX_K_SCALE, MIN_LAUNCH_MS


def median_ms(fn, rep: int) -> float:
    from triton.testing import do_bench  # Triton only where a GPU times: the CPU tests run without it

    return do_bench(fn, warmup=20, rep=rep, return_mode="median")


def rotating_rounds(fns: dict, rounds: int, rep: int) -> dict:
    """Each launcher's median time over ``rounds`` rounds, the order rotating between rounds, so that drift over the
    run (the copy kernels of one H100 run read 1.5-2% below an earlier run's) falls on all of them alike."""
    names = list(fns)
    times = {n: [] for n in names}
    for i in range(rounds):
        for n in names[i % len(names) :] + names[: i % len(names)]:
            times[n].append(median_ms(fns[n], rep))
    return {n: float(np.median(ts)) for n, ts in times.items()}


def per_sm_ns(run, grid: int, sms: int, rep: int, per_k: int = 2, ks: tuple[int, int] | None = None) -> float:
    """LOOP's ns per operation per tile per SM, from the slope between two K (docs/design.md §10): ``per_k``
    operations per K (2 conversions a round trip; 1 gather). A grid of one CTA an SM is timed over KS_ONE_CTA, others
    over KS unless ``ks`` says; both K are scaled by long_launch_scale of the first launch's time."""
    ks = KS_ONE_CTA if grid <= sms else ks or KS
    t = {ks[0]: median_ms(lambda: run(ks[0], grid), rep)}
    scale = long_launch_scale(t[ks[0]])
    if scale > 1:
        ks = (ks[0] * scale, ks[1] * scale)
        t = {ks[0]: median_ms(lambda: run(ks[0], grid), rep)}
    t[ks[1]] = median_ms(lambda: run(ks[1], grid), rep)
    return (t[ks[1]] - t[ks[0]]) * 1e6 / ((ks[1] - ks[0]) * per_k * grid) * sms


def long_launch_scale(ms: float) -> int:
    """The power of two that makes a launch of ``ms`` run MIN_LAUNCH_MS at least, at most MAX_K_SCALE: short
    launches measured their slope short (rules.KS_MIXED)."""
    scale = 1
    while ms * scale < MIN_LAUNCH_MS and scale < MAX_K_SCALE:
        scale *= 2
    return scale


def loop_times(r: dict, run, sms: int, rep: int, latency: bool = True, lat_run=None) -> None:
    """Throughput (32 CTAs per SM) and, with ``latency``, latency (one CTA per SM) forms of LOOP, into r; the latency
    of ``lat_run`` where given (the LOOP built for one CTA)."""
    r["loop_per_sm_ns"] = per_sm_ns(run, sms * 32, sms, rep)
    r["loop_thr_ns"] = r["loop_per_sm_ns"] / sms
    if latency:
        r["loop_lat_ns"] = per_sm_ns(lat_run or run, sms, sms, rep)  # one tile an SM: its per-SM time is the latency


def alternate(results: dict, launches: dict, m, names=("llgen", "triton"), one_cta: bool = False, aside: str = "") -> None:
    """Time two LOOPs again (llgen's pick and Triton's) in LOOP_ROUNDS rounds, alternating which goes first, and keep
    each side's median: where both sit at the same limit, a single pair of readings drifted by up to 0.5% with the
    order of measurement (lanes_f32 and b2bT_f16 on the H100, bench/NOTES.md). ``m``: the run's SM count and
    repetitions (``m.sms``, ``m.rep``). ``one_cta``: their latency form.
    ``aside``: the second side's rounds go to its row as loop_lat_<aside>_rounds_ns, its own figures untouched (a
    second pairing against the same Triton)."""
    rounds = {n: [] for n in names}
    for i in range(LOOP_ROUNDS):
        for n in names if i % 2 == 0 else names[::-1]:
            rounds[n].append(per_sm_ns(launches[n], m.sms if one_cta else m.sms * 32, m.sms, m.rep))
    for n, ts in rounds.items():
        if aside and n == names[1]:
            results[n][f"loop_lat_{aside}_rounds_ns"] = ts
        elif one_cta:
            results[n].update(loop_lat_rounds_ns=ts, loop_lat_ns=float(np.median(ts)))
            continue
        results[n].update(loop_rounds_ns=ts, loop_per_sm_ns=float(np.median(ts)))
        results[n]["loop_thr_ns"] = results[n]["loop_per_sm_ns"] / m.sms


def stream_grid(sms: int, block: int) -> int:
    """CTAs for STREAM and copy, which walk the tiles grid-stride: two waves of 4-warp CTAs (as since the first
    runs), one wave of the 8-warp CTAs that group one-warp conversions. On the H100 one and two waves of those
    measured within 0.2% of each other (t16x32's copy, bench/probes.txt)."""
    return sms * 32 if block <= 128 else sms * 2048 // block


def fastest_unroll(stream_ms: dict, stack: dict) -> int:
    """The tiles a step whose STREAM took least time, among those whose kernels keep no stack frame (among all,
    where every one does)."""
    fit = [u for u in stream_ms if not stack[u]] or list(stream_ms)
    return min(fit, key=stream_ms.__getitem__)
