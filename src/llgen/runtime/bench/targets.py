"""The targets a bench report is held to (core's, the wide suite's own, and those on both objectives for
every suite), each "met", "MISSED", or "physical": missed at the hardware's limit, where no code can reach it.
A miss names its cases, each with what the run measured about it (its reason)."""

from __future__ import annotations

import math
import statistics

from llgen.core.dtypes import dtype as to_dtype
from llgen.plan.variants import LLGEN
from llgen.runtime.bench.rules import (
    AT_LIMIT,
    OBJECTIVES,
    TIE,
    best_alternative,
    fastest_free,
    ideal_ns,
    latency_ratio,
    loop_ratio,
    pick_gap,
    pick_row,
    stream_tiles,
    triton_folded,
)
from llgen.runtime.ncu import FENCED_MATCH


def _status(ok: bool) -> str:
    return "met" if ok else "MISSED"


def stream_why(case: dict, report: dict) -> str:
    """What the run measured about a STREAM that lags its copy: a stack frame (local memory), conversions that take
    longer than the copy (at LOOP throughput, both directions a tile), a copy that memory does not bound (under 93% of
    a device copy), or else the share of the copy's time the conversions take."""
    r = case["variants"]["llgen"]
    stack = (r.get("stream_by_unroll") or {}).get(str(r.get("stream_unroll")), {}).get("stack")
    if stack:
        return f"its STREAM keeps {stack} bytes of stack a thread"
    share = None
    sms = report.get("info", {}).get("sms")
    if r.get("loop_per_sm_ns") and r.get("copy_ms") and sms:
        tile_bytes = math.prod(case["shape"]) * to_dtype(case["dtype"]).bytes
        copy_ns_per_tile = r["copy_ms"] * 1e6 / stream_tiles(tile_bytes) * sms
        share = 2 * r["loop_per_sm_ns"] / copy_ns_per_tile
    if share is not None and share >= 1:
        return f"its two conversions alone take {share:.1f}x the copy's time a tile"
    if r.get("copy_vs_d2d") and r["copy_vs_d2d"] < 0.93:
        return f"its copy reaches {100 * r['copy_vs_d2d']:.0f}% of a device copy: memory does not bound it"
    return f"its two conversions take {100 * share:.0f}% of the copy's time a tile" if share is not None else "not explained"


def gap_why(c: dict, objective: str) -> str:
    """What the models predicted for a pick that measured slower than another llgen variant: the pick's and the
    fastest variant's predictions for the objective (cycles), so a miss shows whether the model ordered them wrongly."""
    key, pred = OBJECTIVES[objective][1:]
    name, me = pick_row(c, objective)
    best, _ = best_alternative(c, objective)
    other = c["variants"].get(best, {})
    if me.get(pred) is None or other.get(pred) is None:
        return "the model's prediction is not in the report"
    return f"{name} {me.get('path')} predicted {me[pred]:.0f} cycles, {best} {other.get('path')} {other[pred]:.0f}"


def pick_gap_target(cases: list[dict], objective: str) -> list[tuple[str, str]]:
    """The pick's rule on one objective: its pick within 2% of the fastest llgen variant (by that objective's LOOP
    form) on >= 95% of the cases that have another, never more than 5% slower."""
    gaps = {c["id"]: (c, g) for c in cases if best_alternative(c, objective)[0] and (g := pick_gap(c, objective))}
    if not gaps:
        return []
    near = [k for k, (_, g) in gaps.items() if g <= TIE]
    worst = max(gaps, key=lambda k: gaps[k][1])
    far = {k: (c, g) for k, (c, g) in gaps.items() if g > TIE}
    form = "LOOP" if objective == "throughput" else "one-CTA LOOP"
    return [
        (
            _status(len(near) >= 0.95 * len(gaps) and gaps[worst][1] <= 1.05),
            f"the {objective} pick within 2% of the fastest llgen variant ({form}) on >= 95% of the {len(gaps)} cases "
            f"with another, never more than 5% slower: {len(near)}/{len(gaps)}, worst {worst} {gaps[worst][1]:.3f}"
            + (f" (over 2%: {', '.join(f'{k} {g:.3f} ({gap_why(c, objective)})' for k, (c, g) in far.items())})" if far else ""),
        )
    ]


def latency_why(c: dict) -> str:
    """What the run measured about a latency pick slower than Triton's one CTA: the alternating rounds' spread, and
    whether another llgen variant beat Triton (the model's miss) or none did."""
    name, me = pick_row(c, "latency")
    tr = c["variants"].get("triton", {})
    parts = []
    rm, rt = me.get("loop_lat_rounds_ns"), tr.get("loop_lat_rounds_ns")
    if rm and rt:
        per = [t / m for m, t in zip(rm, rt, strict=False)]
        parts.append(f"alternating rounds {min(per):.3f}-{max(per):.3f}")
    best, ns = best_alternative(c, "latency")
    if best and ns < tr.get("loop_lat_ns", 0):
        parts.append(f"llgen's {best} measured {ns:.1f} ns: {gap_why(c, 'latency')}")
    elif best:
        parts.append(f"no llgen variant is faster: the next, {best}, {ns:.1f} ns")
    if me.get("regs") and tr.get("regs"):
        parts.append(f"registers {me['regs']} vs Triton's {tr['regs']}")
    free = _free_latency(c)
    if free:
        parts.append(f"with free pairing ({free[0]}) {free[1]:.1f} ns, {free[2]:.3f}x Triton")
    return "; ".join(parts) or "not explained"


def _free_latency(c: dict) -> tuple[str, float, float] | None:
    """The fastest one-CTA LOOP of the case's free-pairing variants beside Triton's: (name, its ns, Triton / it),
    from their alternating rounds where the run took them."""
    tr = c["variants"].get("triton", {})
    name = fastest_free(c["variants"])
    if not tr.get("loop_lat_ns") or name is None:
        return None
    ns, theirs = c["variants"][name]["loop_lat_ns"], tr.get("loop_lat_free_rounds_ns")
    return name, ns, (statistics.median(theirs) if theirs else tr["loop_lat_ns"]) / ns


def objective_targets(cases: list[dict]) -> list[tuple[str, str]]:
    """The targets on both objectives: the latency pick's one-CTA LOOP no slower than Triton's on every case, and each
    objective's pick near the fastest llgen variant for it."""
    out = []
    rs = {c["id"]: (c, r) for c in cases if (r := latency_ratio(c))}
    if rs:
        low = {k: (c, r) for k, (c, r) in rs.items() if r < 1.0}
        out.append(
            (
                _status(not low),
                "one-CTA latency, Triton / llgen's latency pick >= 1.0 on every case: "
                + (
                    ", ".join(f"{k} {r:.3f} ({latency_why(c)})" for k, (c, r) in low.items()) + " below"
                    if low
                    else f"lowest {min(r for _, r in rs.values()):.3f}"
                ),
            )
        )
    free = {c["id"]: (f, f[2]) for c in cases if (f := _free_latency(c))}
    if free:
        low = {k: v for k, v in free.items() if v[1] < 1.0}
        out.append(
            (
                _status(not low),
                "one-CTA latency with free pairing (docs/design.md §3.4), Triton / llgen's fastest free-paired variant "
                f">= 1.0 on the {len(free)} cases it changes: "
                + (
                    ", ".join(f"{k} {r:.3f}" for k, (_, r) in low.items()) + " below"
                    if low
                    else f"lowest {min(r for _, r in free.values()):.3f}"
                ),
            )
        )
    for objective in OBJECTIVES:
        out += pick_gap_target(cases, objective)
    return out


def targets(report: dict, clock_mhz: float | None) -> list[tuple[str, str]]:
    """Each of core's targets checked against this run's numbers: (status, what was measured). The status is "met",
    "MISSED", or "physical": missed, but at the hardware's limit (`at_limit`), so no code can reach it."""
    cases = report["cases"]

    def v(c, name):
        return c["variants"].get(name, {})

    def share(c, name):
        ideal, ns = ideal_ns(c, clock_mhz), v(c, name).get("loop_per_sm_ns")
        return ideal / ns if ideal and ns else None

    def at_limit(c) -> tuple[bool, str]:
        """Whether llgen's LOOP sits at the hardware's limit, and the evidence: its share of the ideal (which counts
        the fewest wavefronts or shuffles the conversion needs), Nsight Compute's busy share of the LSU data pipe
        they all go through, and the spread of the alternating rounds."""
        me, tr = share(c, "llgen"), share(c, "triton")
        pm, pt = v(c, "llgen").get("pipe", {}).get("busy_pct"), v(c, "triton").get("pipe", {}).get("busy_pct")
        am, at = v(c, "llgen").get("pipe", {}).get("alu_busy_pct"), v(c, "triton").get("pipe", {}).get("alu_busy_pct")
        rm, rt = v(c, "llgen").get("loop_rounds_ns"), v(c, "triton").get("loop_rounds_ns")
        parts = [f"llgen {100 * me:.1f}%, Triton {100 * tr:.1f}% of the ideal"] if me and tr else []
        if pm is not None and pt is not None:
            parts.append(f"LSU data pipe busy {pm:.1f}% / {pt:.1f}% of the LOOP kernels' cycles (ncu)")
        if am is not None and at is not None:
            parts.append(f"integer ALU pipe busy {am:.1f}% / {at:.1f}%")
        if rm and rt:
            per = [t / m for m, t in zip(rm, rt, strict=False)]
            parts.append(f"alternating rounds {min(per):.3f}-{max(per):.3f}")
        # at the ideal with the LSU pipe full, or the integer ALU full (the ideal counts wavefronts and shuffles only)
        lsu = bool(me and me >= AT_LIMIT and pm is not None and pm >= 100 * AT_LIMIT)
        ok = lsu or bool(am is not None and am >= 100 * AT_LIMIT)
        return ok, f" ({'; '.join(parts)})" if parts else ""

    out = []
    rs = {c["id"]: r for c in cases if (r := loop_ratio(c))}
    if rs:
        low = [(c, rs[c["id"]], *at_limit(c)) for c in cases if rs.get(c["id"], 1.0) < 1.0]
        status = "met" if not low else "physical" if all(ok for *_, ok, _ in low) else "MISSED"
        out.append(
            (
                status,
                "LOOP, Triton / llgen >= 1.0 on every case: "
                + (
                    ", ".join(f"{c['id']} {r:.3f}{why}" for c, r, _, why in low)
                    + " below"
                    + (
                        f"; each at the hardware's limit: at >= {100 * AT_LIMIT:.0f}% of its ideal with the LSU pipe "
                        f">= {100 * AT_LIMIT:.0f}% busy, or its integer ALU pipe >= {100 * AT_LIMIT:.0f}% busy: no "
                        f"kernel is more than {100 * (1 - AT_LIMIT):.0f}% faster"
                        if status == "physical"
                        else ""
                    )
                    if low
                    else f"lowest {min(rs.values()):.3f}"
                ),
            )
        )
        g = math.exp(sum(math.log(r) for r in rs.values()) / len(rs))
        out.append((_status(g >= 1.15), f"LOOP geometric-mean speedup over Triton >= 1.15: {g:.3f}"))
    out += objective_targets(cases)
    shares = {c["id"]: x for c in cases if (x := share(c, "llgen"))}
    if shares:
        low = {k: x for k, x in shares.items() if x < 0.9}
        out.append(
            (
                _status(not low),
                "LOOP >= 90% of the ideal on every case that moves data: "
                + (
                    ", ".join(f"{k} {100 * x:.0f}%" for k, x in low.items())
                    if low
                    else f"lowest {100 * min(shares.values()):.0f}%"
                ),
            )
        )
    co = [c for c in cases if c.get("coalesced_a") and v(c, "llgen").get("stream_ratio")]
    if co:
        bad = [c for c in co if v(c, "llgen")["stream_ratio"] > 1.01]
        out.append(
            (
                _status(not bad),
                "STREAM within 1% of our copy kernel where A is coalesced: "
                + (
                    ", ".join(f"{c['id']} {v(c, 'llgen')['stream_ratio']:.3f} ({stream_why(c, report)})" for c in bad)
                    if bad
                    else f"worst {max(v(c, 'llgen')['stream_ratio'] for c in co):.3f}"
                ),
            )
        )
        eff = {c["id"]: x for c in co if (x := v(c, "llgen").get("copy_vs_d2d"))}
        if eff:
            low = {k: x for k, x in eff.items() if x < 0.93}
            out.append(
                (
                    _status(not low),
                    "our copy kernel >= 93% of a device-to-device copy of the same bytes where A "
                    "is coalesced: "
                    + (
                        ", ".join(f"{k} {100 * x:.1f}%" for k, x in low.items())
                        if low
                        else f"lowest {100 * min(eff.values()):.1f}%"
                    ),
                )
            )
    meas = [
        (c["id"], name, tag, w)
        for c in cases
        for name, r in c["variants"].items()
        for tag, w in (r.get("wavefronts_meas") or {}).items()
    ]
    if meas:
        bad = [f"{i} {n} {t}" for i, n, t, w in meas if w["verdict"] not in ("match", "unstable", FENCED_MATCH)]
        shaky = [f"{i} {n} {t}" for i, n, t, w in meas if w["verdict"] == "unstable"]
        fenced = [f"{i} {n} {t}" for i, n, t, w in meas if w["verdict"] == FENCED_MATCH]
        out.append(
            (
                _status(not bad),
                f"WAVEFRONTS measured = predicted on every shared-memory kernel: {len(meas) - len(bad)}/{len(meas)}"
                + (f" ({', '.join(bad)} off)" if bad else "")
                + (
                    f"; unstable (launches of one kernel counted differently, one exactly as predicted): {', '.join(shaky)}"
                    if shaky
                    else ""
                )
                + (
                    f"; over the prediction as emitted and exactly it with a barrier before the slot stores (global "
                    f"traffic beside the loads, docs/design.md §7.5): {', '.join(fenced)}"
                    if fenced
                    else ""
                ),
            )
        )
        ours = [(i, t, w) for i, n, t, w in meas if n == "llgen"]
        off = [
            f"{i} {t} {w['st'] + w['ld']:.0f} vs {w['floor']}"
            for i, t, w in ours
            if w["st"] is not None and w["ld"] is not None and w["st"] + w["ld"] != w["floor"]
        ]
        out.append(
            (
                _status(not off),
                f"WAVEFRONTS of llgen's picks at the data-volume floor: {len(ours) - len(off)}/{len(ours)}"
                + (f" ({'; '.join(off)})" if off else ""),
            )
        )
    for c in cases:
        sh = v(c, "llgen") if v(c, "llgen").get("path") == "shuffle/shuffle" else v(c, "shuffle")
        sm = [r["loop_per_sm_ns"] for r in c["variants"].values() if r.get("path") == "shared/shared" and r.get("loop_per_sm_ns")]
        if c["id"] == "lanes_f32" and sh.get("loop_per_sm_ns") and sm:
            f = min(sm) / sh["loop_per_sm_ns"]
            out.append((_status(f > 1.0), f"shuffles beat our best shared-memory path on lanes_f32: {f:.2f}x"))
    local = [f"{c['id']}/{n}" for c in cases for n, r in c["variants"].items() if n in LLGEN and r.get("local_bytes")]
    base = [f"{c['id']}/{n}" for c in cases for n, r in c["variants"].items() if n not in LLGEN and r.get("local_bytes")]
    one = [f"{c['id']}/{n}" for c in cases for n, r in c["variants"].items() if n in LLGEN and r.get("loop_one_cta")]
    out.append(
        (
            _status(not local),
            "no local memory in llgen's kernels (its picks, with natural and free pairing, and the forced shuffle/shared paths)"
            + (f": {', '.join(local)}" if local else "")
            + (f"; LOOP built for one CTA per SM where ptxas's own budget spilled: {', '.join(one)}" if one else "")
            + (f"; baselines with local memory: {', '.join(base)}" if base else ""),
        )
    )
    regs = {c["id"]: (v(c, "llgen").get("regs"), v(c, "triton").get("regs")) for c in cases}
    over = {k: r for k, r in regs.items() if r[0] and r[1] and r[0] > r[1]}
    if any(r[1] for r in regs.values()):
        out.append(
            (
                _status(not over),
                "registers per thread <= Triton's: "
                + (", ".join(f"{k} {a} vs {b}" for k, (a, b) in over.items()) + " above" if over else "every case"),
            )
        )
    return out


def targets_wide(report: dict, clock_mhz: float | None) -> list[tuple[str, str]]:
    """The targets of a suite beyond core: LOOP >= 1.0x Triton on every case (ties at the hardware's
    limit "physical", as on core), those on both objectives (objective_targets), geomean >= 1.25x, STREAM within
    1% of our copy where A is coalesced, no local memory, every kernel exact; and the cases Triton could not run."""
    cases = report["cases"]
    out = []
    base = targets(report, clock_mhz)
    out += [t for t in base if t[1].startswith("LOOP, Triton / llgen >= 1.0")]
    out += objective_targets(cases)
    rs = [r for c in cases if (r := loop_ratio(c))]
    if rs:
        g = math.exp(sum(math.log(r) for r in rs) / len(rs))
        folded = [c["id"] for c in cases if triton_folded(c)]
        out.append(
            (
                _status(g >= 1.25),
                f"LOOP geometric-mean speedup over Triton >= 1.25: {g:.3f} over {len(rs)} cases"
                + (f" (not counted, Triton's loop folded: {', '.join(folded)})" if folded else ""),
            )
        )
    out += [t for t in base if t[1].startswith(("STREAM within", "no local memory"))]
    wrong = [
        f"{c['id']}/{n}"
        for c in cases
        for n, r in c["variants"].items()
        if r.get("loop_correct") is False or r.get("stream_correct") is False
    ]
    out.append(
        (
            _status(not wrong),
            "every kernel exact (LOOP and STREAM, Triton's LOOP too)" + (f": wrong {', '.join(wrong)}" if wrong else ""),
        )
    )
    failed = [c for c in cases if c.get("error") or any(r.get("error") for n, r in c["variants"].items() if n != "triton")]
    no_triton = [c for c in cases if c["variants"].get("triton", {}).get("error")]
    out.append(
        (
            _status(not failed),
            "every case and llgen variant ran"
            + (f": not {', '.join(c['id'] for c in failed)}" if failed else "")
            + (
                "; Triton could not run " + "; ".join(f"{c['id']} ({c['variants']['triton']['error']})" for c in no_triton)
                if no_triton
                else ""
            ),
        )
    )
    return out
