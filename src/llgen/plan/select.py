"""Lane selects: the in-thread step of an endpoint whose accesses conflict only because of which register each lane
sends in an instruction. Q is D with register vectors added to the images of some lane bits (lane bases with several
tensor bits set), so a thread holds the same elements in both, in another register order: Q's register r of lane l
is D's register r ^ M(l), for a linear map M from lane bits to register-index masks. Each of M's rank stages is one
SEL a word, on the integer ALU pipe, beside the shared-memory pipe the access keeps busy.

Why: an 8-byte store of an f32 accumulator into an NVMMA 128B tile is served a half warp at a time, and the swizzle
maps two of the half warp's rows onto the same 32 bytes of banks: 4 wavefronts where 2 would do. Sending the next
column block from every other row moves those rows onto free banks. `lane_masks` finds M one lane bit at a time.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

from llgen.core import f2
from llgen.core.dtypes import DType
from llgen.core.layout import LinearLayout
from llgen.core.target import Target
from llgen.plan.cost import ALU_PER_CLK


@dataclass(frozen=True)
class LaneSelect:
    """src -> dst inside each thread: dst register r of lane l is src register r ^ M(l), where M(l) XORs the
    ``reg_mask`` of every stage (lane_mask, reg_mask) whose lane bits ``lane_mask`` have odd parity in l. M is its own
    inverse, so one map serves a store's D -> Q and a load's Q -> D."""

    src: LinearLayout
    dst: LinearLayout
    dtype: DType
    target: Target
    warps: int
    stages: tuple[tuple[int, int], ...]
    path = "select"
    out_copies = ()

    @cached_property
    def n_in(self) -> int:
        return 1 << self.src.in_bits("register")

    @property
    def n_out(self) -> int:
        return self.n_in

    def source(self, reg: int, lane: int) -> int:
        """The src register that dst register ``reg`` of lane ``lane`` takes."""
        for lanes, regs in self.stages:
            if (lane & lanes).bit_count() & 1:
                reg ^= regs
        return reg

    @property
    def selects(self) -> int:
        """SEL instructions a thread runs: one a 32-bit word a stage."""
        return len(self.stages) * max(1, self.n_in * self.dtype.bits // 32)

    def cycles(self) -> float:
        """The cost model's cycles for a CTA: the integer ALU pipe's (it binds before issue does)."""
        return self.warps * self.selects / ALU_PER_CLK

    def describe(self) -> str:
        parts = []
        for lanes, regs in self.stages:
            bits = [str(i) for i in range(self.target.lane_bits) if lanes >> i & 1]
            where = f"lane bit {bits[0]} is 1" if len(bits) == 1 else f"lane bits {' ^ '.join(bits)} have odd parity"
            parts.append(f"where {where}, registers r and r ^ {regs} trade places")
        return f"lane select in {len(self.stages)} stage(s), {self.selects} SEL a thread: " + "; ".join(parts)


def lane_masks(lane_offsets: list[int], reg_offsets: dict[int, int], elem_bytes: int, access_bytes: int, tgt: Target):
    """For each rank up to 3, the best M found: per lane bit of one phase (given by its element offset in S), the
    register-index mask whose element the lane sends with its own, so that a lane bit that would put a new granule on
    banks the ones before it use lands elsewhere. ``reg_offsets`` maps each register bit that may move (whole words
    outside the access's vector) to its offset. Yields (conflicting lane bits left, masks), one per rank; M's image
    is spanned by one or two combinations of one or two registers, or by three single registers."""
    unit = max(access_bytes, tgt.bank_bytes)  # a lane's granule: its vector, or the word lanes share

    def granule(o: int) -> int:
        return o * elem_bytes // unit

    def bank(o: int) -> int:
        return granule(o) % (tgt.wavefront_bytes // unit)

    def offset(mask: int) -> int:
        return f2.combine(mask >> low, [reg_offsets[k] if k in reg_offsets else 0 for k in range(low, top)])

    keys = sorted(reg_offsets)
    if not keys:
        return
    low, top = keys[0], keys[-1] + 1
    # one or two registers a combination: enough for every conflict seen, and the search stays small (rank 2 over
    # pairs of combinations) for tiles of hundreds of registers a thread
    combos = sorted({sum(1 << k for k in ks) for n in (1, 2) for ks in itertools.combinations(keys, n)})

    def assign(span: list[int]) -> tuple[int, list[int]]:
        grans: list[int] = []
        banks: list[int] = []
        left, masks = 0, []
        for o in lane_offsets:
            pick = next((m for m in span if not _conflicts(o ^ offset(m), grans, banks, granule, bank)), None)
            left += pick is None
            pick = pick or 0
            o ^= offset(pick)
            masks.append(pick)
            grans, banks = f2.reduce([*grans, granule(o)]), f2.reduce([*banks, bank(o)])
        return left, masks

    def spans(bases):
        for b in bases:
            yield sorted({f2.combine(x, list(b)) for x in range(1 << len(b))}, key=lambda m: (m.bit_count(), m))

    singles = [1 << k for k in keys]
    for rank, bases in (
        (1, ((c,) for c in combos)),
        (2, itertools.combinations(combos, 2)),
        (3, itertools.combinations(singles, 3)),
    ):
        best = min((assign(s) for s in spans(bases) if f2.rank(s) == rank), default=None, key=lambda r: r[0])
        if best is not None:
            yield best
        if best is not None and best[0] == 0:
            return


def _conflicts(o: int, grans: list[int], banks: list[int], granule, bank) -> bool:
    """A new granule on banks the phase already uses."""
    return not f2.contains(grans, granule(o)) and f2.contains(banks, bank(o))


def stages_of(masks: list[int]) -> tuple[tuple[int, int], ...]:
    """M, given per lane bit, as stages (lane_mask, reg_mask): one per vector of a basis of M's image."""
    basis = f2.reduce(m for m in masks if m)
    stages = []
    for j, b in enumerate(basis):
        lanes = sum(1 << i for i, m in enumerate(masks) if m and f2.solve(basis, m) >> j & 1)
        stages.append((lanes, b))
    return tuple(stages)


def with_lane_select(dist: LinearLayout, masks: list[int]) -> LinearLayout:
    """D with, for each lane bit i, D(register index ``masks[i]``) added to its image: Q of a lane select."""
    d = dist.to_dict()
    bases = d["bases"]

    def reg_vector(mask: int) -> list[int]:
        out = [0] * len(dist.shape)
        for k, vec in enumerate(bases["register"]):
            if mask >> k & 1:
                out = [a ^ b for a, b in zip(out, vec, strict=True)]
        return out

    lanes = []
    for i, vec in enumerate(bases["lane"]):
        m = masks[i] if i < len(masks) else 0
        lanes.append([a ^ b for a, b in zip(vec, reg_vector(m), strict=True)] if m else vec)
    return LinearLayout.from_bases({**bases, "lane": lanes}, list(d["out_dims"].items()))
