"""Free pairing: which of a thread's elements share a 32-bit word, chosen so that no word is rebuilt on the way.

Elements narrower than a word travel packed, 32 // bits to a word. By default a layout's words are its natural
ones, registers 4k .. 4k + 3 (8-bit) or 2k, 2k + 1 (16-bit), as an MMA fragment needs. Where A's word bits and B's
are different tensor bits, every conversion between them rebuilds words with byte permutes (PRMT) on one side or
both, and a loop that converts A -> B, works element-wise and converts back pays those permutes twice a step.

With pairing "free" the planner holds both sides' registers in another order: the tensor bits that are register
bits of A and of B, lowest row-major index first, become register bits 0 .. k - 1 of both (k = 1 for 16-bit
elements, 2 for 8-bit). A word then holds the same elements on both sides, so a conversion moves whole words; an
element-wise step on words (HADD2, a byte add) does not care which elements share one. The rule depends only on
the pair {A, B}, so A -> B and B -> A agree on B's words and a round trip needs no permute between the two.

It is a renaming of registers, nothing else: the plan is an ordinary plan of the reordered layouts A' and B', and
the header's layout lines, coord_a/coord_b, load_a and store_b all speak of A' and B'.
"""

from __future__ import annotations

from llgen.core.dtypes import DType
from llgen.core.layout import LinearLayout


def word_bits(dt: DType) -> int:
    """How many register bits pick an element within a 32-bit word: 1 for 16-bit elements, 2 for 8-bit, else 0
    (a wider element fills its registers; 4-bit pairs are the packed plan's own)."""
    return {8: 2, 16: 1}.get(dt.bits, 0)


def free_order(a: LinearLayout, b: LinearLayout, dt: DType) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """A's and B's register bases in the order free pairing holds them (register bit j of A' is bit order[j] of A),
    or None where the natural words already agree or too few tensor bits are register bits of both."""
    k = word_bits(dt)
    ra, rb = a.flat_cols("register"), b.flat_cols("register")
    if not k or ra[:k] == rb[:k]:
        return None
    common = sorted(c for c in set(ra) & set(rb) if c and ra.count(c) == 1 and rb.count(c) == 1)
    if len(common) < k:
        return None
    pick = common[:k]
    return _order(ra, pick), _order(rb, pick)


def _order(cols: tuple[int, ...], first: list[int]) -> tuple[int, ...]:
    """Register bit indices: those whose images are ``first``, in that order, then the rest as they were."""
    head = [cols.index(c) for c in first]
    return (*head, *(i for i in range(len(cols)) if i not in head))


def reordered(lay: LinearLayout, order: tuple[int, ...]) -> LinearLayout:
    """``lay`` with its register bases in ``order`` (register bit j of the result is bit order[j] of lay)."""
    d = lay.to_dict()
    regs = d["bases"]["register"]
    d["bases"]["register"] = [regs[i] for i in order]
    return LinearLayout.from_dict(d)
