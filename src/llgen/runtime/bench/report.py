"""bench/report.md, report.json and report.png from the report dict of a bench run (run.py) or of merged runs
(merge.py); the targets each suite is held to are in targets.py."""

from __future__ import annotations

import json
import math
from pathlib import Path

from llgen.core.files import write_atomic
from llgen.plan.variants import OWN
from llgen.runtime.bench.endpoint_suite_report import endpoint_flags, endpoint_lines
from llgen.runtime.bench.rules import (
    KS,
    KS_ONE_CTA,
    LOOP_ROUNDS,
    MIN_LAUNCH_MS,
    PIPE_K,
    PIPE_TIE,
    STREAM_ROUNDS,
    TIE,
    best_alternative,
    ideal_ns,
    latency_ratio,
    loop_ratio,
    pick_gap,
    pick_row,
    sm_clock_mhz,
    suites_of,
)
from llgen.runtime.bench.targets import targets, targets_wide
from llgen.runtime.ncu import FENCED_MATCH


def write_json(report: dict, path: str) -> None:
    write_atomic(path, json.dumps(report, indent=1, default=str), make_dirs=True)


def _correct(r: dict) -> str:
    """Whether the variant's LOOP kernel, and its STREAM kernel where it ran, gave NumPy's answer bit for bit."""
    got = [r[k] for k in ("loop_correct", "stream_correct") if k in r]
    return str(all(got)) if got else "-"


def wrong_results(report: dict) -> list[str]:
    """Every llgen kernel of the report that gave a wrong result (LOOP or STREAM, a suite's or the gather bench's):
    `llgen bench` exits non-zero on any, besides flagging it. Triton's rows are its own and only flagged."""
    out = []
    for c in report.get("cases", []):
        for name, r in c.get("variants", {}).items():
            if name != "triton" and (r.get("loop_correct") is False or r.get("stream_correct") is False):
                out.append(f"{c['id']} / {name}")
    for c in report.get("gather") or []:
        for name, r in c.get("variants", {}).items():
            if name != "triton" and r.get("loop_correct") is False:
                out.append(f"gather {c['id']} ({c.get('pattern')}) / {name}")
    return out


def write_report(report: dict, outdir: str) -> list[Path]:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    info = report["info"]
    clock = sm_clock_mhz(info)
    suites = suites_of(report)
    lines = [
        "# llgen bench",
        "",
        (
            f"- device: {info.get('device')} ({info.get('sms')} SMs); nvidia-smi (driver, sm clock, max sm clock, mem clock): "
            f"{info.get('nvidia_smi')}"
        ),
        f"- date: {info.get('date')} to {info.get('date_end')}; llgen commit {info.get('commit', '?')}",
        f"- our kernels compiled by CuPy's {info.get('nvrtc', 'NVRTC ?')}; Triton's by its own ptxas",
        (
            f"- LOOP: per-SM ns per conversion = (t(K={KS[1]}) - t(K={KS[0]})) / ({KS[1] - KS[0]} x 2 x tiles) x SMs "
            f"with 32 CTAs per SM, both K doubled until the launch at the lower one runs {MIN_LAUNCH_MS} ms (shorter "
            "launches measured their slope short); "
            "medians of triton.testing.do_bench, ours and Triton's alike; llgen's pick and Triton's then run "
            f"{LOOP_ROUNDS} more rounds, alternating which goes first, and the table gives each side's median round. "
            f"One-CTA latency: the same LOOP with one CTA per SM (its per-SM time is one CTA's), timed over K = "
            f"{KS_ONE_CTA[0]} and {KS_ONE_CTA[1]} (over 64 and 128 a lone CTA's times jump in the event timer's steps), "
            "every variant, ours built "
            "as a lone CTA would be (__launch_bounds__(threads, 1), -DLLGEN_LOOP_ONE_CTA; the throughput build keeps "
            "ptxas's own register budget unless that spilled; each row names the build of each number and the "
            "registers of both), Triton's as Triton builds it (no minimum-CTAs hint); llgen's "
            f"latency pick (--objective latency) and Triton's again in {LOOP_ROUNDS} alternating rounds, and so its "
            "fastest free-paired variant (docs/design.md §3.4), where it has one, with Triton's rounds kept apart. "
            "The LOOP kernel keeps "
            "A -> B's and B -> A's scratch apart where both sit behind __syncthreads (one barrier per conversion). "
            "STREAM: 1 GiB, A -> B -> A per tile, "
            f"time over the same kernel's copy (no conversion); llgen's STREAM, copy and a cudaMemcpy of the same bytes run "
            f"{STREAM_ROUNDS} rounds in rotating order, medians, each STREAM/copy pair with 1 and 2 tiles loaded a step and "
            f"the faster STREAM kept (its tiles a step in the variant list). Where Triton / llgen is under {PIPE_TIE}, Nsight "
            f"Compute reads how busy both LOOP kernels (K = {PIPE_K}) keep the LSU data pipe that shared memory and shuffles "
            "share, and the integer ALU pipe."
        ),
    ]
    if info.get("runs"):
        lines.append(
            "- runs merged: "
            + "; ".join(
                f"{r.get('suite') or '-'}{' ' + '/'.join(map(str, r['shard'])) if r.get('shard') else ''}: "
                f"{r.get('cases')} case(s), {r.get('date')} to {r.get('date_end')}"
                + (f", commit {r['commit']}" if r.get("commit") else "")
                for r in info["runs"]
            )
        )
    if info.get("warning"):
        lines.append(f"- WARNING: {info['warning']}")
    flags = []
    for name, cases in suites:
        # the endpoint suite, through fixed shared layouts: its own table and targets (endpoint_suite_report.py)
        if name == "endpoint":  # suites_of names an older report's suites as today's
            lines += endpoint_lines(cases, clock)
            flags += endpoint_flags(cases)
            continue
        sub = {**report, "cases": cases}
        lines += _suite_lines(sub, name, clock, titled=len(suites) > 1 or name is not None)
        flags += _flags(cases)
    lines += _every_variant(report)
    lines += _wavefront_lines(report)
    if report.get("gather"):
        lines += gather_lines(report["gather"])
    lines += ["", "## Flags: a model's pick measured slower than an alternative, wrong results, errors, or wavefronts off", ""]
    lines += [f"- {f}" for f in flags] or ["- none"]
    write_atomic(out / "report.md", "\n".join(lines) + "\n")
    write_json(report, str(out / "report.json"))
    paths = [out / "report.md", out / "report.json"]
    try:
        paths.append(_chart(report, out / "report.png"))
    except Exception as e:  # noqa: BLE001 - the chart is optional; say why it is missing
        write_atomic(out / "report.md", (out / "report.md").read_text() + f"\n(chart failed: {e!r})\n")
    return paths


def _suite_lines(report: dict, name: str | None, clock: float | None, titled: bool) -> list[str]:
    """One suite's summary, table and targets."""
    cases = report["cases"]
    rows, speedups = [], []
    for c in cases:
        v = c["variants"]
        me, tr = v.get("llgen", {}), v.get("triton", {})
        t_me, t_tr = me.get("loop_per_sm_ns"), tr.get("loop_per_sm_ns")
        ratio = loop_ratio(c)
        if ratio and ratio > 0:
            speedups.append(ratio)
        ideal = ideal_ns(c, clock)
        share = ideal / t_me if ideal and t_me and t_me > 0 else None
        alt, alt_ns = best_alternative(c)
        gap = pick_gap(c)
        path = me.get("path", "-") if not c.get("error") else f"error: {c['error']}"
        rows.append(
            (
                c["id"],
                path,
                _f(t_me),
                _f(t_tr) if not tr.get("error") else "error",
                _f(ratio, 2),
                f"{alt} {_f(alt_ns)}" if alt else "-",
                _f(gap, 3) if alt else "-",
                _f(v.get("naive", {}).get("loop_per_sm_ns")),
                _f(v.get("classic", {}).get("loop_per_sm_ns")),
                _f(share * 100 if share else None, 0),
                _f(me.get("stream_ratio"), 3),
                _f(tr.get("stream_ratio"), 3),
                str(me.get("regs", "-")),
                str(tr.get("regs", "-")),
                str(me.get("local_bytes", "-")),
                _wavefronts_cell(me),
                _correct(me),
            )
        )
    gmean = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None
    lines = [""] + ([f"## Suite {name or '-'} ({len(cases)} cases)", ""] if titled else [])
    lines += [
        f"- geometric-mean LOOP speedup over Triton: {_f(gmean, 3)}",
        (
            "- STREAM roofline: our copy kernel's speed over cudaMemcpy device to device of the same bytes (GB/s read + "
            "written): "
            + ", ".join(
                f"{c['id']} {_f(100 * m['copy_vs_d2d'], 1)}% ({_f(m['copy_GBps'], 0)} GB/s)"
                for c in cases
                if (m := c["variants"].get("llgen", {})).get("copy_vs_d2d")
            )
        ),
        "",
        (
            "| case | path | llgen ns | Triton ns | Triton/llgen | best alternative ns | pick/best | naive ns | classic ns | "
            "% of ideal | STREAM llgen | STREAM Triton | regs | Triton regs | local B | wavefronts meas/pred | "
            "exact (LOOP, STREAM) |"
        ),
        "|" + "---|" * 17,
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += _latency_lines(cases)
    if name in (None, "core"):
        lines += ["", "## Core's targets, from this run", ""]
        lines += [f"- {status}: {text}" for status, text in targets(report, clock)]
    else:
        lines += ["", f"## Targets beyond core on {name}, from this run", ""]
        lines += [f"- {status}: {text}" for status, text in targets_wide(report, clock)]
    return lines


def _latency_lines(cases: list[dict]) -> list[str]:
    """One suite's one-CTA latency table: llgen's latency pick (the variant whose kernels it is, "llgen" where the
    throughput pick's), Triton's, and the fastest other llgen variant, with the latency model's cycles."""
    if not any(pick_row(c, "latency")[0] for c in cases):
        return []  # a report from before the latency pick
    rows, ratios = [], []
    for c in cases:
        name, me = pick_row(c, "latency")
        tr = c["variants"].get("triton", {})
        ratio = latency_ratio(c)
        if ratio:
            ratios.append(ratio)
        alt, alt_ns = best_alternative(c, "latency")
        cells = (
            c["id"],
            name or "-",
            me.get("path", "-"),
            _f(me.get("loop_lat_ns")),
            _f(tr.get("loop_lat_ns")) if not tr.get("error") else "error",
            _f(ratio, 2),
            f"{alt} {_f(alt_ns)}" if alt else "-",
            _f(pick_gap(c, "latency"), 3) if alt else "-",
            _f(me.get("lat_pred"), 0),
        )
        rows.append("| " + " | ".join(cells) + " |")
    gmean = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
    return [
        "",
        f"One-CTA latency (LOOP at one CTA per SM, ns): geometric-mean speedup of the latency pick over Triton {_f(gmean, 3)}",
        "",
        "| case | latency pick | path | llgen ns | Triton ns | Triton/llgen | best alternative ns | pick/best | model cycles |",
        "|" + "---|" * 9,
        *rows,
    ]


def _every_variant(report: dict) -> list[str]:
    lines = ["", "## Every variant (LOOP per-SM ns, one-CTA latency ns, STREAM ratio, registers; the models' cycles)", ""]
    for c in report["cases"]:
        if c.get("error"):
            lines.append(f"- {c['id']}: error {c['error']}")
        for name, r in c["variants"].items():
            lines.append(
                f"- {c['id']} / {name}: path {r.get('path')}, LOOP {_f(r.get('loop_per_sm_ns'))}, "
                f"lat {_f(r.get('loop_lat_ns'))}, STREAM {_f(r.get('stream_ratio'), 3)}, regs {r.get('regs')}"
                + (
                    f" ({r['lat_regs']} in the one-CTA build lat is timed on)"
                    if r.get("lat_build") != r.get("loop_build")
                    else ""
                )
                + (
                    f" (STREAM at {r['stream_unroll']} tile(s) a step; by tiles a step, STREAM/copy: "
                    + ", ".join(f"{u}: {b['stream_ms'] / b['copy_ms']:.3f}" for u, b in r["stream_by_unroll"].items())
                    + ")"
                    if r.get("stream_by_unroll")
                    else ""
                )
                + (f", model {_f(r['cost_pred'], 0)}" if r.get("cost_pred") is not None else "")
                + (f", one CTA {_f(r['lat_pred'], 0)}" if r.get("lat_pred") is not None else "")
                + (f", same kernels as {', '.join(r['same_as'])}" if r.get("same_as") else "")
                + (f", error {r['error']}" if r.get("error") else "")
                + (f", LOOP WRONG {r.get('loop_first_bad')}" if r.get("loop_correct") is False else "")
            )
        for name, why in (c.get("skipped") or {}).items():
            if not why.startswith("the same kernels as"):
                lines.append(f"- {c['id']} / {name}: skipped: {why}")
    return lines


def _wavefront_lines(report: dict) -> list[str]:
    lines = [
        "",
        "## Shared-memory wavefronts per conversion (one tile)",
        "",
        (
            "Store and load wavefronts, measured by Nsight Compute on the variant's one-tile debug kernel / predicted by "
            "the planner, and the data-volume floor (the tile in once, out once per destination warp replica)."
        ),
        "",
    ]
    for c in report["cases"]:
        for name, r in c["variants"].items():
            meas = r.get("wavefronts_meas") or {}
            for tag, d in (r.get("wavefronts_pred") or {}).items():
                m = meas.get(tag, {})
                lines.append(
                    f"- {c['id']} {name} {tag}: store {_f(m.get('st'), 0)} / {d['st']}, load {_f(m.get('ld'), 0)} / "
                    f"{d['ld']}, floor {d['floor']}" + (f" ({m['verdict']})" if m else " (not measured)")
                )
    return lines


def _flags(cases: list[dict]) -> list[str]:
    flags = []
    for c in cases:
        v = c["variants"]
        me = v.get("llgen", {})
        t_me = me.get("loop_per_sm_ns")
        lat_name, lat = pick_row(c, "latency")
        t_lat = lat.get("loop_lat_ns")
        if c.get("error"):
            flags.append(f"{c['id']}: {c['error']}")
        for name, r in v.items():
            if name in OWN[1:] and r.get("loop_per_sm_ns") and t_me and r["loop_per_sm_ns"] * TIE < t_me:
                flags.append(
                    f"{c['id']}: the model picked {me.get('path')} but {name} ({r.get('path')}) measured "
                    f"{r['loop_per_sm_ns']:.1f} vs {t_me:.1f} ns"
                )
            if name in OWN and name != lat_name and r.get("loop_lat_ns") and t_lat and r["loop_lat_ns"] * TIE < t_lat:
                flags.append(
                    f"{c['id']}: the latency model picked {lat.get('path')} but {name} ({r.get('path')}) measured "
                    f"{r['loop_lat_ns']:.1f} vs {t_lat:.1f} ns one CTA"
                )
            if r.get("loop_correct") is False or r.get("stream_correct") is False:
                flags.append(f"{c['id']} / {name}: wrong result (LOOP {r.get('loop_correct')}, STREAM {r.get('stream_correct')})")
            if r.get("error"):
                flags.append(f"{c['id']} / {name}: {r['error']}")
            for tag, w in (r.get("wavefronts_meas") or {}).items():
                if w["verdict"] not in ("match", FENCED_MATCH):  # the latter: not the conversion's (design §7.5)
                    flags.append(
                        f"{c['id']}: {name} {tag} wavefronts measured st {w['st']} / ld {w['ld']}, "
                        f"predicted {w['pred_st']} / {w['pred_ld']} ({w['verdict']})"
                    )
    return flags


def gather_lines(gather: list[dict]) -> list[str]:
    """The gather section: llgen's pick, its forced shuffle and shared variants and Triton's gl.gather, LOOP ns per
    gather per tile per SM, and the ratios."""
    lines = [
        "",
        "## Gather: llgen against Triton's gl.gather (LOOP: ns per gather per tile per SM, K gathers in a row)",
        "",
        "| case | dtype | shape | axis | index | pick | llgen ns | shuffle ns | shared ns | Triton ns | Triton/llgen | "
        "shared/shuffle | exact (llgen, Triton) |",
        "|" + "---|" * 13,
    ]
    ratios = []
    for g in gather:
        v = g.get("variants", {})
        me, tr = v.get("llgen", {}), v.get("triton", {})

        def ns(n, v=v):
            return v.get(n, {}).get("loop_per_sm_ns")

        shuffle = ns("shuffle") or (ns("llgen") if me.get("path") == "shuffle" else None)
        shared = ns("shared") or (ns("llgen") if me.get("path") == "shared" else None)
        ratio = tr.get("loop_per_sm_ns") / me["loop_per_sm_ns"] if tr.get("loop_per_sm_ns") and me.get("loop_per_sm_ns") else None
        if ratio:
            ratios.append(ratio)
        lines.append(
            "| "
            + " | ".join(
                (
                    g["id"],
                    g["dtype"],
                    "x".join(map(str, g["shape"])),
                    str(g["axis"]),
                    g["pattern"],
                    me.get("path", "error: " + str(g.get("error") or me.get("error"))),
                    _f(ns("llgen")),
                    _f(shuffle),
                    _f(shared),
                    _f(tr.get("loop_per_sm_ns")) if not tr.get("error") else "error",
                    _f(ratio, 2),
                    _f(shared / shuffle if shared and shuffle else None, 2),
                    f"{me.get('loop_correct', '-')}, {tr.get('loop_correct', '-')}",
                )
            )
            + " |"
        )
    if ratios:
        lines.append(f"\n- geometric-mean gather speedup over Triton: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")
    for g in gather:
        for name, r in g.get("variants", {}).items():
            if r.get("error"):
                lines.append(f"- gather {g['id']} / {g['pattern']} / {name}: error {r['error']}")
    return lines


def _chart(report: dict, path: Path) -> Path:
    """LOOP ns per case: core (and unnamed) suites by llgen, Triton, naive and classic; every other suite by llgen's
    pick, its best alternative and Triton, one panel a suite."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        (
            name,
            cases,
            ("llgen", "triton", "naive", "classic") if name in (None, "core") else ("pick", "best alternative", "triton"),
        )
        for name, cases in suites_of(report)
    ]
    width_in = max([12.0] + [0.32 * len(cases) * len(bars) / 3 for _, cases, bars in panels])
    fig, axes = plt.subplots(len(panels), 1, figsize=(width_in, 4.5 * len(panels)), squeeze=False)
    for ax, (name, cases, bars) in zip(axes[:, 0], panels, strict=True):
        width, top = 0.8 / len(bars), 0.0
        for i, n in enumerate(bars):
            vals = [_bar_value(c, n) or 0 for c in cases]
            top = max([top, *vals])
            ax.bar([j + i * width for j in range(len(cases))], vals, width, label=n)
        ax.set_xticks(
            [j + (len(bars) - 1) / 2 * width for j in range(len(cases))], [c["id"] for c in cases], rotation=45, ha="right"
        )
        ax.set_ylabel("LOOP: ns per conversion per SM (lower is better)")
        if top > 0:
            ax.set_yscale("log")
        ax.legend()
        title = "llgen vs baselines" if bars[0] == "llgen" else f"{name}: llgen's pick, its best alternative and Triton"
        ax.set_title(f"{title} on {report['info'].get('device')}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _bar_value(c: dict, bar: str) -> float | None:
    if bar == "pick":
        bar = "llgen"
    if bar == "best alternative":
        return best_alternative(c)[1]
    return c["variants"].get(bar, {}).get("loop_per_sm_ns")


def _wavefronts_cell(variant: dict) -> str:
    """'meas/pred' of the whole round trip (fwd + bwd, store + load), or '-' where nothing goes through shared memory."""
    meas, pred = variant.get("wavefronts_meas") or {}, variant.get("wavefronts_pred") or {}
    if not pred:
        return "-"
    p = sum(d["st"] + d["ld"] for d in pred.values())
    if set(meas) != set(pred) or any(m["st"] is None or m["ld"] is None for m in meas.values()):
        return f"-/{p}"
    return f"{sum(m['st'] + m['ld'] for m in meas.values()):.0f}/{p}"


def _f(x, nd: int = 1) -> str:
    return "-" if x is None else f"{x:.{nd}f}"
