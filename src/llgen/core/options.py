"""How to plan a conversion, beyond its two layouts, element type and target: one frozen object, built once (by the
command line or the Python API) and carried unchanged to the planner, the plan and its JSON."""

from __future__ import annotations

from dataclasses import dataclass, fields

from llgen.core.errors import LlgenError
from llgen.core.vocab import OBJECTIVES, PAIRINGS, PATHS, SWIZZLES


@dataclass(frozen=True)
class Options:
    path: str | None = None  # force one of PATHS (a path that cannot work is an error saying why); None: the pick
    objective: str = "throughput"  # pick the path for OBJECTIVES' throughput (many CTAs) or one CTA's latency
    smem_budget: int | None = None  # bytes of scratch the conversion may use; None: the target's per-CTA limit
    swizzle: str = "optimal"  # the shared layout: SWIZZLES (the other two are the baselines')
    matrix: bool = True  # ldmatrix / stmatrix tiles where they fit
    scalar: bool = False  # one element an access (the naive baseline)
    one_sided: bool = True  # one side's own register bits may widen its accesses (docs/design.md §6.1)
    pairing: str = "natural"  # PAIRINGS: 8- and 16-bit words as the layouts pair them, or free (plan/pairing.py)

    def __post_init__(self):
        for name, value, known in (
            ("path", self.path, PATHS),
            ("objective", self.objective, OBJECTIVES),
            ("pairing", self.pairing, PAIRINGS),
        ):
            if value is not None and value not in known:
                raise LlgenError(f"unknown {name} '{value}'; known: {', '.join(known)}.")
        if self.swizzle not in SWIZZLES:
            raise LlgenError(f"unknown swizzle '{self.swizzle}'; use {', '.join(SWIZZLES)}.")

    @staticmethod
    def of(**choices) -> Options:
        """Options from keyword choices, where None means "not given" (the default): what a command's flags say."""
        known = {f.name for f in fields(Options)}
        unknown = sorted(set(choices) - known)
        if unknown:
            raise LlgenError(f"unknown plan option '{unknown[0]}'; known: {', '.join(sorted(known))}.")
        return Options(**{k: v for k, v in choices.items() if v is not None})

    def given(self) -> dict:
        """The choices that differ from the defaults, by name: what a report or a header's key says was asked."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != f.default}


DEFAULTS = Options()  # the planner's own choice: no path forced, throughput, the target's scratch, the optimal swizzle
