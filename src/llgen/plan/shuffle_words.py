"""How a shuffle plan's 32-bit words are built and placed (docs/design.md §4.5, words and selects).

A thread's class is the pair (s, y): the lane-dependent parts of the register it sends and of the register it
fills (``send_sel`` and ``recv_sel``; the same in every round). Every word the code computes, a word a round
sends or a word of B, is, for each class, four bytes of source words: A's registers as 32-bit words, or the
words received in a round. Per word, the cheapest form that holds in every class:

- ``copy``: one source word, whole, the same in every class (no instruction);
- ``select``: one whole source word per class: a tree of SELs over the class bits, whose subtrees words share
  (m SELs a word where m class bits permute m candidates, as in Triton's lowering, not 2^m - 1);
- ``prmt``: at most two source words hold every class's bytes: one byte permute whose selector is a per-thread
  constant (PRMT on NVIDIA, as Triton's warp-local lowering does; v_perm_b32 on AMD);
- ``join``: where every class takes its bytes from at most two source words, one byte permute whose two operands
  are select trees over the class bits (``operands``) and whose selector is a per-thread constant; else each
  class's word on its own (a byte permute per further source word), then a select among the classes.

A local round (a thread reads its own registers) sends nothing: its elements are read in place where B's words
are assembled, so it costs no select of its own; or, where that takes fewer instructions (``local_words``), it builds
the word it would send, as the pre-shuffle selects of Triton's lowering do, and B's words take that word as a received
one: with two class bits or more B's select trees share more that way, and with one, a B word that would permute a
selected operand with a kept A word becomes a select of two whole words (wl1_spt1_to_spt16_f16's B -> A: 160 -> 128
SEL/PRMT a thread, Triton's count). A payload shorter than a word may go as the whole A word that holds
it (``whole_sends``), each receiver picking its bytes where its sender's class put them. ``assemble`` builds each
form that applies and keeps the one of fewest instructions. The emitter spells these words; the cost model counts
them (tests/test_shuffle_vs_triton.py holds them to Triton's SASS).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING

from llgen.core import f2

if TYPE_CHECKING:
    from llgen.plan.shuffle_round import ShuffleRound

Src = tuple  # ("a", w): A's 32-bit word w; ("x", r, p): word p of what round r received
Byte = tuple  # (Src, byte 0..3)


@dataclass(frozen=True)
class Word:
    """One 32-bit word the code computes: for each class, its four byte sources (None where any byte will do)."""

    picks: tuple[tuple[Byte | None, ...], ...]

    def sources(self) -> list[Src]:
        """The distinct source words, in order of first use."""
        out: list[Src] = []
        for pick in self.picks:
            out += [s for s in pick_sources(pick) if s not in out]
        return out

    def whole(self, c: int) -> Src | None:
        """Class c's source word where the word is that word, byte for byte (None where it is not)."""
        return self._wholes[c]

    @cached_property
    def _wholes(self) -> tuple[Src | None, ...]:
        return tuple(whole_word(p) for p in self.picks)

    def kind(self) -> str:
        return self._kind

    @cached_property
    def _kind(self) -> str:
        srcs = self.sources()
        if not srcs:
            return "zero"
        wholes = self._wholes
        if all(w is not None for w in wholes):
            return "copy" if len(set(wholes)) == 1 else "select"
        if len(srcs) <= 2:
            return "prmt"
        return "join"

    def prmt_selectors(self) -> tuple[int, ...]:
        """A prmt word's byte-permute selector per class, over its (at most two) source words in order."""
        pair = [*self.sources(), None][:2]
        return tuple(nibbles(pick, *pair) for pick in self.picks)

    def permutes(self, c: int) -> list[tuple[Src | None, Src | None, int]]:
        """Class c's word on its own, where it is not one source word: byte permutes folding in one source word at a
        time, each (first operand, second operand, selector); a first operand None is the word built so far, a second
        None is zero."""
        pick = self.picks[c]
        order = pick_sources(pick)
        if len(order) == 1:
            return [(order[0], None, nibbles(pick, order[0], None))]
        steps = [(order[0], order[1], nibbles(pick, order[0], order[1]))]
        return steps + [(None, order[i], nibbles(pick, None, order[i], tuple(order[:i]))) for i in range(2, len(order))]

    @cached_property
    def operands(self) -> tuple[tuple[Src, ...], tuple[Src | None, ...]] | None:
        """A join's two byte-permute operands per class (first, second; a second None is any word), where every class
        takes its bytes from at most two source words and that costs less than permuting each class's word on its
        own: each class's pair ordered so that the two select trees over the classes are smallest. None otherwise."""
        per = [pick_sources(p) for p in self.picks]
        if self.kind() != "join" or any(len(s) > 2 for s in per):
            return None
        rank = {x: i for i, x in enumerate(self.sources())}
        per = [sorted(s, key=rank.get) for s in per]  # the same order in every class: the pairs first tried
        two = [c for c, s in enumerate(per) if len(s) == 2]
        best = None
        for flips in range(1 << len(two)) if len(two) <= 4 else (0,):
            swap = {c for i, c in enumerate(two) if flips >> i & 1}
            firsts = tuple(s[1] if c in swap else s[0] for c, s in enumerate(per))
            seconds = [(s[0] if c in swap else s[1]) if len(s) == 2 else None for c, s in enumerate(per)]
            fill = next((x for x in seconds if x is not None), None)
            seconds = tuple(fill if x is None else x for x in seconds)
            cost = _tree_nodes(firsts) + _tree_nodes(seconds)
            if best is None or cost < best[0]:
                best = (cost, firsts, seconds)
        alone = sum(max(1, len(pick_sources(p)) - 1) for p in set(self.picks) if whole_word(p) is None)
        return (best[1], best[2]) if 1 + best[0] <= alone + _tree_nodes(self.picks) else None

    def operand_selectors(self) -> tuple[int, ...]:
        """A join's byte-permute selector per class, over its ``operands``."""
        firsts, seconds = self.operands
        return tuple(nibbles(p, f, s) for p, f, s in zip(self.picks, firsts, seconds, strict=True))

    def cost(self) -> int:
        """Byte permutes per conversion (Assembly.instructions counts the selects): one, or for a join whose classes
        need three source words or more, each class's own, one per source word after the first."""
        kind = self.kind()
        if kind == "prmt" or (kind == "join" and self.operands is not None):
            return 1
        if kind == "join":
            return sum(max(1, len(pick_sources(p)) - 1) for p in set(self.picks) if whole_word(p) is None)
        return 0


def _tree_nodes(per_class: tuple) -> int:
    """Selects of one select tree over the class bits (Choice), each distinct subtree once."""
    seen: set[tuple] = set()

    def walk(f: tuple) -> None:
        node = Choice(f).node  # its halves are Choice.split's
        if len(node) == 1 or node in seen:
            return
        seen.add(node)
        walk(node[: len(node) // 2])
        walk(node[len(node) // 2 :])

    walk(per_class)
    return len(seen)


def nibbles(pick: tuple[Byte | None, ...], first: Src | None, second: Src | None, done: tuple = ()) -> int:
    """The byte-permute selector (__byte_perm's, a nibble per result byte) that builds ``pick``: byte j from
    ``first`` (0-3) or ``second`` (4-7), or kept in place from the first operand, a word accumulated so far, where its
    source is one of ``done``; any byte nothing fills is 0."""
    sel = 0
    for j, b in enumerate(pick):
        nib = 0
        if b is not None:
            if b[0] in done:
                nib = j
            elif b[0] == first:
                nib = b[1]
            elif b[0] == second:
                nib = 4 + b[1]
        sel |= nib << (4 * j)
    return sel


@dataclass(frozen=True)
class Choice:
    """A choice per thread class (``per_class[c]`` for class c) as a tree of selects over the class bits, highest bit
    at the root. The cost model counts these trees, and the emitter prints them."""

    per_class: tuple

    @property
    def node(self) -> tuple:
        """The choice without the high class bits it does not depend on: two words share a subtree where these are
        equal."""
        f = self.per_class
        while len(f) > 1 and f[: len(f) // 2] == f[len(f) // 2 :]:
            f = f[: len(f) // 2]
        return f

    def split(self) -> tuple[int, Choice, Choice] | None:
        """The top of the tree: (class bit, the choices with that bit clear, with it set), skipping the high bits the
        choice does not depend on; None where every class chooses alike (a leaf)."""
        f = self.node
        if len(f) == 1:
            return None
        half = len(f) // 2
        return half.bit_length() - 1, Choice(f[:half]), Choice(f[half:])


# whole_word and pick_sources are pure, and asked of the same few picks by every word of every assembly option: the
# last few answers are kept.
@lru_cache(maxsize=4096)
def pick_sources(pick: tuple[Byte | None, ...]) -> tuple[Src, ...]:
    """One class's distinct source words, in order of first use."""
    out: list[Src] = []
    for b in pick:
        if b is not None and b[0] not in out:
            out.append(b[0])
    return tuple(out)


@lru_cache(maxsize=4096)
def whole_word(pick: tuple[Byte | None, ...]) -> Src | None:
    """The source word whose bytes ``pick`` takes in place, all from it (None where it is not one word in order)."""
    srcs = {b[0] for b in pick if b is not None}
    if len(srcs) != 1 or any(b is not None and b[1] != i for i, b in enumerate(pick)):
        return None
    return srcs.pop()


@dataclass(frozen=True)
class Round:
    index: int
    op: str  # "local", "xor" or "idx"
    sends: tuple[Word, ...]  # the words it sends (a local round's: kept, or none)


@dataclass(frozen=True)
class Assembly:
    """Every word of a shuffle conversion, per thread class."""

    class_cols: tuple[int, ...]  # a thread's class number (send part | recv part << shift): its lane and warp bits' columns
    basis: tuple[int, ...]  # class numbers, reduced: class c is the sum of basis[j] over the set bits j of c
    rounds: tuple[Round, ...]
    b_words: tuple[tuple[Word, int], ...]  # each B word, and the round after which all its bytes are in (-1: none)

    @property
    def classes(self) -> int:
        return 1 << len(self.basis)

    @property
    def words(self) -> list[Word]:
        """Every word the conversion computes: those the rounds send, then B's."""
        return [w for r in self.rounds for w in r.sends] + [w for w, _ in self.b_words]

    def instructions(self) -> int:
        """Selects and PRMTs per conversion, besides the shuffles: each word's own PRMTs, and the SELs of the
        select trees (their shared nodes counted once, as the compiler shares them)."""
        return self._instructions

    @cached_property
    def _instructions(self) -> int:
        trees = _Trees()
        for w in self.words:
            kind = w.kind()
            if kind == "select":
                trees.root(tuple(w.whole(c) for c in range(self.classes)))
            elif kind == "join":
                ops = w.operands
                for per_class in ops if ops is not None else (w.picks,):
                    trees.root(per_class)
        return sum(w.cost() for w in self.words) + trees.selects()


class _Trees:
    """The select trees of per-class choices over the class bits, highest bit at the root (as the emitter prints
    them), each distinct subtree once. A node is one SEL, except where ptxas folds it into a child: it writes the
    node's value into the register of one select child whose other users come first, then overwrites it under the
    node's predicate by a SEL that computes the other child, a select used by this node alone (``@!P1 SEL R12, R40,
    R5, !P0`` in r3_mma2b_4x64x32_f16's SASS). So a node is free where one child is such a one-use SEL and the other
    is a select (not a word the conversion keeps) that no other node has folded into already."""

    def __init__(self):
        self.children: dict[tuple, tuple] = {}
        self.parents: dict[tuple, set] = {}
        self.roots: set[tuple] = set()

    def root(self, per_class: tuple) -> None:
        node = self._node(per_class)
        if node is not None:
            self.roots.add(node)

    def _node(self, f: tuple) -> tuple | None:
        node = Choice(f).node  # its halves are Choice.split's
        if len(node) == 1:
            return None
        if node not in self.children:
            kids = (self._node(node[: len(node) // 2]), self._node(node[len(node) // 2 :]))
            self.children[node] = kids
            for k in kids:
                if k is not None:
                    self.parents.setdefault(k, set()).add(node)
        return node

    def selects(self) -> int:
        free: set[tuple] = set()
        taken: set[tuple] = set()  # selects a parent has folded into already
        for node, kids in self.children.items():  # children before parents
            for over, into in (kids, kids[::-1]):
                one_use = over is not None and over not in self.roots and len(self.parents[over]) == 1 and over not in free
                if one_use and into is not None and into not in self.roots and into not in taken:
                    free.add(node)
                    taken.add(into)
                    break
        return len(self.children) - len(free)


@dataclass(frozen=True)
class _Shuffle:
    """The shuffle plan an assembly builds words for (plan/shuffle.py): its rounds, the A registers ``pack_a`` packed
    into a word and the B registers ``pack_b`` they land in, elements of ``bits`` bits, B holding ``n_out`` registers,
    and the lane bits of a thread index."""

    rounds: tuple[ShuffleRound, ...]
    pack_a: tuple[int, ...]
    pack_b: tuple[int, ...]
    bits: int
    n_out: int
    lane_bits: int


def assemble(
    rounds: tuple[ShuffleRound, ...], pack_a: tuple[int, ...], pack_b: tuple[int, ...], bits: int, n_out: int, lane_bits: int
) -> Assembly:
    """The words of a shuffle plan's ``rounds`` and packing (plan/shuffle.py) for elements of ``bits`` bits, B holding
    ``n_out`` registers, local rounds read in place or building their words, whichever takes fewer instructions. The
    planner builds it once (ShufflePlan.assembly)."""
    plan = _Shuffle(rounds, pack_a, pack_b, bits, n_out, lane_bits)
    options = [_assemble(plan, local_words=False, whole_sends=False)]
    if options[0].basis and any(r.op == "local" for r in rounds):
        options.append(_assemble(plan, local_words=True, whole_sends=False))
    if (1 << len(pack_a)) * bits < 32:
        options.append(_assemble(plan, local_words=False, whole_sends=True))
    return min((o for o in options if o is not None), key=Assembly.instructions)


def _senders(rounds: tuple[ShuffleRound, ...], class_cols: tuple[int, ...], class_index: dict[int, int], lane_bits: int):
    """Per round, per receiver class: the send part of its sender's class (the sender's send register, less the
    round's constant); None where threads of one class read from senders of different classes."""
    lanes = (1 << lane_bits) - 1
    threads = 1 << len(class_cols)
    send_part = f2.span(rounds[0].send_reg.cols)  # thread t's: combine(t, send columns) is send_part[t]
    class_of = [class_index[k] for k in f2.span(class_cols)]
    out = []
    for r in rounds:
        per: dict[int, int] = {}
        for t, src in enumerate(r.src_lane.values(threads)):
            s = send_part[src | (t & ~lanes)]  # the sender's
            if per.setdefault(class_of[t], s) != s:
                return None
        out.append(per)
    return out


def _assemble(plan: _Shuffle, local_words: bool, whole_sends: bool) -> Assembly | None:
    """One assembly of ``plan``: local rounds building their words (``local_words``) or not; with ``whole_sends``, a
    payload shorter than a word is sent as the whole A word that holds it, and each receiver picks its bytes where its
    sender's class put them (None where a payload spans two A words or a class's senders differ in class)."""
    rounds, pack_a, pack_b, bits, n_out = plan.rounds, plan.pack_a, plan.pack_b, plan.bits, plan.n_out
    eb = bits // 8
    r0 = rounds[0]
    send_cols, recv_cols = r0.send_reg.cols, r0.recv_reg.cols
    shift = max((c.bit_length() for c in send_cols), default=0)
    class_cols = tuple(s | y << shift for s, y in zip(send_cols, recv_cols, strict=True))
    basis = tuple(f2.reduce(class_cols))
    classes = [(k & ((1 << shift) - 1), k >> shift) for k in f2.span(basis)]
    packa = [f2.combine(t, pack_a) for t in range(1 << len(pack_a))]
    packb = [f2.combine(t, pack_b) for t in range(1 << len(pack_b))]
    payload = len(packa) * eb  # bytes one round moves per thread
    nparts = (payload + 3) // 4

    # a_byte and sent are pure, and every class and word asks them again for the same bytes: each is computed once
    @cache
    def a_byte(e: int, i: int) -> Byte:
        return (("a", (e * eb + i) // 4), (e * eb + i) % 4)

    @cache
    def sent(send_const: int, s: int, q: int) -> Byte | None:
        """The A byte at payload byte q of what a class-s thread sends in a round whose send register is
        ``send_const ^ s``."""
        return None if q >= payload else a_byte(send_const ^ s ^ packa[q // eb], q % eb)

    senders = None
    if whole_sends:
        senders = _senders(rounds, class_cols, {k: c for c, k in enumerate(f2.span(basis))}, plan.lane_bits)
        spans = (
            len({sent(r.send_reg.const, s, q)[0] for q in range(payload)}) for r in rounds if r.op != "local" for s, _ in classes
        )
        if senders is None or any(n > 1 for n in spans):
            return None

    round_words = []
    for r in rounds:
        sends: tuple[Word, ...] = ()
        sc = r.send_reg.const
        if whole_sends and r.op != "local":
            sends = (Word(tuple(tuple((sent(sc, s, 0)[0], i) for i in range(4)) for s, _ in classes)),)
        elif r.op != "local" or local_words:
            sends = tuple(Word(tuple(tuple(sent(sc, s, 4 * p + i) for i in range(4)) for s, _ in classes)) for p in range(nparts))
        round_words.append(Round(r.index, r.op, sends))

    # where each class's B element comes from: (round, A element) for a local round, else (round, payload offset)
    source: dict[tuple[int, int], tuple] = {}
    for c, (s, y) in enumerate(classes):
        for r in rounds:
            for t, o in enumerate(packb):
                e = r.recv_reg.const ^ y ^ o
                in_place = r.op == "local" and not local_words
                source[c, e] = (r.index, "a", r.send_reg.const ^ s ^ packa[t]) if in_place else (r.index, "x", t)

    b_words = []
    for k in range(max(1, n_out * eb // 4)):
        picks, last = [], -1
        for c in range(len(classes)):
            pick = []
            for i in range(4):
                e, j = divmod(4 * k + i, eb)
                src = source.get((c, e)) if e < n_out else None
                if src is None:
                    pick.append(None)
                    continue
                rnd, where, x = src
                if where == "a":
                    pick.append(a_byte(x, j))
                elif senders is not None:  # the byte where the sender's class holds it in its whole word
                    r = rounds[rnd]
                    elem = r.send_reg.const ^ senders[rnd][c] ^ packa[x]
                    pick.append((("x", rnd, 0), a_byte(elem, j)[1]))
                    last = rnd if rnd > last else last
                else:
                    q = x * eb + j
                    pick.append((("x", rnd, q // 4), q % 4))
                    last = rnd if rnd > last else last
            picks.append(tuple(pick))
        b_words.append((Word(tuple(picks)), last))
    return Assembly(class_cols, basis, tuple(round_words), tuple(b_words))
