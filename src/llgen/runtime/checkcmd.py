"""The body of `llgen check`: build the jobs, run them with a progress bar, print a summary table and the
first bad slot, optionally write a report. Returns the exit status (1 on any mismatch or error)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import click

from llgen.runtime.cases import random_jobs, single_job, suite_jobs
from llgen.runtime.check import Batching, CheckRuns, check_many

DEFAULT_RUNS, DEFAULT_BATCHING = CheckRuns(), Batching()  # one run of 1000 tiles a kernel, 16 kernels a source


@dataclass(frozen=True)
class Checked:
    """What `llgen check` checks: the one ``plan``, or a suite's variants and ``n_random`` random pairs drawn from
    ``seed``, each of those planned with ``plan_options`` (e.g. smem_budget; their own paths stay theirs)."""

    plan: object = None
    suite: str | None = None
    n_random: int = 0
    seed: int = 0
    plan_options: dict | None = None


def collect(checked: Checked, target: str = "sm_90"):
    """(jobs to run, notes): the suite's variants (duplicates dropped), random pairs, or the one plan."""
    jobs, notes = [], []
    if checked.suite:
        sj, skipped = suite_jobs(checked.suite, target, options=checked.plan_options)
        jobs += [j for j in sj if j.same_as is None]
        notes += [f"{j.label}: same plan as {j.same_as}, not run again" for j in sj if j.same_as]
        notes += [f"{s} (not run)" for s in skipped]
    if checked.n_random:
        jobs += random_jobs(checked.n_random, checked.seed, target, **(checked.plan_options or {}))
    if not checked.suite and not checked.n_random and checked.plan is not None:
        plan = checked.plan
        jobs.append(single_job(plan, f"{plan.path}_{plan.dtype.name}"))
    return jobs, notes


def run_check(
    checked: Checked,
    *,
    target: str = "sm_90",
    how: CheckRuns = DEFAULT_RUNS,
    batching: Batching = DEFAULT_BATCHING,
    cpu: bool = False,
    report: str | None = None,
) -> int:
    """Check ``checked`` on ``target``, each kernel run as ``how`` says; ``report``: the prefix of PREFIX.md and
    PREFIX.json. ``cpu``: run the emitted text on CPU threads (llgen.runtime.host) instead of a GPU, the same checks,
    ldmatrix and stmatrix emulated warp by warp; a source the CPU cannot run is an LlgenError (exit 2), never a
    kernel left out."""
    from llgen.runtime.compile import device
    from llgen.runtime.report import ReportHead, counts, first_failures, now, table, write_report

    if cpu:
        from llgen.runtime import host

        dev = host.cpu_device(target)
    else:
        dev = device(target)  # RuntimeUnavailable (exit 2, one sentence) before anything is planned to run
    jobs, notes = collect(checked, target)
    if cpu:
        how = replace(how, tiles=min(how.tiles, host.MAX_TILES))
    date = now()
    click.echo(f"device: {dev.name} ({dev.arch}, {dev.sms} SMs), driver {dev.driver}; {date}; {len(jobs)} kernels")
    with click.progressbar(length=len(jobs), label="checking", show_pos=True) as bar:
        results = check_many(
            [(j.label, j.plan) for j in jobs],
            how=how,
            batching=batching,
            sms=dev.sms,
            on_result=lambda _: bar.update(1),
            compiler=host.compile if cpu else None,
        )
    limit = None if len(results) <= 60 else 40
    for row in table(results, limit=limit):
        click.echo(row)
    c = counts(results)
    click.echo(
        f"{c['kernels']} kernels: {c['slot_mismatches']} slot mismatches over {c['slots_compared']} slots "
        f"({c['replica_slots_compared']} replicas), {c['element_mismatches']} output mismatches over "
        f"{c['elements_compared']} elements, {c['errors']} errors"
    )
    for line in first_failures(results, 5):
        click.echo(line, err=True)
    if report:
        sections = [("Not run", "\n".join(f"- {n}" for n in notes))] if notes else []
        md, js = write_report(
            report,
            head=ReportHead("llgen check", dev.to_json(), date),
            results=results,
            sections=sections,
            extra={"suite": checked.suite, "random": checked.n_random, "seed": checked.seed, "target": target},
        )
        click.echo(f"wrote {md} and {js}", err=True)
    return 0 if c["failed"] == 0 else 1
