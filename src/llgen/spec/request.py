"""Defaults from what the user already said. The warp count, the warp size and the target of a command come
from its options, the TTGIR module it reads (ttg.num-warps, ttg.threads-per-warp, ttg.target) and what its
layouts state (warpsPerCTA, threadsPerWarp, linear bases, and the families only some targets run); where
two of these disagree the error names both. What nobody said takes llgen's default: 4 warps, and sm_90
where it runs the layouts (else the one target that does, gfx942 among the AMD ones)."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.core.limits import check_threads
from llgen.core.target import DEFAULT_TARGET, FAMILY_TARGETS, TARGETS, TRITON_TARGETS, fitting, preferred, runs
from llgen.spec.facts import Facts

DEFAULT_WARPS = 4


@dataclass(frozen=True)
class Setting:
    warps: int
    lanes: int | None  # None: each layout's own warp size (only where no target is needed)
    target: str | None  # None where no target is needed
    inferred: str = ""  # how the layouts chose a target other than the default: "target gfx942, inferred from ..."

    def note(self, err: LlgenError) -> LlgenError:
        """``err`` with the inferred target named, so an error after the choice says what was chosen and why."""
        if not self.inferred:
            return err
        return LlgenError(f"{str(err).rstrip('.')} ({self.inferred}; pass --target to choose another).")


def resolve(
    facts: dict[str, Facts],
    *,
    warps: int | None = None,
    threads_per_warp: int | None = None,
    target: str | None = None,
    module=None,
    need_target: bool = True,
) -> Setting:
    """The setting of a command whose layouts have ``facts`` (keyed by the option that gave each, e.g.
    ``--src``), given its --warps, --threads-per-warp and --target (None: not given) and the TTGIR ``module``
    it reads (None: none)."""
    where = f"of {module.path}" if module is not None else ""
    warp_values = _given("--warps", warps) + _given(f"ttg.num-warps {where}", getattr(module, "num_warps", None))
    warp_values += [(f.warps.value, f"the {f.warps.source} of {role}") for role, f in facts.items() if f.warps]
    n_warps = _agree(warp_values, "warps") or DEFAULT_WARPS
    if n_warps & (n_warps - 1):
        source = next((s for v, s in warp_values if v == n_warps), "the warp count")
        raise LlgenError(f"{source} says {n_warps} warps, which is not a power of two.")
    lane_values = _given("--threads-per-warp", threads_per_warp)
    lane_values += _given(f"ttg.threads-per-warp {where}", getattr(module, "threads_per_warp", None))
    lane_values += [(f.lanes.value, f"the {f.lanes.source} of {role}") for role, f in facts.items() if f.lanes]
    chosen, inferred = _target(target, module), ""
    if chosen is not None:
        _check_families(facts, chosen)
        lanes = _agree([*lane_values, (TARGETS[chosen].lanes, chosen)], "threads per warp")
    elif need_target:
        lanes = _agree(lane_values, "threads per warp")
        chosen = _infer(facts, lanes, lane_values)
        inferred = _why(chosen, facts, lane_values) if chosen != DEFAULT_TARGET else ""
        lanes = TARGETS[chosen].lanes
    else:
        lanes = _agree(lane_values, "threads per warp")
    mfma = any("mfma" in f.families for f in facts.values())
    check_threads(n_warps, lanes or (64 if mfma else 32), f"a block of {chosen}" if chosen else "a block")
    return Setting(n_warps, lanes, chosen, inferred)


def _why(chosen: str, facts: dict[str, Facts], lane_values) -> str:
    """``target gfx942, inferred from the mfma layout of --dst`` (or from a stated warp size)."""
    for role, f in facts.items():
        for family in sorted(f.families):
            if family in FAMILY_TARGETS:
                return f"target {chosen}, inferred from the {family} layout of {role}"
    source = next((s for v, s in lane_values if v == TARGETS[chosen].lanes), "the layouts")
    return f"target {chosen}, inferred from {source}"


def _given(source: str, value) -> list[tuple[int, str]]:
    return [] if value is None else [(value, source.strip())]


def _agree(values: list[tuple[int, str]], what: str):
    """The one value every source gives (None: no source); two that differ are an error naming both."""
    for value, source in values[1:]:
        if value != values[0][0]:
            raise LlgenError(f"{values[0][1]} says {values[0][0]} {what} but {source} says {value}.")
    return values[0][0] if values else None


def _target(target: str | None, module) -> str | None:
    """--target, or the module's ttg.target; both given must agree."""
    triton = getattr(module, "target", None)
    if triton is None:
        return target
    mapped = TRITON_TARGETS.get(triton)
    if mapped is None:
        if target is None:
            raise LlgenError(
                f'ttg.target "{triton}" of {module.path} is not a target llgen emits for ({", ".join(TARGETS)}): '
                "pass --target to choose one."
            )
        return target
    if target is not None and target != mapped:
        raise LlgenError(f'--target says {target} but ttg.target "{triton}" of {module.path} says {mapped}.')
    return mapped


def _check_families(facts: dict[str, Facts], name: str) -> None:
    for role, f in facts.items():
        for family in sorted(f.families):
            if not runs(name, family):
                raise LlgenError(f"{family} layouts ({role}) do not run on {name}: {_needs(family)}.")


def _needs(family: str) -> str:
    names = FAMILY_TARGETS.get(family, tuple(TARGETS))
    if not names:
        return "they are RDNA's wave32 matrix layouts, and llgen emits for none of those GPUs"
    return f"they need {' or '.join(names)}"


def _one_of(family: str) -> str:
    return " or ".join(FAMILY_TARGETS.get(family, tuple(TARGETS)))


def _infer(facts: dict[str, Facts], lanes: int | None, lane_values) -> str:
    """The target the layouts imply: sm_90 where it fits, else the one that does (gfx942 among AMD's)."""
    for role, f in facts.items():
        for family in sorted(f.families):
            if not fitting([family], None):
                raise LlgenError(f"{family} layouts ({role}) run on no target llgen emits for: {_needs(family)}.")
    every = sorted({fam for f in facts.values() for fam in f.families})
    if not fitting(every, None):
        (ra, fa), (rb, fb) = _clash(facts)
        raise LlgenError(
            f"no target runs both the {fa} layout of {ra} and the {fb} layout of {rb}: "
            f"{fa} needs {_one_of(fa)}, {fb} needs {_one_of(fb)}."
        )
    names = fitting(every, lanes)
    if not names:
        source = next(s for v, s in lane_values if v == lanes)
        limits = [(role, fam) for role, f in facts.items() for fam in sorted(f.families) if fam in FAMILY_TARGETS]
        if not limits:
            raise LlgenError(f"{source} says {lanes} threads per warp, but llgen's targets have 32 or 64.")
        role, fam = limits[0]
        sizes = " or ".join(sorted({str(TARGETS[n].lanes) for n in fitting(every, None)}))
        raise LlgenError(
            f"{source} says {lanes} threads per warp, but the {fam} layout of {role} runs on {_one_of(fam)}, "
            f"whose warps have {sizes}."
        )
    return preferred(names)


def _clash(facts: dict[str, Facts]):
    """Two (role, family) pairs that no one target runs together."""
    pairs = [(role, fam) for role, f in facts.items() for fam in sorted(f.families)]
    for i, (ra, fa) in enumerate(pairs):
        for rb, fb in pairs[i + 1 :]:
            if not fitting([fa, fb], None):
                return (ra, fa), (rb, fb)
    return pairs[0], pairs[-1]
