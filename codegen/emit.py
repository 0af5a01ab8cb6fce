"""Plan -> template context -> CUDA or HIP source (kernel and vendorable header).

The planner decides; this module only spells the plan's numbers as C expressions and hands a
plain dict to the Jinja templates. Same inputs, same bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import f2
from .errors import LlgenError
from .plan.affine import Affine

FORMS = ("kernel", "header", "both")


@lru_cache(maxsize=1)
def _env():
    import importlib.resources

    import jinja2
    root = importlib.resources.files("llgen.templates")
    loader = jinja2.DictLoader({p.name: p.read_text() for p in root.iterdir() if p.name.endswith(".j2")})
    return jinja2.Environment(loader=loader, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def default_name(plan) -> str:
    return f"cvt_{plan.path}_{plan.dtype.name}_{'x'.join(map(str, plan.src.shape))}"


def check_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise LlgenError(f"--name '{name}' is not a C identifier.")
    return name


def emit(plan, form: str = "header", name: str | None = None) -> str:
    """Source text: form "kernel" (standalone .cu/.hip, which includes the conversion) or
    "header" (.cuh/.hip.h to vendor)."""
    if form not in ("kernel", "header"):
        raise LlgenError(f"unknown form '{form}'; use kernel or header.")
    ctx = context(plan, check_name(name or default_name(plan)))
    return _env().get_template(f"{form}.j2").render(**ctx)


def emit_bench(fwd, bwd, name: str) -> str:
    """LOOP, STREAM and copy kernels for a conversion and its way back (docs/design.md §10)."""
    check_name(name)
    env = _env()
    cf, cb = context(fwd, f"{name}_fwd"), context(bwd, f"{name}_bwd")
    a, b = RegArray("a", fwd.dtype.bits, fwd.n_in), RegArray("b", fwd.dtype.bits, fwd.n_out)
    ctx = {
        "name": name, "fwd": f"{name}_fwd", "bwd": f"{name}_bwd", "lang": fwd.target.lang, "raw": fwd.dtype.raw,
        "dtype": fwd.dtype.name,
        "keep": "v" if fwd.target.lang == "hip" else ("l" if b.ctype == "unsigned long long" else "r"),
        "threads": cf["threads"], "tile": cf["tile"], "n_a": a.words, "n_b": b.words, "word": a.ctype,
        # STREAM and copy: each one-warp group loads two tiles before converting either, to keep more bytes in flight
        "groups": stream_groups(fwd, bwd), "unroll": 2 if fwd.warps == 1 else 1, "stream_smem": stream_smem(fwd, bwd),
        "inc_b": [f"b[{k}] = {_add_one(fwd.dtype.name, b, k, fwd.target.lang)};" for k in range(b.words)],
        "add_b": [f"b[{k}] = {b.add_each(k, 's')};" for k in range(b.words)],
        "add_a": [f"a[{k}] = {a.add_each(k, 's')};" for k in range(a.words)],
        "smem_bytes": max(cf["smem_bytes"], cb["smem_bytes"]), "fwd_smem": cf["smem_bytes"], "bwd_smem": cb["smem_bytes"],
        "loop_scratch": loop_scratch(fwd, bwd),
        "fwd_source": env.get_template("convert.j2").render(**cf), "bwd_source": env.get_template("convert.j2").render(**cb),
    }
    return env.get_template("bench.j2").render(**ctx)


@dataclass(frozen=True)
class LoopScratch:
    """The LOOP kernel's dynamic shared memory: ``bytes`` in all, A -> B's scratch at ``fwd_offset`` (B -> A's at 0)."""

    bytes: int
    fwd_offset: int

    @property
    def two_buffers(self) -> bool:
        return self.fwd_offset > 0


def loop_scratch(fwd, bwd) -> LoopScratch:
    """Where the LOOP kernel's A -> B and B -> A keep their scratch. In one buffer each conversion needs a barrier
    before its stores, since the other may still be reading. In two buffers it does not: the other conversion's
    barrier between its stores and its loads already stands between a buffer's last load and its next store
    (on the H100 this took b2bT_f16 from 268 to 264 ns per conversion, bench/NOTES.md). That holds when both use
    shared memory behind __syncthreads and both fit in one CTA's shared memory. A __syncwarp costs next to
    nothing: t16x32 measured the same with two buffers and paid 4 more registers, so warp-synchronous plans keep
    one. A -> B's buffer goes after B -> A's, on a 128-byte boundary so its banks are unchanged: that order gave
    four core cases 1-2 fewer registers under NVRTC 13.0 than the other, and none more."""
    f, b = scratch_bytes(fwd), scratch_bytes(bwd)
    if f and b and _cta_wide(fwd) and _cta_wide(bwd):
        offset = -(-b // 128) * 128
        if offset + f <= fwd.target.smem_per_cta:
            return LoopScratch(offset + f, offset)
    return LoopScratch(max(f, b), 0)


def _cta_wide(plan) -> bool:
    """Whether the plan's shared-memory barrier is __syncthreads (HIP always; CUDA unless warps keep to their own scratch)."""
    return plan.target.lang == "hip" or not plan.detail.warp_sync


def stream_groups(fwd, bwd=None) -> int:
    """How many copies of the layout's CTA one STREAM/copy CTA runs side by side, each on its own tiles and its own
    scratch. An SM holds at most 32 CTAs, so one-warp CTAs fill only half its warp slots unless several share a
    CTA (bench/NOTES.md, probe 1). Only a one-warp CUDA conversion can share its CTA this way: it synchronises with
    __syncwarp, so each warp may stop at its own last tile. HIP's conversions use __syncthreads and keep one group.
    The groups' scratch together must fit one CTA's shared memory."""
    if fwd.warps != 1 or fwd.target.lang != "cuda":
        return 1
    per = max(scratch_bytes(fwd), scratch_bytes(bwd) if bwd is not None else 0)
    groups = 8
    while groups > 1 and groups * per > fwd.target.smem_per_cta:
        groups //= 2
    return groups


def stream_smem(fwd, bwd) -> int:
    """Dynamic shared memory of the STREAM kernel: every group's scratch (0 when neither way needs any)."""
    return stream_groups(fwd, bwd) * max(scratch_bytes(fwd), scratch_bytes(bwd))


def _add_one(dtype: str, arr: RegArray, k: int, lang: str) -> str:
    """Word k of ``arr`` plus one in the tile's own arithmetic, as Triton's loop computes `y + 1`:
    a packed f16x2 add (one HADD2 per word), a float or double add, or an integer add per element."""
    w = f"{arr.name}[{k}]"
    if dtype == "f16" and lang == "cuda":
        return f"llgen_add_one_f16x2({w})"
    if dtype == "f32":
        return f"__float_as_uint(__uint_as_float({w}) + 1.0f)"
    if dtype == "f64":
        return f"static_cast<unsigned long long>(__double_as_longlong(__longlong_as_double(static_cast<long long>({w})) + 1.0))"
    return arr.add_each(k, "1u")


def file_names(plan, name: str | None = None) -> dict[str, str]:
    name = name or default_name(plan)
    if plan.target.lang == "cuda":
        return {"kernel": f"{name}.cu", "header": f"{name}.cuh"}
    return {"kernel": f"{name}.hip", "header": f"{name}.hip.h"}


# ---------------------------------------------------------------------- C spelling
def hexu(x: int) -> str:
    return f"{x}u" if x < 10 else f"0x{x:x}u"


def affine_expr(aff: Affine, lane_bits: int) -> str:
    """Bit arithmetic on `lane` and `warp` for an affine map of the thread bits. A run of consecutive thread
    bits that lands on consecutive bits is one shift-and-mask: ptxas gave lanes_f32's loop 48 registers with
    the bits spelled one by one, and 40 (Triton's count) with `(lane >> 1) & 0xfu` (bench/NOTES.md)."""
    terms = [hexu(aff.const)] if aff.const or aff.is_constant else []
    runs: list[list[int]] = []  # [var index, first bit, first destination bit, width]
    for i, c in enumerate(aff.cols):
        if not c:
            continue
        v, bit = (0, i) if i < lane_bits else (1, i - lane_bits)
        var = ("lane", "warp")[v]
        if c & (c - 1):  # one thread bit flips several bits: select the constant
            terms.append(f"(({var} >> {bit}) & 1u ? {hexu(c)} : 0u)")
            continue
        dst = c.bit_length() - 1
        last = runs[-1] if runs else None
        if last and last[0] == v and last[1] + last[3] == bit and last[2] + last[3] == dst:
            last[3] += 1
        else:
            runs.append([v, bit, dst, 1])
    terms += [run_term(("lane", "warp")[v], s, d, w) for v, s, d, w in runs]
    return " ^ ".join(terms)


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
    lang: str = "cuda"  # CUDA joins 16-bit halves with __byte_perm (one PRMT)

    def join16(self, lo: tuple[str, int], hi: tuple[str, int]) -> str | None:
        """A 32-bit word made of two 16-bit halves given as (word expression, half index)."""
        if self.bits != 16 or self.lang != "cuda":
            return None
        (x, hx), (y, hy) = lo, hi
        sel = (2 * hx) | (2 * hx + 1) << 4 | (4 + 2 * hy) << 8 | (5 + 2 * hy) << 12
        return f"__byte_perm({x}, {y}, {hexu(sel)})"

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
        k, s = divmod(j, self.per)
        word = f"{self.name}[{k}]"
        if s == self.per - 1:
            return f"({word} >> {self.bits * s})"
        mask = hexu((1 << self.bits) - 1)
        return f"({word} & {mask})" if s == 0 else f"(({word} >> {self.bits * s}) & {mask})"

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
            return [w for r in regs for w in (f"static_cast<unsigned>({self.name}[{r}])",
                                              f"static_cast<unsigned>({self.name}[{r}] >> 32)")]
        out = []
        for i in range(0, len(regs), self.per):
            chunk = regs[i:i + self.per]
            k = self._aligned_word(chunk)
            if k is not None:
                out.append(f"{self.name}[{k}]")
                continue
            if len(chunk) == 2:
                joined = self.join16(*((f"{self.name}[{r // 2}]", r % 2) for r in chunk))
                if joined:
                    out.append(joined)
                    continue
            parts = [self.elem(r) + (f" << {self.bits * j}" if j else "") for j, r in enumerate(chunk)]
            # a whole parenthesized expression: callers combine words with & and |
            out.append(parts[0] if len(parts) == 1 else "((" + ") | (".join(parts) + "))")
        return out

    def fill(self, regs: list[int], words: list[str]) -> list[str]:
        """Statements that store the 32-bit words ``words`` into elements ``regs``. A packed word
        whose elements all arrive here is written whole (one PRMT-like expression, no
        read-modify-write); the rest are set element by element."""
        if self.bits == 64:
            return [f"{self.name}[{r}] = static_cast<unsigned long long>({words[2 * i]}) | "
                    f"(static_cast<unsigned long long>({words[2 * i + 1]}) << 32);" for i, r in enumerate(regs)]
        if self.per == 1:
            return [f"{self.name}[{r}] = {w};" for r, w in zip(regs, words)]
        mask = hexu((1 << self.bits) - 1)

        def part(j: int) -> str:  # element j of the incoming data, as bits in the low position
            w, s = words[j // self.per], self.bits * (j % self.per)
            return f"({w} >> {s})" if s + self.bits == 32 else (f"(({w} >> {s}) & {mask})" if s else f"({w} & {mask})")

        where = {r: j for j, r in enumerate(regs)}
        out, done = [], set()
        for j, r in enumerate(regs):
            k = r // self.per
            if k in done:
                continue
            members = [k * self.per + i for i in range(self.per)]
            if all(m in where for m in members):
                done.add(k)
                src = [where[m] for m in members]
                if src == list(range(src[0], src[0] + self.per)) and src[0] % self.per == 0:
                    out.append(f"{self.name}[{k}] = {words[src[0] // self.per]};")
                else:
                    joined = self.join16(*((words[s // 2], s % 2) for s in src)) if self.per == 2 else None
                    terms = [part(s) + (f" << {self.bits * i}" if i else "") for i, s in enumerate(src)]
                    out.append(f"{self.name}[{k}] = " + (joined or " | ".join(f"({t})" for t in terms)) + ";")
            else:
                out.append(self.set(r, part(j)))
        return out

    def small(self, regs: list[int]) -> tuple[str, list[str]]:
        """A vector narrower than 32 bits: its value, and the statements that unpack ``v``."""
        mask = hexu((1 << self.bits) - 1)
        value = " | ".join(self.elem(r) + (f" << {self.bits * j}" if j else "") for j, r in enumerate(regs))
        unpack = [self.set(r, f"((v >> {self.bits * j}) & {mask})" if j else f"(v & {mask})") for j, r in enumerate(regs)]
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


VEC_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned", 8: "uint2", 16: "uint4"}


def _vector(regs_arr: RegArray, regs: list[int], elem_bytes: int) -> dict:
    """A vector access of elements ``regs``: its C type, the value to store, and the statements
    that unpack a loaded ``v``."""
    nbytes = len(regs) * elem_bytes
    vtype = VEC_TYPES[nbytes]
    if elem_bytes == 8 and len(regs) == 1:  # one 64-bit element: a scalar (a volatile access cannot assign a struct)
        r = f"{regs_arr.name}[{regs[0]}]"
        return {"vtype": "unsigned long long", "value": r, "unpack": [f"{r} = v;"]}
    if nbytes < 4:
        value, unpack = regs_arr.small(regs)
        return {"vtype": vtype, "value": f"static_cast<{vtype}>({value})", "unpack": unpack}
    words = regs_arr.words_of(regs)
    value = words[0] if len(words) == 1 else f"make_{vtype}({', '.join(words)})"
    names = ["v"] if len(words) == 1 else [f"v.{c}" for c in "xyzw"[:len(words)]]
    return {"vtype": vtype, "value": value, "unpack": regs_arr.fill(regs, names)}


def _addr(base: str, xor_const: int, add_const: int, elem_bytes: int) -> dict:
    """A shared or global address as printable byte offsets: ``base``, the thread part with its XOR;
    ``imm``, the constant part; ``addr``, their sum. The constant stays a separate term so it lands in
    the instruction's immediate: accesses that share an XOR pattern share one address register
    (ptxas 13.0 does not fold ``(st + c) * 2`` itself), and ldmatrix/stmatrix print it as ``[%p+imm]``."""
    thread = f"({base} ^ {hexu(xor_const)}) * {elem_bytes}" if xor_const else f"{base} * {elem_bytes}"
    imm = add_const * elem_bytes
    return {"base": thread, "imm": imm, "addr": thread + (f" + {hexu(imm)}" if imm else "")}


def _access_ctx(plan, side, arr: RegArray, store: bool, base: str) -> list[dict]:
    """Each instruction of a shared side as printable pieces."""
    out = []
    for ins in side.instrs:
        regs = list(ins.regs)
        d = {"regs": regs, "round": ins.round, **_addr(base, ins.xor_const, ins.add_const, plan.dtype.bytes)}
        if side.matrices:
            loaded = [f"w{i}" for i in range(side.matrices)]
            d["words"] = arr.words_of(regs) if store else loaded
            d["unpack"] = [] if store else arr.fill(regs, loaded)
        else:
            d.update(_vector(arr, regs, plan.dtype.bytes))
        out.append(d)
    return out


def _shuffle_ctx(plan, a: RegArray, b: RegArray) -> dict:
    d = plan.detail
    lb = plan.target.lane_bits
    r0 = d.rounds[0]
    send_img = _image(r0.send_reg)
    recv_img = _image(r0.recv_reg)
    packa = [f2.combine(t, d.pack_a) for t in range(1 << len(d.pack_a))]
    packb = [f2.combine(t, d.pack_b) for t in range(1 << len(d.pack_b))]
    nwords = d.words_per_element if plan.dtype.bits == 64 else 1
    rounds = []
    for r in d.rounds:
        sends = [{"sel": s, "words": a.words_of([r.send_reg.const ^ s ^ o for o in packa])} for s in send_img]
        recvs = [{"sel": s, "stmts": b.fill([r.recv_reg.const ^ s ^ o for o in packb], [f"w{i}" for i in range(nwords)])}
                 for s in recv_img]
        rounds.append({"index": r.index, "op": r.op, "xor_mask": r.xor_mask, "src": hexu(r.src_lane.const),
                       "sends": sends, "recvs": recvs, "nwords": nwords})
    return {
        "send_sel": affine_expr(r0.send_reg.linear(), lb), "recv_sel": affine_expr(r0.recv_reg.linear(), lb),
        "src_sel": affine_expr(r0.src_lane.linear(), lb), "send_varies": len(send_img) > 1,
        "recv_varies": len(recv_img) > 1, "rounds": rounds,
        "any_idx": any(r.op == "idx" for r in d.rounds),
    }


def _image(aff: Affine) -> list[int]:
    """Every value the linear part of ``aff`` takes (the candidates of a compile-time select)."""
    return sorted(f2.span(f2.reduce(aff.cols)))


def global_ctx(io, elem_bytes: int, lane_bits: int, arr: RegArray) -> dict:
    """A planned global-memory access of a tile (plan.io.GlobalIO) as printable pieces."""
    items = [dict(_vector(arr, list(ins.regs), elem_bytes), **_addr("g", ins.xor_const, ins.add_const, elem_bytes))
             for ins in io.instrs]
    return {"thread": affine_expr(io.thread_offset, lane_bits), "accesses": items,
            "skip_lane": io.skip_lane_mask, "skip_warp": io.skip_warp_mask}


def kernel_dynamic_smem(plan) -> int:
    """Dynamic shared memory the standalone kernels take at launch: their scratch when it is over the target's
    static limit (then the kernels declare it extern and need the opt-in attribute), else 0."""
    smem = scratch_bytes(plan)
    return smem if smem > plan.target.static_smem else 0


def plan_scratch_bytes(plan) -> int:
    """The scratch of this plan alone (kSmemBytes also covers its sm_80 fallback: scratch_bytes)."""
    return plan.detail.scratch_bytes if plan.path == "shared" else 0


def scratch_bytes(plan) -> int:
    """The header's kSmemBytes: the plan's scratch, or its sm_80 fallback's where that is larger."""
    return max(plan_scratch_bytes(plan), plan_scratch_bytes(plan.fallback) if plan.fallback else 0)


def _body_ctx(plan) -> dict:
    """The printable conversion body of one plan."""
    lb = plan.target.lane_bits
    d = plan.detail
    a, b = (RegArray(n, plan.dtype.bits, k, plan.target.lang) for n, k in (("a", plan.n_in), ("b", plan.n_out)))
    copies = [b.set(j, b.elem(k)) for j, k in plan.out_copies]
    if plan.path in ("noop", "registers"):
        stmts = b.fill(list(range(plan.n_out)), a.words_of(list(d.perm)))
        return {"path": plan.path, "perm_stmts": stmts, "copies": copies}
    if plan.path == "shuffle":
        return {"path": plan.path, "shuffle": _shuffle_ctx(plan, a, b), "copies": copies}
    return {"path": plan.path, "shared": {
        "swizzle": d.swizzle.name, "rounds": d.rounds, "warp_sync": d.warp_sync, "scalar": d.scalar,
        "st_op": d.store.op, "ld_op": d.load.op, "st_matrices": d.store.matrices, "ld_matrices": d.load.matrices,
        "st_thread": affine_expr(d.store.thread_offset, lb), "ld_thread": affine_expr(d.load.thread_offset, lb),
        "st_pred": d.store.predicate_warp_mask,
        "stores": _access_ctx(plan, d.store, a, True, "st"), "loads": _access_ctx(plan, d.load, b, False, "ld"),
        "st_wf": d.store.wavefronts_per_instr, "ld_wf": d.load.wavefronts_per_instr,
        "columns": [hexu(c) for c in d.swizzle.columns],
        "sw_vec": d.swizzle.vec, "sw_bank": d.swizzle.bank, "sw_seg": d.swizzle.seg,
    }, "copies": copies}


def context(plan, name: str) -> dict:
    """The plain dict the templates print."""
    dt, tgt = plan.dtype, plan.target
    lb = tgt.lane_bits
    ctx = {
        "name": name, "lang": tgt.lang, "target": tgt.name, "path": plan.path, "why": plan.why,
        "dtype": dt.name, "ctype": dt.cuda if tgt.lang == "cuda" else dt.hip, "raw": dt.raw, "bytes": dt.bytes,
        "bits": dt.bits, "lanes": tgt.lanes, "lane_bits": lb, "warps": plan.warps, "threads": plan.warps * tgt.lanes,
        "n_in": plan.n_in, "n_out": plan.n_out, "shape": "x".join(map(str, plan.src.shape)),
        "tile": 1 << plan.src.total_out_bits,
        "src_json": plan.src.to_dict(), "dst_json": plan.dst.to_dict(),
    }
    a, b = (RegArray(n, dt.bits, k, tgt.lang) for n, k in (("a", plan.n_in), ("b", plan.n_out)))
    ctx.update(word=a.ctype, na=a.words, nb=b.words, per=a.per,
               load_src=global_ctx(plan.global_load, dt.bytes, lb, a), store_dst=global_ctx(plan.global_store, dt.bytes, lb, b),
               a_elems=[a.elem(i) for i in range(plan.n_in)], b_elems=[b.elem(j) for j in range(plan.n_out)],
               a_sets=[a.set(i, f"static_cast<{a.ctype}>(bit_cast<{dt.raw}>(in[{i}]))") for i in range(plan.n_in)],
               b_sets=[b.set(j, f"static_cast<{b.ctype}>(bit_cast<{dt.raw}>(out[{j}]))") for j in range(plan.n_out)])
    ctx["body"] = _body_ctx(plan)
    ctx["fallback"] = _body_ctx(plan.fallback) if plan.fallback else None
    ctx["smem_bytes"] = scratch_bytes(plan)
    ctx["dynamic_smem"] = ctx["smem_bytes"] > tgt.static_smem
    # The standalone kernels' __launch_bounds__ minimum of CTAs per SM. Without one ptxas budgets registers for an
    # occupancy it guesses, and spilled where a thread holds many registers (a 64x64 i8 tile on one warp: 128
    # registers and a spill in the debug kernel; 224 and none with a minimum of 1). With dynamic scratch it cannot
    # see how few CTAs fit (b2mma_f32's 64 KB kernel got 40 registers and a spill on sm_80): those that fit tell it.
    ctx["min_ctas"] = max(1, tgt.smem_per_cta // ctx["smem_bytes"]) if ctx["dynamic_smem"] else 1
    ctx["_ctx"] = ctx  # macros take the whole context
    return ctx
