"""The scratch rule: when a conversion may store into a shared buffer that an earlier one used.

A conversion may store into its scratch only once no thread of its group can still access the words it stores to.
Its first barrier makes sure of that, and which barrier it must be depends on who used the buffer last:

- nobody since the caller's own barrier (a fresh buffer): none;
- a warp-local conversion whose warps own the same bytes of the buffer as this one's (the same *warp regions*):
  `__syncwarp`, since each warp then only overwrites what it read itself;
- anything else (a conversion that is not warp-local, a warp-local one with other regions, a shared-memory
  endpoint, the caller's own use): the group's barrier.

The regions of a warp-local plan are a linear map from the scratch's byte offset to the warp that stores and loads
that byte, the same in every round: ``rows[j]`` is the mask of byte-offset bits whose parity is bit j of that warp.
Two plans agree where their maps agree on the offsets both use, the low ``min(bits)`` bits. The header spells the
map as its `Scratch` tag; `convert(in, out, smem, Earlier::scratch)` compares the tags at compile time.
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.plan.hw import Hw
from llgen.plan.shared import Barrier, writer_warp


@dataclass(frozen=True)
class WarpRegions:
    """Which warp of the group owns each byte of a warp-local plan's scratch: bit j of the owner of byte offset o
    is the parity of ``o & rows[j]``, for o below ``1 << bits``."""

    bits: int
    rows: tuple[int, ...]

    def owner(self, byte: int) -> int:
        return sum(1 << j for j, r in enumerate(self.rows) if (byte & r).bit_count() & 1)

    def agrees(self, other: WarpRegions) -> bool:
        """Whether no byte that both use belongs to different warps in the two plans."""
        low = (1 << min(self.bits, other.bits)) - 1
        return len(self.rows) == len(other.rows) and all(
            (r & low) == (s & low) for r, s in zip(self.rows, other.rows, strict=True)
        )


def warp_regions(plan) -> WarpRegions | None:
    """The warp regions of a plan's scratch: None unless the plan is warp-local (it synchronises with __syncwarp)."""
    if plan.barrier != Barrier.WARP:
        return None
    d, a = plan.detail, Hw.of(plan.src)
    # a round vector that changed warps would hand one warp's bytes to another between rounds, behind __syncwarp
    assert all(writer_warp(a, v) == 0 for v in d.round_vectors), "a warp-local plan's rounds keep each byte's warp"
    shift = plan.dtype.bytes.bit_length() - 1  # element offset bit i is byte-offset bit i + shift
    owners = [writer_warp(a, v) for v in d.offset_vectors()]
    rows = tuple(sum(1 << (i + shift) for i, w in enumerate(owners) if w >> j & 1) for j in range(len(a.warp)))
    return WarpRegions(d.scratch_bytes.bit_length() - 1, rows)


def entry_barrier(plan, earlier) -> Barrier:
    """The barrier ``plan`` needs before its first store into a buffer whose last user was ``earlier``: a plan, or
    None for anything else (the group's barrier). A plan without scratch needs none."""
    if not plan.uses_shared:
        return Barrier.NONE
    mine = warp_regions(plan)
    theirs = warp_regions(earlier) if earlier is not None and earlier.uses_shared else None
    if mine is not None and theirs is not None and mine.agrees(theirs):
        return Barrier.WARP
    return Barrier.CTA
