"""What `llgen check` and `make gpu-check` run: each suite case by every valid path, and random pairs.

A suite case runs by the planner's pick and by each forced variant that can work (llgen.plan.variants.CHECKED:
shuffle; shared with the optimal swizzle, ldmatrix/stmatrix allowed; shared unswizzled; shared with the classic
XOR swizzle; shared with plain vector accesses only; the naive baseline, unswizzled with one element per access).
A variant whose plan equals an earlier one's is listed with ``same_as`` and not run again.
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.cases.suite import suite_name
from llgen.core.errors import LlgenError
from llgen.plan import plan_conversion
from llgen.plan.variants import CHECKED, plan_key
from llgen.runtime.check import kernel_name


@dataclass(frozen=True)
class Job:
    label: str  # case/variant, or the random pair's label
    group: str  # "suite" or "random"
    case: str
    variant: str
    plan: object
    same_as: str | None = None  # label of an earlier job with the same plan

    @property
    def name(self) -> str:
        return kernel_name(self.label)


def suite_jobs(
    suite: str = "core", target: str = "sm_90", variants: str = "all", options: dict | None = None
) -> tuple[list[Job], list[str]]:
    """(jobs, skipped): every case of ``suite`` by each variant; ``skipped`` names variants that cannot work.
    ``options`` go to every plan (e.g. smem_budget)."""
    from llgen.cases.suite import suite as suite_cases

    if suite_name(suite) == "endpoint":
        raise LlgenError("the endpoint suite is for llgen bench only; check an endpoint of it with llgen check --src P --dst S.")
    jobs, skipped = [], []
    for case in suite_cases(suite):
        seen: dict = {}
        for vname, kw in CHECKED if variants == "all" else CHECKED[:1]:
            label = f"{case.id}/{vname}"
            try:
                plan = plan_conversion(case.src, case.dst, case.dtype, target, **kw, **(options or {}))
            except LlgenError as e:
                skipped.append(f"{label}: {e}")
                continue
            if kw.get("path") and plan.path != kw["path"]:
                skipped.append(f"{label}: the planner gave {plan.path}")
                continue
            key = plan_key(plan)
            jobs.append(Job(label, "suite", case.id, vname, plan, seen.get(key)))
            seen.setdefault(key, label)
    return jobs, skipped


def random_jobs(n: int, seed: int, target: str = "sm_90", **options) -> list[Job]:
    from llgen.randlayout import random_cases

    return [Job(label, "random", label, "random", plan) for label, plan in random_cases(n, seed, target, **options)]


def single_job(plan, label: str = "case") -> Job:
    return Job(label, "single", label, plan.path, plan)


def gather_plans(target: str = "sm_90") -> dict:
    """Gather kernels by name for the checks: the suite's gather_f32 (32-lane targets), a warp-local axis by
    shuffles and through shared memory, an axis in registers (f16), and 4x16-lane tiles along each axis in
    f64, f32, bf16 and i8 (along axis 0 the data crosses warps)."""
    from llgen.cases.suite import gather_cases
    from llgen.core.target import target as to_target
    from llgen.layouts import blocked
    from llgen.plan.gather import plan_gather

    lanes = to_target(target).lanes
    mixed = blocked([1, 4], [lanes // 16, 16], [4, 1], [1, 0], (32, 64))
    local = blocked([1, 1], [1, lanes], [4, 1], [1, 0], (32, lanes))
    plans = {c.id: plan_gather(c.layout, c.axis, c.dtype, target) for c in gather_cases() if c.layout.in_size("lane") == lanes}
    plans.update(
        {
            "g_local_f32": plan_gather(local, 1, "f32", target),
            "g_local_shared_f32": plan_gather(local, 1, "f32", target, path="shared"),
            "g_regs_f16": plan_gather(blocked([1, 32], [lanes, 1], [4, 1], [1, 0], (4 * lanes, 32)), 1, "f16", target),
        }
    )
    for dt in ("f64", "f32", "bf16", "i8"):
        plans[f"g_mixed_{dt}"] = plan_gather(mixed, 1, dt, target)
        plans[f"g_cross_{dt}"] = plan_gather(mixed, 0, dt, target)
    return plans


def ncu_jobs(n_random: int, seed: int, ncu_random: int, target: str = "sm_90") -> list[Job]:
    """What gpu-check measures under Nsight Compute: every distinct shared-memory plan of the suites, then the first
    ``ncu_random`` shared-memory plans among the random pairs."""
    suite = [
        j
        for name in ("core", "regressions")
        for j in suite_jobs(name, target)[0]
        if j.same_as is None and j.plan.path == "shared"
    ]
    rand = [j for j in random_jobs(n_random, seed, target) if j.plan.path == "shared"][:ncu_random]
    return suite + rand


def ncu_plans(n_random: str, seed: str, ncu_random: str, target: str = "sm_90") -> list[tuple[str, object]]:
    """`ncu_jobs` as (kernel name, plan), for runtime.ncu's worker (its arguments arrive as strings)."""
    return [(j.name, j.plan) for j in ncu_jobs(int(n_random), int(seed), int(ncu_random), target)]
