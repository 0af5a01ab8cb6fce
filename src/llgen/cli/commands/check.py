"""``llgen check`` on a GPU (or --cpu threads): compile and run the emitted conversions of one pair, a suite, random
pairs or every distinct ttg.convert_layout of --ttgir, and compare every slot with NumPy, bit for bit."""

from __future__ import annotations

import sys

import click

from llgen.cli.commands.options import Flags, flags_asked, flags_pair, plan_options, whole_file
from llgen.core.errors import LlgenError
from llgen.plan.request import plan_endpoint, plan_pair


def check_command(flags: Flags) -> None:
    from llgen.runtime.check import CheckRuns
    from llgen.runtime.checkcmd import Checked, run_check  # llgen.runtime loads only where a command runs kernels

    if flags.report_prefix is not None and not flags.report_prefix.strip():
        raise LlgenError("--report is empty: give a path prefix for PREFIX.md and PREFIX.json.")

    options = plan_options(flags.path_, flags.smem_budget, flags.objective, flags.pairing)
    how = CheckRuns(tiles=flags.tiles, runs=flags.runs)
    if flags.suite or flags.n_random:
        # a suite's and the random pairs' own paths stay theirs: only the budget and the objective apply to every case
        checked = Checked(
            None,
            flags.suite,
            flags.n_random,
            flags.seed,
            plan_options(None, flags.smem_budget, flags.objective, flags.pairing).given(),
        )
        code = run_check(checked, target=flags.target or "sm_90", how=how, cpu=flags.cpu, report=flags.report_prefix)
    elif whole_file(flags.ttgir):
        from llgen.cli.commands.ttgir import check_plans

        plans, code = check_plans(flags.ttgir, flags.allow_skips, flags_asked(flags), options)
        for label, p in plans:
            click.echo(f"{label}:")
            report = f"{flags.report_prefix}-{label}" if flags.report_prefix else None
            if p.path in ("local_store", "local_load"):  # an endpoint's plan paths (src/llgen/runtime/endpointcheck.py)
                from llgen.runtime.endpointcheck import run_endpoint_check

                code = max(code, run_endpoint_check(p, runs=flags.runs, cpu=flags.cpu, report=report))
            else:
                code = max(code, run_check(Checked(p), target=p.target.name, how=how, cpu=flags.cpu, report=report))
    else:
        pair = flags_pair(flags, shared_ok=True)
        if pair.shared:  # an endpoint, a store or a load: S's bytes or D's slots (src/llgen/runtime/endpointcheck.py)
            from llgen.runtime.endpointcheck import run_endpoint_check

            code = run_endpoint_check(plan_endpoint(pair, options), runs=flags.runs, cpu=flags.cpu, report=flags.report_prefix)
        else:
            p = plan_pair(pair, options)
            code = run_check(Checked(p), target=p.target.name, how=how, cpu=flags.cpu, report=flags.report_prefix)
    if code:
        sys.exit(code)
