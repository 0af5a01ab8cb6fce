"""C spelling: plan numbers as C expressions and statements.

Hex constants, affine maps of the thread bits, a thread's registers packed into words (RegArray), and the
pieces of one vector access (its C type, value and unpacking; its address). Nothing here reads a plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.plan.affine import Affine


def hexu(x: int) -> str:
    return f"{x}u" if x < 10 else f"0x{x:x}u"


def affine_expr(aff: Affine, lane_bits: int) -> str:
    """Bit arithmetic on `lane` and `warp` for an affine map of the thread bits. A run of consecutive thread
    bits that lands on consecutive bits is one shift-and-mask: spelled bit by bit, ptxas kept more registers
    live (bench/NOTES.md)."""
    terms = [hexu(aff.const)] if aff.const or aff.is_constant else []
    runs: list[list[int]] = []  # [var index, first bit, first destination bit, width]
    for i, c in enumerate(aff.cols):
        if not c:
            continue
        v, bit = (0, i) if i < lane_bits else (1, i - lane_bits)
        var = ("lane", "warp")[v]
        if c & (c - 1):  # one thread bit flips several bits: select the constant
            terms.append(f"(({var} >> {bit}) & 1u ? {hexu(c)} : 0u)" if bit else f"({var} & 1u ? {hexu(c)} : 0u)")
            continue
        dst = c.bit_length() - 1
        last = runs[-1] if runs else None
        if last and last[0] == v and last[1] + last[3] == bit and last[2] + last[3] == dst:
            last[3] += 1
        else:
            runs.append([v, bit, dst, 1])
    terms += [run_term(("lane", "warp")[v], s, d, w) for v, s, d, w in runs]
    return " ^ ".join(terms)


def replica_test(lane_mask: int, warp_mask: int) -> str:
    """C that is non-zero in every thread but one replica's: its lane and warp bits under the masks ("" for none)."""
    terms = [f"(lane & {hexu(lane_mask)})"] * bool(lane_mask) + [f"(warp & {hexu(warp_mask)})"] * bool(warp_mask)
    return f"({' | '.join(terms)})" if len(terms) > 1 else "".join(terms)


def run_term(var: str, src: int, dst: int, width: int) -> str:
    """C for ``width`` bits of ``var`` from bit ``src`` moved to bit ``dst``: one mask and at most one shift."""
    if src > dst:
        return f"(({var} >> {src - dst}) & {hexu((1 << width) - 1 << dst)})"
    t = f"({var} & {hexu((1 << width) - 1 << src)})"
    return f"({t} << {dst - src})" if dst > src else t


@dataclass(frozen=True)
class RegArray:
    """A thread's registers as the generated code holds them. Elements of 8 or 16 bits are packed
    into 32-bit words (element j in word j / per, at bit bits * (j % per)), so a 128-element f16
    tile costs 64 registers, as Triton's code does; 32- and 64-bit elements take one each."""

    name: str
    bits: int
    count: int  # elements

    def bytes_of(self, word: str, j: int) -> list[tuple[str, int]]:
        """Element j of a packed word expression as (word, byte) pairs, lowest byte first."""
        nb = self.bits // 8
        return [(word, nb * (j % self.per) + i) for i in range(nb)]

    def elem_of(self, words: list[str], j: int) -> str:
        """Element j of the packed word expressions ``words``, as bits in the low position."""
        w, sh = words[j // self.per], self.bits * (j % self.per)
        mask = hexu((1 << self.bits) - 1)
        return f"({w} >> {sh})" if sh + self.bits == 32 else (f"(({w} >> {sh}) & {mask})" if sh else f"({w} & {mask})")

    def elem_bytes(self, r: int) -> list[tuple[str, int]]:
        """Element r of this array as (word, byte) pairs."""
        return self.bytes_of(f"{self.name}[{r // self.per}]", r)

    @property
    def per(self) -> int:
        return 32 // self.bits if self.bits < 32 else 1

    @property
    def words(self) -> int:
        return max(1, self.count // self.per)

    @property
    def ctype(self) -> str:
        return "unsigned long long" if self.bits == 64 else "unsigned"

    def elem(self, j: int) -> str:
        """Element j's raw bits (an unsigned expression)."""
        if self.per == 1:
            return f"{self.name}[{j}]"
        return self.elem_of([f"{self.name}[{k}]" for k in range(j // self.per + 1)], j)

    def set(self, j: int, value: str) -> str:
        """A statement that stores ``value`` (raw bits) as element j."""
        if self.per == 1:
            return f"{self.name}[{j}] = {value};"
        k, s = divmod(j, self.per)
        keep = hexu(0xFFFFFFFF ^ (((1 << self.bits) - 1) << (self.bits * s)))
        shifted = f"(({value}) << {self.bits * s})" if s else f"({value})"
        return f"{self.name}[{k}] = ({self.name}[{k}] & {keep}) | {shifted};"

    def _aligned_word(self, regs: list[int]) -> int | None:
        """The word index when ``regs`` are exactly one packed word in order."""
        k = regs[0] // self.per if regs else 0
        return k if regs == [k * self.per + i for i in range(self.per)] else None

    def words_of(self, regs: list[int]) -> list[str]:
        """32-bit words holding elements ``regs`` in memory order."""
        if self.bits == 64:
            return [
                w
                for r in regs
                for w in (f"static_cast<unsigned>({self.name}[{r}])", f"static_cast<unsigned>({self.name}[{r}] >> 32)")
            ]
        out = []
        for i in range(0, len(regs), self.per):
            chunk = regs[i : i + self.per]
            k = self._aligned_word(chunk)
            if k is not None:
                out.append(f"{self.name}[{k}]")
                continue
            if len(chunk) == self.per:  # a whole word: byte permutes (PRMT; v_perm_b32 on AMD)
                out.append(byte_word([b for r in chunk for b in self.elem_bytes(r)]))
                continue
            parts = [self.elem(r) + (f" << {self.bits * j}" if j else "") for j, r in enumerate(chunk)]
            # a whole parenthesized expression: callers combine words with & and |
            out.append(parts[0] if len(parts) == 1 else "((" + ") | (".join(parts) + "))")
        return out

    def fill(self, regs: list[int], words: list[str]) -> list[str]:
        """Statements that store the 32-bit words ``words`` into elements ``regs``. A packed word whose elements all
        arrive here is written whole by byte permutes (byte_word); a 16-bit half by a masked read-modify-write; some of an
        8-bit word's elements by byte permutes that keep its other bytes."""
        if self.bits == 64:
            return [
                f"{self.name}[{r}] = static_cast<unsigned long long>({words[2 * i]}) | "
                f"(static_cast<unsigned long long>({words[2 * i + 1]}) << 32);"
                for i, r in enumerate(regs)
            ]
        if self.per == 1:
            return [f"{self.name}[{r}] = {w};" for r, w in zip(regs, words, strict=True)]
        where = {r: j for j, r in enumerate(regs)}
        out, done = [], set()
        for r in regs:
            k = r // self.per
            if k in done:
                continue
            members = [k * self.per + i for i in range(self.per)]
            if self.bits == 16 and not all(m in where for m in members):
                # half a word: a masked read-modify-write, which ptxas folds with the other half's into one PRMT
                # (a byte permute a half stays two: b2dotB_f16's vector variant 325 -> 453 instructions)
                out.append(self.set(r, self.elem_of(words, where[r])))
                continue
            # the word's bytes: arriving elements from the incoming words, the others kept (byte permutes, one per
            # incoming word; ptxas kept an 8-bit read-modify-write at two or three ALU instructions a byte)
            done.add(k)
            dest = f"{self.name}[{k}]"
            src = [
                b
                for i, m in enumerate(members)
                for b in (self.bytes_of(words[where[m] // self.per], where[m]) if m in where else self.bytes_of(dest, i))
            ]
            out.append(f"{dest} = {byte_word(src)};")
        return out

    def small(self, regs: list[int]) -> tuple[str, list[str]]:
        """A vector narrower than 32 bits: its value, and the statements that unpack ``v``."""
        value = " | ".join(self.elem(r) + (f" << {self.bits * j}" if j else "") for j, r in enumerate(regs))
        unpack = [self.set(r, self.elem_of(["v"], j)) for j, r in enumerate(regs)]
        return value, unpack

    def add_each(self, k: int, value: str) -> str:
        """Word k with ``value`` added to each element (SWAR; carries stay inside elements)."""
        w = f"{self.name}[{k}]"
        if self.per == 1:
            return f"{w} + {value}"
        lane_ones = sum(1 << (self.bits * i) for i in range(self.per))
        high = hexu(lane_ones << (self.bits - 1))
        low = hexu(0xFFFFFFFF ^ (lane_ones << (self.bits - 1)))
        y = f"(static_cast<unsigned>({value}) * {hexu(lane_ones)})"
        return f"((({w} & {low}) + ({y} & {low})) ^ (({w} ^ {y}) & {high}))"


def byte_word(sources: list[tuple[str, int]]) -> str:
    """A 32-bit word whose byte i is byte ``sources[i][1]`` of word expression ``sources[i][0]``: the word itself
    where it is one, else ``byte_perm`` (one PRMT; v_perm_b32 on AMD) for up to two source words, two of them joined
    by a third for up to four, as Triton's lowering packs 8- and 16-bit elements."""
    words = list(dict.fromkeys(w for w, _ in sources))
    if len(words) == 1 and [b for _, b in sources] == [0, 1, 2, 3]:
        return words[0]
    if len(words) <= 2:
        x, y = words[0], words[-1]
        sel = sum((b if w == x else 4 + b) << (4 * i) for i, (w, b) in enumerate(sources))
        return f"byte_perm({x}, {y}, {hexu(sel)})"
    lo = set(words[:2])
    pair_lo = byte_word([(w, b) if w in lo else sources[0] for w, b in sources])
    hi_first = next((w, b) for w, b in sources if w not in lo)
    pair_hi = byte_word([(w, b) if w not in lo else hi_first for w, b in sources])
    return byte_word([(pair_lo, i) if w in lo else (pair_hi, i) for i, (w, _) in enumerate(sources)])


VEC_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned", 8: "uint2", 16: "uint4"}


def vector_access(regs_arr: RegArray, regs: list[int], elem_bytes: int, unpack: bool = True) -> dict:
    """A vector access of elements ``regs``: its C type, the value to store, and the statements
    that unpack a loaded ``v`` (none without ``unpack``: a named load, see name_loads)."""
    nbytes = len(regs) * elem_bytes
    vtype = VEC_TYPES[nbytes]
    if elem_bytes == 8 and len(regs) == 1:  # one 64-bit element: a scalar (a volatile access cannot assign a struct)
        r = f"{regs_arr.name}[{regs[0]}]"
        return {"vtype": "unsigned long long", "value": r, "unpack": [f"{r} = v;"]}
    if nbytes < 4:
        value, statements = regs_arr.small(regs)
        return {"vtype": vtype, "value": f"static_cast<{vtype}>({value})", "unpack": statements}
    words = regs_arr.words_of(regs)
    value = words[0] if len(words) == 1 else f"make_{vtype}({', '.join(words)})"
    names = ["v"] if len(words) == 1 else [f"v.{c}" for c in "xyzw"[: len(words)]]
    return {"vtype": vtype, "value": value, "unpack": regs_arr.fill(regs, names) if unpack else []}


def address(base: str, xor_const: int, add_const: int, elem_bytes: int) -> dict:
    """A shared or global address as printable byte offsets: ``base``, the thread part with its XOR;
    ``imm``, the constant part (an int literal, for a template argument); ``addr``, their sum. The constant stays a separate term so it lands in
    the instruction's immediate: accesses that share an XOR pattern share one address register
    (ptxas does not fold ``(st + c) * 2`` itself, bench/NOTES.md), and ldmatrix/stmatrix print it as ``[%p+imm]``."""
    thread = f"({base} ^ {hexu(xor_const)}) * {elem_bytes}" if xor_const else f"{base} * {elem_bytes}"
    imm = add_const * elem_bytes
    return {"base": thread, "imm": hexu(imm)[:-1], "addr": thread + (f" + {hexu(imm)}" if imm else "")}


def loads_named(arr: RegArray, regs: list[list[int]], matrices: int, elem_bytes: int) -> bool:
    """Whether a group of loads (each one's registers) lands in named words that name_loads fills: packed 8/16-bit
    elements, every load a word or more."""
    return arr.per > 1 and bool(matrices or all(len(r) * elem_bytes >= 4 for r in regs))


def name_loads(arr: RegArray, loads: list[dict], matrices: int, elem_bytes: int, first: int = 0) -> list[str]:
    """Loads of packed 8/16-bit elements that land in named words (``v3``, ``v3.y``; ldmatrix: ``v3_1``) instead of
    unpacking inside their own block, and the statements that then fill the registers from all of them at once: a word
    whose elements arrive from two loads is one byte permute of both (PRMT), where two masked half-writes cost ptxas
    two ALU instructions a word (wl1_slice_f16: 151 LOP3 and 64 LEA.HI a LOOP step, bench/NOTES.md).
    ``loads`` are one group's access dicts (each with its ``regs``, built without unpacking where loads_named),
    named from ``first``; wider elements and loads under 4 bytes keep their own unpacking (no word of them is shared)
    and return no statements."""
    if not loads_named(arr, [d["regs"] for d in loads], matrices, elem_bytes):
        return []
    regs, words = [], []
    for n, d in enumerate(loads, first):
        name = f"v{n}"
        if matrices:
            d["outs"] = [f"{name}_{k}" for k in range(matrices)]
            got = d["outs"]
        else:
            count = len(d["regs"]) * elem_bytes // 4
            d["name"] = name
            got = [name] if count == 1 else [f"{name}.{c}" for c in "xyzw"[:count]]
        regs += d["regs"]
        words += got
    return arr.fill(regs, words)
