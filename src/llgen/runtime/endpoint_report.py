"""The endpoints' sections of gpu-check's report (src/llgen/runtime/gpucheck_report.py): counts, a line per family, failures
and what was not run, and the endpoint kernels' Nsight Compute rows."""

from __future__ import annotations

from llgen.runtime.endpoint_cases import AMD_TARGET
from llgen.runtime.endpoint_gpucheck import EndpointResult


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
