"""The bench kernels' shape (docs/design.md §10): where the LOOP kernel keeps the scratch of a conversion and its way
back, how many one-warp groups share a STREAM/copy CTA, how many tiles each STREAM step loads, and the shared memory
each kernel takes. Decided here from the two plans; the emitter only prints it (emit/bench.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.plan.scratch import entry_barrier
from llgen.plan.shared import Barrier

MIN_WARPS_PER_SM = 8  # two a scheduler: fewer leave each scheduler one warp to hide a barrier or a load behind
# In one buffer, B -> A's first barrier waits until every warp has loaded its B: all of B's words are live there at
# once. Past this many words a thread (three quarters of the 255 registers ptxas may give one) that spilled:
# b2dotB_f32's 256 words of B took 255 registers and 40 bytes of stack in one buffer, 234 registers in two.
MAX_WORDS_AT_BARRIER = 192


@dataclass(frozen=True)
class LoopScratch:
    """The LOOP kernel's dynamic shared memory: ``bytes`` in all, A -> B's scratch at ``fwd_offset`` (B -> A's at 0).
    In one buffer each conversion names the other as the buffer's last user (the scratch rule, scratch.py); in two,
    each names itself where ``own_tags`` (warp-local plans), else nobody: the other conversion's CTA barrier stands
    between a buffer's last load and its next store."""

    bytes: int
    fwd_offset: int
    own_tags: bool = False

    @property
    def two_buffers(self) -> bool:
        return self.fwd_offset > 0


@dataclass(frozen=True)
class BenchShape:
    loop: LoopScratch  # LOOP's scratch
    groups: int  # copies of the layout's CTA side by side in one STREAM/copy CTA, each on its own tiles and scratch
    unroll: int  # tiles each STREAM/copy step loads before converting any
    stream_smem: int  # STREAM's dynamic shared memory


def scratch(plan) -> int:
    """The scratch a plan's kernels declare: its own, or its sm_80 fallback's where that is larger."""

    def own(p) -> int:
        return p.detail.scratch_bytes if p.path == "shared" else 0

    return max(own(plan), own(plan.fallback) if plan.fallback else 0)


def bench_shape(fwd, bwd, unroll: int | None = None) -> BenchShape:
    """The shape of the bench kernels of ``fwd`` and its way back ``bwd``; ``unroll`` overrides the tiles a STREAM
    step loads (the bench tries one and two for llgen's pick)."""
    return BenchShape(
        loop=loop_scratch(fwd, bwd),
        groups=stream_groups(fwd, bwd),
        unroll=unroll or stream_unroll(fwd),
        stream_smem=stream_smem(fwd, bwd),
    )


def loop_scratch(fwd, bwd) -> LoopScratch:
    """Where the LOOP kernel's A -> B and B -> A keep their scratch. In one buffer each conversion needs a barrier
    before its stores, since the other may still be reading. In two buffers it does not: the other conversion's
    barrier between its stores and its loads already stands between a buffer's last load and its next store, so
    each conversion saves a barrier. That holds when both synchronise the CTA and both fit in one CTA's shared
    memory. A warp barrier costs next to nothing, so two buffers would only cost registers where both plans are
    warp-local and each warp owns the same bytes both ways: those keep one buffer, __syncwarp before each store.
    Where a warp-local plan's warps own other bytes than the other plan's, one buffer would take the CTA's barrier
    before each store (the scratch rule, scratch.py): each gets its own buffer and follows itself, if they fit.
    A -> B's buffer goes after B -> A's, on a 128-byte boundary so its banks are unchanged: that order compiled to
    fewer registers than the other. The measurements are in bench/NOTES.md ("One
    barrier per conversion"). Two buffers must also leave an SM at least MIN_WARPS_PER_SM warps of such CTAs: with
    fewer, the CTAs lost cost more than the barrier saved (b2bT_f32's 2 x 64 KB held one 4-warp CTA an SM;
    bench/NOTES.md), unless one buffer would hold more than MAX_WORDS_AT_BARRIER words of B live at a
    barrier: then a spill costs more than the CTAs."""
    f, b = scratch(fwd), scratch(bwd)
    both_cta = fwd.barrier == Barrier.CTA and bwd.barrier == Barrier.CTA
    # warp-local plans whose warps own other bytes would need the CTA's barrier before each store in one buffer
    apart = Barrier.WARP in (fwd.barrier, bwd.barrier) and Barrier.CTA in (entry_barrier(fwd, bwd), entry_barrier(bwd, fwd))
    if f and b and (both_cta or apart):
        offset = -(-b // 128) * 128
        ctas = fwd.target.smem_per_cta // (offset + f)  # CTAs an SM holds by shared memory (one CTA's limit ~ the SM's)
        if ctas and (ctas * fwd.warps >= MIN_WARPS_PER_SM or (both_cta and _words(bwd) > MAX_WORDS_AT_BARRIER)):
            return LoopScratch(offset + f, offset, own_tags=not both_cta)
    return LoopScratch(max(f, b), 0)


def _words(bwd) -> int:
    """The 32-bit words of B a thread holds (B -> A's input registers, packed)."""
    return -(-bwd.n_in * bwd.dtype.bits // 32)


def stream_groups(fwd, bwd) -> int:
    """How many copies of the layout's CTA one STREAM/copy CTA runs side by side. An SM holds at most 32 CTAs, so
    one-warp CTAs fill only half its warp slots unless several share a CTA (bench/NOTES.md, probe 1). Only a
    one-warp conversion without a CTA barrier either way can share its CTA: each warp may then stop at its own last
    tile. The groups' scratch together must fit one CTA's shared memory."""
    if fwd.warps != 1 or Barrier.CTA in (fwd.barrier, bwd.barrier):
        return 1
    per = max(scratch(fwd), scratch(bwd))
    groups = 8
    while groups > 1 and groups * per > fwd.target.smem_per_cta:
        groups //= 2
    return groups


def stream_smem(fwd, bwd) -> int:
    """Dynamic shared memory of the STREAM kernel: every group's scratch (0 when neither way needs any)."""
    return stream_groups(fwd, bwd) * max(scratch(fwd), scratch(bwd))


def stream_unroll(fwd) -> int:
    """Tiles each STREAM/copy step loads before converting any: two for one-warp groups, else one."""
    return 2 if fwd.warps == 1 else 1
