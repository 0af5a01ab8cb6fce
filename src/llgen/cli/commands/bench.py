"""``llgen bench`` on a GPU: time llgen's conversions (a suite, one pair, or every distinct ttg.convert_layout of
--ttgir) against Triton, naive and classic baselines and write the report; ``bench merge`` joins the JSON of several
runs into one report, ``bench calibrate`` writes the cost model's calibration table from one."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from llgen.cli.commands.options import Flags, flags_asked, flags_pair, given, plan_options, said_byte_plan, whole_file
from llgen.core.errors import LlgenError
from llgen.plan.request import plan_pair
from llgen.spec.module import read_ttgir

MEASURES = ("loop", "stream", "wavefronts", "gather")


def bench_command(flags: Flags) -> None:
    meas = [m.strip() for m in flags.measures.split(",") if m.strip()]
    if set(meas) - set(MEASURES):
        raise LlgenError(f"unknown measure(s) {sorted(set(meas) - set(MEASURES))}; use {', '.join(MEASURES)}.")
    if not flags.out.strip():
        raise LlgenError("-o is empty: give a folder for the report, or FILE.json.")
    if flags.suite == "mixed":  # its own LOOP form, three paths a case (llgen.runtime.bench.mixed)
        _mixed(flags.out, flags.rep, flags.shard, flags.case_ids)
        return
    from llgen.runtime.bench.run import parse_shard, select_cases

    parts = parse_shard(flags.shard) if flags.shard else None
    options = plan_options(None, flags.smem_budget, flags.objective, flags.pairing)  # bench measures every path
    skip_code = 0
    if flags.suite is not None:
        from llgen.cases.suite import suite as suite_cases

        cases, tgt = select_cases(suite_cases(flags.suite), flags.case_ids), flags.target or "sm_90"
    elif whole_file(flags.ttgir):
        from llgen.cli.commands.ttgir import bench_cases
        from llgen.runtime.compile import device

        # no GPU runtime: one line of error before the file's ops are planned and their skips listed
        hip = (flags.target or "").startswith("gfx") or any((m.target or "").startswith("hip") for m in read_ttgir(flags.ttgir))
        device("gfx942" if hip else "sm_90")
        cases, tgt, skip_code = bench_cases(flags.ttgir, flags.allow_skips, flags_asked(flags), options)
    else:
        pair = flags_pair(flags, shared_ok=True)
        case, tgt = custom_case(pair, (flags.src, flags.dst), options)
        cases = [case]
    from llgen.cases.suite_endpoint import EndpointSuiteCase

    if any(isinstance(c, EndpointSuiteCase) for c in cases):  # its LOOP through the fixed shared layout is all it measures
        if given("measures") and meas != ["loop"]:
            raise LlgenError(f"a shared-memory endpoint's bench measures loop only, not {','.join(meas)}.")
        meas = ["loop"]
    from llgen.runtime.bench.report import write_json, write_report
    from llgen.runtime.bench.run import CaseRun
    from llgen.runtime.bench.run import run as run_bench

    to_json = flags.out.endswith(".json")
    how = CaseRun(
        tgt,
        tuple(meas),
        flags.rep,
        not flags.no_triton,
        log=lambda m: click.echo(m, err=True),
        options=options.given(),
        baselines=flags.suite in (None, "core"),  # the naive and classic kernels are core's reference points
    )
    report = run_bench(
        cases,
        how,
        suite=flags.suite,
        shard=parts,
        time_budget_s=flags.time_budget,
        on_case=(lambda r: write_json(r, flags.out)) if to_json else None,
    )
    if to_json:
        write_json(report, flags.out)
        click.echo(flags.out)
    else:
        for p in write_report(report, flags.out):
            click.echo(str(p))
    exit_if_wrong(report)
    if skip_code:
        sys.exit(skip_code)


def exit_if_wrong(report: dict) -> None:
    """A wrong result is a failure of the run, never only a line under Flags: name them and exit 1."""
    from llgen.runtime.bench.report import wrong_results

    wrong = wrong_results(report)
    if wrong:
        click.echo(f"llgen bench: {len(wrong)} kernel(s) gave wrong results: {', '.join(wrong[:8])}", err=True)
        sys.exit(1)


def custom_case(pair, texts: tuple[str, str], options) -> tuple:
    """(case, target) of one --src/--dst pair (``texts``: the two specs as given): a conversion's Case, or for a
    shared-memory endpoint (a store or a load) the endpoint suite's EndpointSuiteCase whose register layout both
    stores and loads (P = Q)."""
    src, dst = texts
    if pair.shared:
        from llgen.cases.suite_endpoint import EndpointSuiteCase

        if pair.dtype.sub_byte:
            raise LlgenError(
                f"llgen bench times shared-memory endpoints of whole-byte types, not {pair.dtype.name}: its endpoint is the "
                "8-bit endpoint of its bytes, whose layouts `llgen plan --json` prints (bytes.distributed, bytes.shared)."
            )

        dist, spec = (pair.src, dst) if pair.shared == "dst" else (pair.dst, src)
        return EndpointSuiteCase("custom", pair.dtype.name, tuple(dist.shape), pair.warps, dist, spec, dist), pair.target
    from llgen.cases.suite import Case

    p = said_byte_plan(plan_pair(pair, options), " Timed: that 8-bit conversion.")  # beside Triton's of the bytes
    return Case("custom", p.dtype.name, p.src.shape, p.warps, p.src, p.dst), p.target.name


def merge_command(outdir, parts) -> None:
    from llgen.runtime.bench.merge import merge_mixed, merge_reports, read_reports
    from llgen.runtime.bench.report import write_report

    reports = read_reports(parts)
    if any("paths" in c for r in reports for c in r.get("cases", [])):  # the mixed suite's shards
        merged = merge_mixed(reports)
        _write_mixed(merged, outdir, "mixed")
        _exit_if_mixed_wrong(merged)
        return
    merged = merge_reports(reports)
    for p in write_report(merged, outdir):
        click.echo(str(p))
    exit_if_wrong(merged)


def calibrate_command(report, out) -> None:
    from llgen.runtime.bench.calibration import write_table

    try:
        data = json.loads(Path(report).read_text())
    except ValueError as e:
        raise LlgenError(f"{report} is not a bench report: {e}.") from None
    click.echo(write_table(data, out))


def _mixed(out: str, rep: int, shard: str | None, case_ids: str | None = None) -> None:
    """``llgen bench --suite mixed [--shard I/N] [--cases A,B] -o DIR|FILE.json``: the report (DIR/mixed.json and
    .md, or mixed-I-of-N for a shard), or exit 1 where a path is not exact."""
    from llgen.cases.mixed import CASES
    from llgen.runtime.bench.mixed import run_suite, table
    from llgen.runtime.bench.run import parse_shard
    from llgen.runtime.compile import device
    from llgen.runtime.report import now

    i, n = parse_shard(shard) if shard else (1, 1)
    cases = CASES[i - 1 :: n]
    if case_ids:
        want = [c.strip() for c in case_ids.split(",") if c.strip()]
        unknown = sorted(set(want) - {c.id for c in CASES})
        if unknown:
            raise LlgenError(f"--cases: {', '.join(unknown)} is not a case of the mixed suite.")
        cases = [c for c in cases if c.id in want]
    device("sm_90")  # no GPU runtime: one sentence, exit 2
    report = run_suite(cases, log=lambda m: click.echo(m, err=True), rep=rep)
    report |= {"shard": f"{i}/{n}", "date": now(), "commit": os.environ.get("LLGEN_COMMIT", "?")}
    if out.endswith(".json"):
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(report, indent=1) + "\n")
        click.echo(table(report))
    else:
        _write_mixed(report, out, "mixed" if n == 1 else f"mixed-{i}-of-{n}")
    _exit_if_mixed_wrong(report)


def _write_mixed(report: dict, outdir: str, stem: str) -> None:
    from llgen.runtime.bench.mixed import table

    path = Path(outdir)
    path.mkdir(parents=True, exist_ok=True)
    (path / f"{stem}.json").write_text(json.dumps(report, indent=1) + "\n")
    (path / f"{stem}.md").write_text(table(report))
    click.echo(table(report))


def _exit_if_mixed_wrong(report: dict) -> None:
    bad = [f"{c['id']}/{n}" for c in report["cases"] for n, r in c["paths"].items() if r.get("exact") is False]
    if bad:
        click.echo(f"llgen bench: {len(bad)} kernel(s) gave wrong results: {', '.join(bad[:8])}", err=True)
        sys.exit(1)
