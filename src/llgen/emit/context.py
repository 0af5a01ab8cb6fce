"""The template context of a conversion plan: the plain dict that convert.j2, kernel.j2, header.j2 and
bench.j2 print.

Each path's body (register permutation, warp shuffles, shared memory), the tile's global loads and stores,
and the shared-memory scratch the kernels declare. The planner has decided all of it; this module only
spells its numbers (llgen.emit.spelling).
"""

from __future__ import annotations

from llgen.emit.shuffle import shuffle_body
from llgen.emit.spelling import RegArray, address, affine_expr, hexu, loads_named, name_loads, replica_test, vector_access
from llgen.plan import Path
from llgen.plan.chain import Chain
from llgen.plan.hw import Hw
from llgen.plan.select import LaneSelect
from llgen.plan.shared import Barrier


def access_dict(arr: RegArray, regs: list[int], matrices: int, elem_bytes: int, store: bool, named: bool = False) -> dict:
    """One shared access's printable pieces besides its address: a store's value (or stmatrix words), a load's
    unpacking (ldmatrix: into ``w0``.. first); none for a ``named`` load, which name_loads fills with its group."""
    if matrices:
        loaded = [f"w{i}" for i in range(matrices)]
        if store:
            return {"words": arr.words_of(regs), "unpack": []}
        return {"outs": loaded, "unpack": [] if named else arr.fill(regs, loaded)}
    d = vector_access(arr, regs, elem_bytes, unpack=not named)
    del d["unpack" if store else "value"]  # a store prints its value, a load its unpacking
    return d


def _access_ctx(plan, side, arr: RegArray, store: bool, base: str) -> tuple[list[list[dict]], list[list[str]]]:
    """Each instruction of a shared side as printable pieces, grouped by scratch round (one pass: the text of a
    plan of many rounds stays linear in its instructions), and for loads each round's register fills (name_loads)."""
    eb = plan.dtype.bytes
    out: list[list[dict]] = [[] for _ in range(plan.detail.rounds)]
    for ins in side.instrs:
        out[ins.round].append({"regs": list(ins.regs), "round": ins.round, **address(base, ins.xor_const, ins.add_const, eb)})
    fills, first = [], 0
    for group in out:
        named = not store and loads_named(arr, [d["regs"] for d in group], side.matrices, eb)
        for d in group:
            d.update(access_dict(arr, d["regs"], side.matrices, eb, store, named))
        fills.append(name_loads(arr, group, side.matrices, eb, first) if named else [])
        first += len(group)
    return out, fills


def global_ctx(io, elem_bytes: int, lane_bits: int, arr: RegArray) -> dict:
    """A planned global-memory access of a tile (plan.io.GlobalIO) as printable pieces, one statement per access
    (the gather's templates)."""
    items = [
        dict(vector_access(arr, list(ins.regs), elem_bytes), **address("g", ins.xor_const, ins.add_const, elem_bytes))
        for ins in io.instrs
    ]
    return {
        "thread": affine_expr(io.thread_offset, lane_bits),
        "accesses": items,
        "skip": replica_test(io.skip_lane_mask, io.skip_warp_mask),
    }


def global_tables(io, elem_bytes: int, lane_bits: int, arr: RegArray) -> dict:
    """A planned global-memory access of a tile (plan.io.GlobalIO) as printable tables: access i moves elements
    ``bases[i]`` .. ``bases[i] + width - 1`` at element offset ``(g ^ xs[i]) + adds[i]`` of the dense tile, one
    vector of type ``vtype`` (the strided forms map that offset to a row and a column)."""
    first = vector_access(arr, list(io.instrs[0].regs), elem_bytes)
    return {
        "thread": affine_expr(io.thread_offset, lane_bits),
        "width": io.width,
        "words": io.words,
        "vtype": first["vtype"],
        "xs": [hexu(i.xor_const) for i in io.instrs],
        "adds": [hexu(i.add_const) for i in io.instrs],
        "bases": [i.regs[0] for i in io.instrs],
        "skip": replica_test(io.skip_lane_mask, io.skip_warp_mask),
    }


def plan_scratch_bytes(plan) -> int:
    """The scratch of this plan alone (Plan.scratch_bytes; kSmemBytes also covers its sm_80 fallback)."""
    return plan.scratch_bytes


def scratch_bytes(plan) -> int:
    """The header's kSmemBytes (Plan.smem_bytes)."""
    return plan.smem_bytes


def element_sources(plan) -> list[int]:
    """For a register permutation, the input register each output register takes: out[j] = in[src[j]], B's
    replica registers included."""
    src = list(plan.detail.perm)
    for j, k in plan.out_copies:
        src[j] = src[k]
    return src


def _matrix_ops(p) -> list[dict]:
    """The ldmatrix/stmatrix forms a shared plan uses, for helpers defined once per header."""
    if p is None or not p.uses_shared:
        return []
    sides = ((p.detail.store, "stmatrix"), (p.detail.load, "ldmatrix"))
    return [{"op": op, "n": s.matrices, "trans": s.op.endswith("trans")} for s, op in sides if s.matrices]


def _side_align(p) -> int:
    """The widest shared access of a plan, in bytes (ldmatrix/stmatrix rows are 16 bytes)."""
    if p is None or not p.uses_shared:
        return 1
    return max(16 if s.matrices else s.width * p.dtype.bytes for s in (p.detail.store, p.detail.load))


def _flat_table(cols) -> list[str]:
    return [hexu(c) for c in cols] or ["0u"]


def _regions(regions) -> dict | None:
    """A warp-local plan's warp regions as the header's Scratch tag spells them (None: the whole buffer)."""
    return regions and {"bits": regions.bits, "rows": [f"0x{r:x}ull" for r in regions.rows]}


def body_ctx(plan) -> dict:
    """The printable conversion body of one plan, or of a chain of them (llgen.plan.chain: each step in its own block,
    its a[] and b[] the words before and after it)."""
    if isinstance(plan, Chain):
        steps = plan.steps
        mids = [RegArray("m", s.dtype.bits, s.n_out).words for s in steps[:-1]]
        bodies = [body_ctx(s) for s in steps]
        return {
            "path": "chain",
            "what": plan.describe(),
            "steps": bodies,
            "mid_words": mids,
            "zero_mids": any(_reads_b(b) for b in bodies[:-1]),  # a step that fills its words element by element
            "copies": [],
        }
    if isinstance(plan, LaneSelect):
        return _select_body(plan)
    lb = plan.target.lane_bits
    d = plan.detail
    a, b = (RegArray(n, plan.dtype.bits, k) for n, k in (("a", plan.n_in), ("b", plan.n_out)))
    copies = [b.set(j, b.elem(k)) for j, k in plan.out_copies]
    if plan.permutes_registers:
        stmts = b.fill(list(range(plan.n_out)), a.words_of(list(d.perm)))
        return {"path": plan.path, "perm_stmts": stmts, "copies": copies, "sources": element_sources(plan)}
    if plan.path == Path.SHUFFLE:
        return {"path": plan.path, "shuffle": shuffle_body(plan), "copies": copies}
    loads, fills = _access_ctx(plan, d.load, b, False, "ld")
    return {
        "path": plan.path,
        "shared": {
            "swizzle": d.swizzle.name,
            "rounds": d.rounds,
            "round_vectors": [hexu(v) for v in d.round_vectors],
            "barrier": d.barrier,
            "regions": _regions(plan.warp_regions),
            "interleaved": d.interleaved,
            "scalar": d.scalar,
            "st_op": d.store.op,
            "ld_op": d.load.op,
            "st_matrices": d.store.matrices,
            "ld_matrices": d.load.matrices,
            "st_thread": affine_expr(d.store.thread_offset, lb),
            "ld_thread": affine_expr(d.load.thread_offset, lb),
            "st_pred": d.store.predicate_warp_mask,
            # CUDA: a replica-warp test's stmatrix offset is pinned live before the test; left to the branch, ptxas
            # rebuilt it there each LOOP step, 13 dependent ALU instructions ahead of the stores (b2dotA_f16: one CTA
            # 207 -> 199 ns a conversion, b2dotA_i8's tiles 120 -> 117). Vector stores are left alone: the pin cost
            # them 1-7% (b2dotA_i8's 103 -> 110 ns), ptxas already keeping offsets that the loads share (bench/NOTES.md)
            "st_pin": bool(d.store.predicate_warp_mask and d.store.matrices) and not plan.target.is_hip,
            "stores": _access_ctx(plan, d.store, a, True, "st")[0],
            "loads": loads,
            "fills": fills,
            "st_wf": d.store.wavefronts_per_instr,
            "ld_wf": d.load.wavefronts_per_instr,
            "columns": [hexu(c) for c in d.swizzle.columns],
            "sw_vec": d.swizzle.vec,
            "sw_bank": d.swizzle.bank,
            "sw_seg": d.swizzle.seg,
        },
        "copies": copies,
    }


HELPERS = ("shfl_idx", "shfl_xor", "byte_perm", "sel_f32")  # defined in a header only where its code calls them


def _select_body(plan: LaneSelect) -> dict:
    """A lane select's stages (plan/select.py): each picks, in every word, the word ``reg_mask`` away where its lane
    bits have odd parity; a[] in, b[] out, s<i>[] between stages. Every index is a constant; the choice is a SEL."""
    words = RegArray("a", plan.dtype.bits, plan.n_in)
    n, per = words.words, words.per
    decls, lines = [], []
    for i, (lanes, regs) in enumerate(plan.stages):
        assert regs % per == 0, "a lane select moves whole words"  # the planner never splits one (plan/select.py)
        src = "a" if i == 0 else f"s{i - 1}"
        dst = "b" if i == len(plan.stages) - 1 else f"s{i}"
        if dst != "b":
            decls.append(f"Word {dst}[{n}];")
        if lanes.bit_count() == 1:
            pick = f"((lane >> {lanes.bit_length() - 1}) & 1u) != 0u"
        else:
            pick = f"(__popc(lane & {hexu(lanes)}) & 1) != 0"
        lines.append(f"const bool pick{i} = {pick};  // stage {i}: registers r <-> r ^ {regs}")
        lines += [f"{dst}[{w}] = pick{i} ? {src}[{w ^ regs // per}] : {src}[{w}];" for w in range(n)]
    return {"path": "select", "what": plan.describe(), "decls": decls, "lines": lines, "copies": []}


def printed(x) -> list[str]:
    """Every string in a printable piece (nested dicts and lists): the statements a template prints."""
    if isinstance(x, str):
        return [x]
    if isinstance(x, dict):
        return [s for v in x.values() for s in printed(v)]
    if isinstance(x, list | tuple):
        return [s for v in x for s in printed(v)]
    return []


def called_helpers(*pieces) -> list[str]:
    """The helpers (HELPERS) the printed pieces call."""
    text = "\n".join(s for p in pieces for s in printed(p))
    return [h for h in HELPERS if f"{h}(" in text]


def _reads_b(body) -> bool:
    """Whether a printed body reads B's words before it has written them all (a packed word filled element by
    element, or by byte permutes that keep some of its bytes): then b[] starts zeroed."""
    for stmt in printed(body):
        lhs, eq, rhs = stmt.partition("=")
        if eq and ("b[" in rhs or lhs.endswith("|")):
            return True
    return False


def _cta_barrier(p) -> bool:
    """Whether a plan synchronises the whole group (plan.barrier)."""
    return p is not None and p.barrier == Barrier.CTA


def provenance(command: str | None) -> dict:
    from llgen.core.version import llgen_version

    return {"version": llgen_version(), "command": command or "the Python API (llgen.emit.emit)"}


def element_and_group(dt, tgt, warps: int) -> dict:
    """The element type and the thread group, as every header's context names them (conversions and endpoints)."""
    return {
        "dtype": dt.name,
        "raw": dt.raw,
        "bytes": dt.bytes,
        "bits": dt.bits,
        "lanes": tgt.lanes,
        "lane_bits": tgt.lane_bits,
        "warps": warps,
        "threads": warps * tgt.lanes,
    }


def context(plan, name: str, command: str | None = None) -> dict:
    """The plain dict the templates print. ``command`` is the command line that asked for it, printed in the
    header's opening comment."""
    dt, tgt = plan.dtype, plan.target
    lb = tgt.lane_bits
    ctx = {
        "name": name,
        "hip": tgt.is_hip,
        "target": tgt.name,
        "path": plan.path,
        "why": plan.why,
        "ctype": dt.hip if tgt.is_hip else dt.cuda,
        **element_and_group(dt, tgt, plan.warps),
        "n_in": plan.n_in,
        "n_out": plan.n_out,
        "packed": None,  # a 4-bit plan's packing (llgen.emit.packed)
        "shape": "x".join(map(str, plan.src.shape)),
        "tile": 1 << plan.src.total_out_bits,
        "src_json": plan.src.to_dict(),
        "dst_json": plan.dst.to_dict(),
        "pairing": plan.pairing_text,
    }
    a, b = (RegArray(n, dt.bits, k) for n, k in (("a", plan.n_in), ("b", plan.n_out)))
    ctx.update(
        word=a.ctype,
        na=a.words,
        nb=b.words,
        per=a.per,
        load_src=global_tables(plan.global_load, dt.bytes, lb, a),
        store_dst=global_tables(plan.global_store, dt.bytes, lb, b),
    )
    ctx["body"] = body_ctx(plan)
    ctx["fallback"] = body_ctx(plan.fallback) if plan.fallback else None
    ctx["helpers"] = called_helpers(ctx["body"], ctx["fallback"])
    ctx["zero_b"] = b.per > 1 and (_reads_b(ctx["body"]) or _reads_b(ctx["fallback"]))
    ctx.update(provenance(command))
    ha, hb = Hw.of(plan.src), Hw.of(plan.dst)
    shape = plan.src.shape
    ctx.update(
        rank=len(shape),
        dims=list(shape),
        cols=shape[-1],
        col_bits=shape[-1].bit_length() - 1,
        flat_a={"reg": _flat_table(ha.reg), "lane": _flat_table(ha.lane), "warp": _flat_table(ha.warp)},
        flat_b={"reg": _flat_table(hb.reg), "lane": _flat_table(hb.lane), "warp": _flat_table(hb.warp)},
        nbits_a=[len(ha.reg), len(ha.lane), len(ha.warp)],
        nbits_b=[len(hb.reg), len(hb.lane), len(hb.warp)],
        a_reg_broadcast=ha.reg_broadcast_mask,
        smem_align=max(_side_align(plan), _side_align(plan.fallback)),
        global_align=max(plan.global_load.width, plan.global_store.width) * dt.bytes,
        warp_local=not (_cta_barrier(plan) or _cta_barrier(plan.fallback)),
        matrix_ops=sorted({tuple(sorted(o.items())) for o in _matrix_ops(plan) + _matrix_ops(plan.fallback)}),
    )
    ctx["matrix_ops"] = [dict(o) for o in ctx["matrix_ops"]]
    ctx["smem_bytes"] = plan.smem_bytes
    ctx["dynamic_smem"] = plan.dynamic_smem
    ctx["min_ctas"] = plan.min_ctas
    ctx["_ctx"] = ctx  # macros take the whole context
    return ctx
