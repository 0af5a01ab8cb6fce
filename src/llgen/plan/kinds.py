"""The one interface every plan kind implements, so that emit, check and bench take any plan alike: its ``kind`` (one
of llgen.core.vocab.PLAN_KINDS, which names the emitter that spells it), where it runs, its path, and itself in
words (``explain``) and as JSON (``to_json``). The kinds: llgen.plan.Plan (a conversion), llgen.plan.endpoint's
EndpointPlan (a shared-memory endpoint: a store or a load), llgen.plan.tile's TilePlan (both endpoints of one shared tile) and
llgen.plan.gather's GatherPlan."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from llgen.core.dtypes import DType
from llgen.core.target import Target


@runtime_checkable
class PlanKind(Protocol):
    kind: str

    @property
    def target(self) -> Target: ...

    @property
    def dtype(self) -> DType: ...

    @property
    def warps(self) -> int: ...

    @property
    def path(self) -> str: ...

    def explain(self) -> str: ...

    def to_json(self) -> dict: ...
