"""The body of a warp-shuffle conversion as C statements: the words of plan/shuffle_words.py, spelled.

Per thread, once: ``cls`` (its class: which registers it sends and fills), ``src_sel`` (the linear part of its
source lane) and the PRMT selectors its class needs. Per round: one line, the word it sends and receives. After
every round: each word of B, from A's registers (local rounds) and the received words.
"""

from __future__ import annotations

from llgen.core import f2
from llgen.emit.spelling import affine_expr, hexu
from llgen.plan.affine import Affine
from llgen.plan.shuffle_words import Assembly, Choice, Src, Word


def shuffle_body(plan) -> dict:
    """{"decls": per-thread constants, "lines": the rounds and B's words, "rounds", "shuffles"}."""
    d, bits, lb = plan.detail, plan.dtype.bits, plan.target.lane_bits
    asm = d.assembly
    sp = _Speller(asm, bits, float_select=_float_selects(plan))
    decls = []
    if asm.classes > 1:
        decls.append(
            f"const unsigned cls = {affine_expr(Affine(0, asm.class_cols), lb)};  // this thread's class: the registers it sends and fills"
        )
    if any(r.op == "idx" for r in d.rounds):
        decls.append(f"const unsigned src_sel = {affine_expr(d.rounds[0].src_lane.linear(), lb)};  // source lane, linear part")

    uniform = _uniform_rounds(d, asm, bits)
    if uniform:
        return {"decls": decls, "lines": uniform, "rounds": len(d.rounds), "shuffles": d.shuffles}
    lines = []
    for r, rd in zip(d.rounds, asm.rounds, strict=True):
        if r.op == "local" and not rd.sends:
            lines.append(f"// round {r.index}: local, no shuffle (its elements are read in place)")
        elif r.op == "local":
            lines.append(f"// round {r.index}: local, no shuffle (the word it would send, kept)")
            for p, w in enumerate(rd.sends):
                x, temps = sp.word(w), sp.flush()
                lines += temps + [f"const unsigned {sp.src(('x', r.index, p))} = {x};"]
        else:
            how = f"shfl.xor lane ^ {r.xor_mask}" if r.op == "xor" else f"shfl.idx from lane {hexu(r.src_lane.const)} ^ src_sel"
            lines.append(f"// round {r.index}: {how}")
            for p, w in enumerate(rd.sends):
                x, temps = sp.word(w), sp.flush()
                call = f"shfl_xor({x}, {r.xor_mask})" if r.op == "xor" else f"shfl_idx({x}, src_sel ^ {hexu(r.src_lane.const)})"
                lines += temps + [f"const unsigned {sp.src(('x', r.index, p))} = {call};"]
    # B's words after every shuffle, as Triton's lowering orders them: ptxas then keeps more shuffles in flight, where
    # words built right after their rounds led it to wait out each shuffle before issuing the next, a latency that one
    # warp alone on an SM pays in full (wl4_mma2b_f32's LOOP step: 1104 -> 672 cycles of one warp's in-order issue
    # with a 24-cycle SHFL; Triton's 509)
    lines.append("// B's words")
    for k, (w, _) in sorted(enumerate(asm.b_words), key=lambda kw: kw[1][1]):  # in the order their rounds complete them
        lines += sp.b_word(k, w)
    return {"decls": decls + sp.selector_decls, "lines": lines, "rounds": len(d.rounds), "shuffles": d.shuffles}


def _float_selects(plan) -> bool:
    """Whether f32 words choose by float selects (FSEL), as Triton's do where it shuffles: one register bit of A that
    B holds in a lane (m = 1; Triton 3.6 goes through shared memory from m = 2). The same shuffles with integer selects
    (SEL) measured 1.4-1.9% slower a LOOP step on wl1_mma2dotA_f32 and wl4_mma2b_f32 and 11% at one CTA on the first;
    at m = 3 ptxas spent 391 FSEL where it spends 384 SEL (wl4_swap3_f32), and 8- and 16-bit words measured no better
    with FSEL (bench/NOTES.md)."""
    if plan.dtype.name != "f32" or plan.target.lang != "cuda":
        return False
    mixed = set(plan.dst.flat_cols("lane")) & set(plan.src.flat_cols("register"))
    return len(mixed - {0}) <= 1


def _uniform_rounds(d, asm: Assembly, bits: int) -> list[str] | None:
    """Rounds that each send one of A's words whole and fill one of B's whole, alike but for the three indices, as a
    loop over constexpr tables (the SASS is the straight-line code's, tests/test_sass_stable.py); None otherwise."""
    ops = {r.op for r in d.rounds}
    if bits > 32 or asm.classes != 1 or len(ops) != 1 or ops & {"local"} or len(d.rounds) < 2:
        return None
    fill = {}
    for k, (w, _) in enumerate(asm.b_words):
        src = w.whole(0) if w.kind() == "copy" else None
        if src is None or src[0] != "x":
            return None
        fill[src[1]] = k
    send = []
    for rd in asm.rounds:
        src = rd.sends[0].whole(0) if len(rd.sends) == 1 and rd.sends[0].kind() == "copy" else None
        if src is None or src[0] != "a" or rd.index not in fill:
            return None
        send.append(src[1])
    n, op = len(d.rounds), ops.pop()
    lane = [hexu(r.xor_mask if op == "xor" else r.src_lane.const) for r in d.rounds]
    how = "shfl.xor lane ^ kLane[r]" if op == "xor" else "shfl.idx from lane kLane[r] ^ src_sel"
    call = "shfl_xor(a[kSend[r]], kLane[r])" if op == "xor" else "shfl_idx(a[kSend[r]], src_sel ^ kLane[r])"
    return [
        f"// rounds 0 .. {n - 1}, alike: round r sends A's word kSend[r] and fills B's word kFill[r] ({how})",
        f"constexpr int kSend[] = {{{', '.join(map(str, send))}}};",
        f"constexpr int kFill[] = {{{', '.join(str(fill[r.index]) for r in d.rounds)}}};",
        f"constexpr {'int' if op == 'xor' else 'unsigned'} kLane[] = {{{', '.join(lane)}}};",
        "#pragma unroll",
        f"for (int r = 0; r < {n}; ++r) b[kFill[r]] = {call};",
    ]


class _Speller:
    """C expressions for the words of one assembly; collects the PRMT selectors they need."""

    def __init__(self, asm: Assembly, bits: int, float_select: bool = False):
        self.asm, self.bits, self.float_select = asm, bits, float_select
        self.tests = [hexu(1 << f2.pivot(v)) for v in asm.basis]  # class bit j is cls & tests[j]
        self.temps: dict[tuple, str] = {}
        self.pending: list[str] = []
        self.selectors: dict[tuple[int, ...], str] = {}
        self.selector_decls: list[str] = []
        self.parts = 2 if bits == 64 else 1

    def src(self, s: Src) -> str:
        if s[0] == "a":
            w = s[1]
            if self.bits == 64:
                return f"static_cast<unsigned>(a[{w // 2}]{' >> 32' if w % 2 else ''})"
            return f"a[{w}]"
        return f"x{s[1]}" if self.parts == 1 else f"x{s[1]}_{s[2]}"

    def b_word(self, k: int, w: Word) -> list[str]:
        """The statements that set B's word k (the select-tree temporaries it needs first)."""
        x = self.word(w)
        if self.bits == 64:
            return self.flush() + [
                f"b[{k // 2}] {'|=' if k % 2 else '='} static_cast<unsigned long long>({x}){' << 32' if k % 2 else ''};"
            ]
        return self.flush() + [f"b[{k}] = {x};"]

    def flush(self) -> list[str]:
        """The select-tree temporaries declared since the last flush."""
        out, self.pending = self.pending, []
        return out

    def word(self, w: Word) -> str:
        kind = w.kind()
        n = self.asm.classes
        if kind == "zero":
            return "0u"
        if kind in ("copy", "select"):
            return self._select([self.src(w.whole(c)) for c in range(n)])
        if kind == "prmt":
            pair = [*w.sources(), None][:2]
            second = "0u" if pair[1] is None else self.src(pair[1])
            return f"byte_perm({self.src(pair[0])}, {second}, {self._selector(w.prmt_selectors())})"
        ops = w.operands
        if ops is not None:
            first, second = (self._select(["0u" if x is None else self.src(x) for x in per_class]) for per_class in ops)
            return f"byte_perm({first}, {second}, {self._selector(w.operand_selectors())})"
        return self._select([self._class_word(w, c) for c in range(n)])

    def _class_word(self, w: Word, c: int) -> str:
        """Class c's word on its own: a source word, or byte permutes folding in one source word at a time."""
        whole = w.whole(c)
        if whole is not None:
            return self.src(whole)
        acc = ""
        for first, second, sel in w.permutes(c):
            x = acc if first is None else self.src(first)
            acc = f"byte_perm({x}, {'0u' if second is None else self.src(second)}, {hexu(sel)})"
        return acc

    def _selector(self, sels: tuple[int, ...]) -> str:
        if len(set(sels)) == 1:
            return hexu(sels[0])
        if sels not in self.selectors:
            name = f"ps{len(self.selectors)}"
            self.selectors[sels] = name
            chain = self._select([hexu(s) for s in sels], named=False)
            self.selector_decls.append(f"const unsigned {name} = {chain};  // byte-permute selector of this thread's class")
        return self.selectors[sels]

    def _select(self, per_class: list[str], named: bool = True) -> str:
        """per_class[c] for the thread's class c: a tree of selects over the class bits, highest first. Inner
        nodes are named temporaries (``named``) that later words reuse, as in a butterfly."""
        return self._mux(tuple(per_class), True, named)

    def _mux(self, f: tuple, root: bool, named: bool) -> str:
        split = Choice(f).split()
        if split is None:
            return f[0]
        node = Choice(f).node
        if named and not root and node in self.temps:
            return self.temps[node]
        bit, lo, hi = split
        test, a, b = f"cls & {self.tests[bit]}", self._mux(hi.per_class, False, named), self._mux(lo.per_class, False, named)
        e = f"sel_f32({test}, {a}, {b})" if self.float_select and named else f"(({test}) ? {a} : {b})"
        if root or not named:
            return e
        name = f"t{len(self.temps)}"
        self.temps[node] = name
        self.pending.append(f"const unsigned {name} = {e};")
        return name
