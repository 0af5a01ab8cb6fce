"""gpu-check's report: the summary table, the Nsight Compute rows and every part's section, written as Markdown and
JSON (runtime.report.write_report) to Settings.prefix and copied to $OUT when that is set.

``st`` below is the run's State (src/llgen/runtime/gpucheck_state.py), which calls save_report after every part; it is not
imported here, so the report stays below the state that writes it."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from llgen.runtime import endpoint_report
from llgen.runtime.gpucheck_settings import (
    DEFAULT_BUDGET,
    FAIL,
    INCOMPLETE,
    PASS,
    SKIP,
    expected_seconds,
    full_run_seconds,
    run_parts,
)
from llgen.runtime.ncu import INST_LD, INST_ST, LAUNCHES, WF_LD, WF_ST
from llgen.runtime.report import ReportHead, write_report


def ncu_section(rows: list[dict]) -> str:
    if not rows:
        return "Not run."
    head = (
        f"{'kernel':34} {'swizzle':24} {'st op':15} {'ld op':15} {'st pred':>7} {'st meas':>7} {'ld pred':>7} "
        f"{'ld meas':>7} {'st ins p/m':>11} {'ld ins p/m':>11} {'ldsm wf':>7} {'stsm wf':>7}  verdict"
    )
    out = [
        (
            f"Per kernel = per CTA = one tile (the debug kernel runs one CTA), launched {LAUNCHES} times; the row shows the "
            "first launch, and a verdict of `unstable` lists every launch. `st/ld meas` are "
            f"`{WF_ST}` and `{WF_LD}`; instructions are `{INST_ST}` / `{INST_LD}` (predicted/measured)."
        ),
        "",
        "```",
        head,
    ]

    def f(v):
        return "-" if v is None else f"{v:g}"

    for r in rows:
        out.append(
            f"{r['kernel'][:34]:34} {r['swizzle'][:24]:24} {r['st_op']:15} {r['ld_op']:15} {r['pred_st_wf']:>7} "
            f"{f(r['st_wf']):>7} {r['pred_ld_wf']:>7} {f(r['ld_wf']):>7} "
            f"{str(r['pred_st_instr']) + '/' + f(r['st_instr']):>11} {str(r['pred_ld_instr']) + '/' + f(r['ld_instr']):>11} "
            f"{f(r['ldsm_wf']):>7} {f(r['stsm_wf']):>7}  {r['verdict']}{' (' + r['note'] + ')' if r.get('note') else ''}"
        )
    out.append("```")
    return "\n".join(out)


def verdict(st) -> tuple[str, str]:
    """(FAIL, INCOMPLETE or PASS, one sentence): FAIL names the parts that found something wrong; INCOMPLETE the
    parts the budget cut short, and how long a run of every part takes at these settings."""
    parts = st.record["parts"]
    failed = [n for n, p in parts.items() if p["status"] == FAIL]
    unfinished = [n for n, p in parts.items() if p["status"] == INCOMPLETE]
    if failed:
        also = f"; {', '.join(unfinished)} not finished" if unfinished else ""
        return FAIL, f"{', '.join(failed)} found something wrong (or crashed){also}."
    if unfinished:
        need, budget = needed_seconds(st), st.args.budget
        return INCOMPLETE, (
            f"nothing wrong found, but {', '.join(unfinished)} did not finish in --budget {budget:g} s: every part at these "
            f"counts needs about {need} s here (--budget {need}, or two runs: --skip endpoints,endpoint-ncu then "
            "--skip correctness,ncu)."
        )
    return PASS, "every part that ran finished, and found nothing wrong."


def needed_seconds(st) -> int:
    """What a run of every part would take, from this run as far as it got: a finished part's own seconds; the
    correctness part's suite time plus its random pairs' time scaled to all of them; any other part cut short its
    expected time (gpucheck_settings.expected_seconds), at least what it already took. Never under
    full_run_seconds; with 5% and 10 s to spare, rounded up to 10 s."""
    expect, took = expected_seconds(st.args), 0.0
    for name in run_parts(st.args):
        p = st.record["parts"].get(name, {})
        spent = p.get("seconds", 0.0)
        if p.get("status") == SKIP:  # its tool is missing
            continue
        if p.get("status") in (PASS, FAIL):
            took += spent
        elif name == "correctness" and p.get("random_done"):
            took += p["suite_s"] + (spent - p["suite_s"]) * p["random_total"] / p["random_done"]
        else:
            took += max(expect[name], spent)
    return max(full_run_seconds(st.args), int(-(-(1.05 * took + 10) // 10) * 10))


def summary_lines(st) -> list[str]:
    """The parts' table (status, seconds taken of the seconds given, detail) and the verdict under it."""
    lines = [f"{'part':12} {'status':10} {'seconds':>9}  detail"]
    for name, p in st.record["parts"].items():
        took = f"{p['seconds']:.0f}/{p['slot_s']:.0f}" if "seconds" in p and "slot_s" in p else "-"
        lines.append(f"{name:12} {p['status']:10} {took:>9}  {p['detail'][:240]}")
    word, why = verdict(st)
    return [*lines, "", f"verdict: {word} - {why}"]


def budget_line(args) -> str:
    """What the budget covers: every part at these counts, or not (and what would)."""
    need = full_run_seconds(args)
    if args.budget >= need:
        return f"--budget {args.budget:g} s covers every part at these counts on an H100 or H200 (about {need} s)."
    default = " (the default)" if args.budget == DEFAULT_BUDGET else ""
    return (
        f"--budget {args.budget:g} s{default} is less than every part at these counts needs on an H100 or H200 (about "
        f"{need} s): each part gets its share, and a part cut short says 'not finished'."
    )


def save_report(st) -> None:
    rec = st.record
    results = st.suite_results + st.random_results
    sv = rec.get("suite_variants", {})
    sections = [
        ("Summary", "```\n" + "\n".join(summary_lines(st)) + "\n```"),
        (
            "Run",
            (
                f"`llgen gpu-check --random {st.args.random} --seed {st.args.seed} --tiles {st.args.tiles} "
                f"--runs {st.args.runs} --endpoints {st.args.endpoints} --budget {st.args.budget}`; {time.monotonic() - st.t0:.0f} s so far; "
                f"commit {rec.get('commit', '?')}. {budget_line(st.args)} Tools: {rec.get('tools', {})}."
            ),
        ),
        ("Shared-memory wavefronts (Nsight Compute)", ncu_section(rec.get("ncu_rows", []))),
        (
            "Shared-memory endpoints",
            endpoint_report.section(
                st.endpoint_results, rec.get("endpoints", {}).get("notes", []), rec.get("endpoints", {}).get("stopped", "")
            ),
        ),
        (
            "Endpoint wavefronts (Nsight Compute)",
            endpoint_report.ncu_section(rec.get("endpoint_ncu_rows", []))
            + "".join(f"\n\nNot measured: {x}." for x in rec.get("endpoint_ncu_left_out", [])),
        ),
        (
            "Suite variants",
            f"Run: {len(sv.get('run', []))}. Same plan as an earlier variant (not run again): "
            + (", ".join(f"{k} = {v}" for k, v in sv.get("same_plan", {}).items()) or "none")
            + ".\n\nCannot work: "
            + ("; ".join(sv.get("not_valid", [])) or "none")
            + ".",
        ),
        ("Random pairs", f"{len(st.random_results)} pairs (seed {st.args.seed}), by path: {rec.get('random_paths', {})}."),
    ]
    prefix = Path(st.args.prefix)
    md, js = write_report(
        prefix,
        head=ReportHead("llgen gpu-check: every element, sanitizers and bank counters on the GPU", st.device, rec.get("date")),
        results=results,
        sections=sections,
        extra={
            **{k: v for k, v in rec.items() if k not in ("title", "date")},
            "endpoint_results": [r.to_json() for r in st.endpoint_results],
        },
        limit=len(st.suite_results),
    )
    if os.environ.get("OUT"):
        for p in (md, js):
            dest = Path(os.environ["OUT"]) / p.name
            if dest.resolve() != Path(p).resolve():  # a report (-o) inside $OUT is already there
                shutil.copy(p, dest)
