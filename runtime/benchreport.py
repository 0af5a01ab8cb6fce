"""bench/report.md, report.json and report.png from a `runtime.bench.run` report."""

from __future__ import annotations

import math
import re
from pathlib import Path

from .bench import write_json


def sm_clock_mhz(info: dict) -> float | None:
    """The SM clock nvidia-smi read at the start of the run."""
    m = re.findall(r"(\d+) MHz", info.get("nvidia_smi", ""))
    return float(m[0]) if m else None


def ideal_ns(case: dict, clock_mhz: float | None) -> float | None:
    """Per-SM ns of one conversion at the hardware's limit (BENCHMARKS.md): for the shared path, its
    data-volume floor of wavefronts (128 B each, one per clock; the replicas the destination needs
    counted); for the shuffle path, its warp-wide shuffles (one per clock)."""
    v = case["variants"].get("llgen", {})
    if not clock_mhz or not v or not v.get("ideal_clocks"):
        return None
    return v["ideal_clocks"] / clock_mhz * 1e3


def write_report(report: dict, outdir: str) -> list[Path]:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    info = report["info"]
    clock = sm_clock_mhz(info)
    rows, flags, speedups = [], [], []
    for c in report["cases"]:
        v = c["variants"]
        me, tr = v.get("llgen", {}), v.get("triton", {})
        t_me, t_tr = me.get("loop_per_sm_ns"), tr.get("loop_per_sm_ns")
        ratio = t_tr / t_me if t_me and t_tr and t_me > 0 else None
        if ratio and ratio > 0:
            speedups.append(ratio)
        ideal = ideal_ns(c, clock)
        share = ideal / t_me if ideal and t_me and t_me > 0 else None
        for name, r in v.items():
            if name in ("shared", "shuffle") and r.get("loop_per_sm_ns") and t_me and r["loop_per_sm_ns"] < t_me * 0.97:
                flags.append(f"{c['id']}: the model picked {me.get('path')} but {name} ({r.get('path')}) measured "
                             f"{r['loop_per_sm_ns']:.1f} vs {t_me:.1f} ns")
        rows.append((c["id"], me.get("path", "-"), _f(t_me), _f(t_tr), _f(ratio, 2), _f(v.get("naive", {}).get("loop_per_sm_ns")),
                     _f(v.get("classic", {}).get("loop_per_sm_ns")), _f(share * 100 if share else None, 0),
                     _f(me.get("stream_ratio"), 3), _f(tr.get("stream_ratio"), 3), str(me.get("regs", "-")),
                     str(tr.get("regs", "-")), str(me.get("local_bytes", "-")), str(me.get("loop_correct", "-"))))
    gmean = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None
    lines = [
        "# llgen bench", "",
        (f"- device: {info.get('device')} ({info.get('sms')} SMs); nvidia-smi (driver, sm clock, max sm clock, mem clock): "
         f"{info.get('nvidia_smi')}"),
        f"- date: {info.get('date')} to {info.get('date_end')}",
        ("- LOOP: per-SM ns per conversion = (t(K=128) - t(K=64)) / (64 x 2 x tiles) x SMs with 32 CTAs per SM; "
         "medians of triton.testing.do_bench, ours and Triton's alike. STREAM: 1 GiB, A -> B -> A per tile, "
         "time over the same kernel's copy (no conversion)."),
        f"- geometric-mean LOOP speedup over Triton: {_f(gmean, 3)}",
        (f"- STREAM roofline: device-to-device copy {_f(info.get('d2d_copy_GBps'), 0)} GB/s; our copy kernel reaches "
         + ", ".join(f"{c['id']} {_f(100 * c['variants']['llgen']['copy_GBps'] / info['d2d_copy_GBps'], 0)}%"
                     for c in report["cases"] if c["variants"].get("llgen", {}).get("copy_GBps") and info.get("d2d_copy_GBps"))),
        "",
        ("| case | path | llgen ns | Triton ns | Triton/llgen | naive ns | classic ns | % of ideal | STREAM llgen | "
         "STREAM Triton | regs | Triton regs | local B | correct |"),
        "|" + "---|" * 14,
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "## Every variant (LOOP per-SM ns, latency ns, STREAM ratio, registers)", ""]
    for c in report["cases"]:
        for name, r in c["variants"].items():
            lines.append(f"- {c['id']} / {name}: path {r.get('path')}, LOOP {_f(r.get('loop_per_sm_ns'))}, "
                         f"lat {_f(r.get('loop_lat_ns'))}, STREAM {_f(r.get('stream_ratio'), 3)}, regs {r.get('regs')}"
                         + (f", error {r['error']}" if r.get("error") else ""))
    lines += ["", "## Wavefronts predicted per conversion (store / load / floor)", ""]
    for c in report["cases"]:
        for name, r in c["variants"].items():
            for tag, d in (r.get("wavefronts_pred") or {}).items():
                lines.append(f"- {c['id']} {name} {tag}: {d['st']} / {d['ld']} / {d['floor']}")
    lines += ["", "## Flags: the model's pick measured slower than an alternative", ""]
    lines += [f"- {f}" for f in flags] or ["- none"]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    write_json(report, str(out / "report.json"))
    paths = [out / "report.md", out / "report.json"]
    try:
        paths.append(_chart(report, out / "report.png"))
    except Exception as e:  # noqa: BLE001 - the chart is optional; say why it is missing
        (out / "report.md").write_text((out / "report.md").read_text() + f"\n(chart failed: {e!r})\n")
    return paths


def _chart(report: dict, path: Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = ["llgen", "triton", "naive", "classic"]
    cases = report["cases"]
    fig, ax = plt.subplots(figsize=(12, 4.5))
    width = 0.2
    for i, n in enumerate(names):
        vals = [c["variants"].get(n, {}).get("loop_per_sm_ns") or 0 for c in cases]
        ax.bar([j + i * width for j in range(len(cases))], vals, width, label=n)
    ax.set_xticks([j + 1.5 * width for j in range(len(cases))], [c["id"] for c in cases], rotation=30, ha="right")
    ax.set_ylabel("LOOP: ns per conversion per SM (lower is better)")
    ax.set_yscale("log")
    ax.legend()
    ax.set_title(f"llgen vs baselines on {report['info'].get('device')}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _f(x, nd: int = 1) -> str:
    return "-" if x is None else f"{x:.{nd}f}"
