"""A shared tile and both its endpoints: the store that fills it and the load that reads it, one plan
(emitted as one header holding both, with the tile's size and alignment)."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.plan.packed import byte_plan


@dataclass(frozen=True)
class TilePlan:
    """One shared tile and both its endpoints: a store from registers in A into S and a load from S into
    registers in B (llgen.plan.endpoint plans each), emitted as one header (llgen.emit.tile)."""

    kind = "tile"
    store: object  # the EndpointPlan of direction store (A -> S)
    load: object  # the EndpointPlan of direction load (S -> B)
    packed: object | None = None  # of a 4-bit type: the load's PackedPlan (llgen.plan.packed); store and load its bytes

    @property
    def target(self):
        return self.store.target

    @property
    def dtype(self):
        return self.store.dtype

    @property
    def warps(self) -> int:
        return self.store.warps

    @property
    def path(self) -> str:
        return "tile"

    @property
    def smem_bytes(self) -> int:
        return self.store.smem_bytes

    @property
    def smem_align(self) -> int:
        return max(self.store.smem_align, self.load.smem_align)

    @property
    def padding(self) -> list:
        """S's padding as lists of (interval, padding): part of the tile's identity beside S's map."""
        return _padding(self.store)

    def explain(self) -> str:
        return f"store (A -> S):\n{self.store.explain()}\n\nload (S -> B):\n{self.load.explain()}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "store": self.store.to_json(), "load": self.load.to_json()}


def tile_plan(store, load) -> TilePlan:
    """The tile of a store plan and a load plan of one shared layout, element type, target and warp count; an error
    naming what differs otherwise. Of a 4-bit type (llgen.plan.packed), the tile of their bytes: one S pairs both."""
    packed = load if load.kind == "packed" else None  # its registers, B, are the ones a tile header upcasts
    store, load = byte_plan(store), byte_plan(load)
    if (store.direction, load.direction) != ("store", "load"):
        raise LlgenError("a tile header takes a store plan and a load plan, in that order.")
    if store.dist.shape != load.dist.shape:
        raise LlgenError(f"the store's tile is {store.dist.shape} and the load's {load.dist.shape}: one tile has one shape.")
    same_s = store.shared == load.shared and _padding(store) == _padding(load)
    for what, ok in (
        ("shared layout", same_s),
        ("element type", store.dtype == load.dtype),
        ("target", store.target == load.target),
        ("warp count", store.warps == load.warps),
    ):
        if not ok:
            raise LlgenError(f"the store and the load of a tile must share one {what}.")
    return TilePlan(store, load, packed)


def _padding(plan) -> list:
    """S's padding as lists of (interval, padding): what the tile's two sides must agree on beside S's map."""
    return [list(p) for p in plan.buffer.intervals]
