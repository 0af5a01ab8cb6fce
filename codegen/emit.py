"""Plan -> template context -> CUDA or HIP source (kernel and vendorable header).

The planner decides; this module only spells the plan's numbers as C expressions and hands a
plain dict to the Jinja templates. Same inputs, same bytes.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .errors import LlgenError
from .plan.affine import Affine
from .plan.io import global_io

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
    """LOOP, STREAM and copy kernels for a conversion and its way back (BENCHMARKS.md)."""
    check_name(name)
    env = _env()
    cf, cb = context(fwd, f"{name}_fwd"), context(bwd, f"{name}_bwd")
    ctx = {
        "name": name, "fwd": f"{name}_fwd", "bwd": f"{name}_bwd", "lang": fwd.target.lang, "raw": fwd.dtype.raw,
        "threads": cf["threads"], "tile": cf["tile"], "n_a": fwd.n_in, "n_b": fwd.n_out,
        "smem_bytes": max(cf["smem_bytes"], cb["smem_bytes"]), "fwd_smem": cf["smem_bytes"], "bwd_smem": cb["smem_bytes"],
        "fwd_source": env.get_template("convert.j2").render(**cf), "bwd_source": env.get_template("convert.j2").render(**cb),
    }
    return env.get_template("bench.j2").render(**ctx)


def file_names(plan, name: str | None = None) -> dict[str, str]:
    name = name or default_name(plan)
    if plan.target.lang == "cuda":
        return {"kernel": f"{name}.cu", "header": f"{name}.cuh"}
    return {"kernel": f"{name}.hip", "header": f"{name}.hip.h"}


# ---------------------------------------------------------------------- C spelling
def hexu(x: int) -> str:
    return f"{x}u" if x < 10 else f"0x{x:x}u"


def affine_expr(aff: Affine, lane_bits: int) -> str:
    """Bit arithmetic on `lane` and `warp` for an affine map of the thread bits."""
    terms = [hexu(aff.const)] if aff.const or aff.is_constant else []
    for i, c in enumerate(aff.cols):
        if not c:
            continue
        var, bit = ("lane", i) if i < lane_bits else ("warp", i - lane_bits)
        if c & (c - 1) == 0 and c >= 1 << bit:
            shift = c.bit_length() - 1 - bit
            terms.append(f"(({var} & {hexu(1 << bit)}) << {shift})" if shift else f"({var} & {hexu(1 << bit)})")
        else:
            terms.append(f"(({var} >> {bit}) & 1u ? {hexu(c)} : 0u)")
    return " ^ ".join(terms)


def pack_words(regs: list[int], bits: int, arr: str) -> list[str]:
    """C expressions of the 32-bit words holding registers ``regs`` (raw bits) in memory order."""
    if bits == 64:
        out = []
        for r in regs:
            out += [f"static_cast<unsigned>({arr}[{r}])", f"static_cast<unsigned>({arr}[{r}] >> 32)"]
        return out
    per = 32 // bits
    words = []
    for i in range(0, len(regs), per):
        chunk = regs[i:i + per]
        parts = [f"static_cast<unsigned>({arr}[{r}])" + (f" << {bits * j}" if j else "") for j, r in enumerate(chunk)]
        words.append(" | ".join(parts) if len(parts) == 1 else "(" + ") | (".join(parts) + ")")
    return words


def unpack_words(regs: list[int], bits: int, arr: str, words: list[str], raw: str) -> list[str]:
    """Statements filling registers ``regs`` from the 32-bit words ``words``."""
    if bits == 64:
        return [f"{arr}[{r}] = static_cast<{raw}>({words[2 * i]}) | (static_cast<{raw}>({words[2 * i + 1]}) << 32);"
                for i, r in enumerate(regs)]
    per = 32 // bits
    out = []
    for j, r in enumerate(regs):
        w, k = words[j // per], j % per
        out.append(f"{arr}[{r}] = static_cast<{raw}>({w}" + (f" >> {bits * k}" if k else "") + ");")
    return out


VEC_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned", 8: "uint2", 16: "uint4"}


def _access_ctx(plan, side, arr: str, store: bool, base: str) -> list[dict]:
    """Each instruction of a shared side as printable pieces."""
    dt = plan.dtype
    out = []
    for ins in side.instrs:
        regs = list(ins.regs)
        addr = f"(({base} ^ {hexu(ins.xor_const)}) + {hexu(ins.add_const)})" if ins.xor_const else f"({base} + {hexu(ins.add_const)})"
        d = {"regs": regs, "addr": addr, "round": ins.round}
        if side.matrices:
            nwords = side.matrices
            d["words"] = pack_words(regs, dt.bits, arr) if store else [f"w{i}" for i in range(nwords)]
            d["unpack"] = [] if store else unpack_words(regs, dt.bits, arr, [f"w{i}" for i in range(nwords)], dt.raw)
        else:
            nbytes = len(regs) * dt.bytes
            d["vtype"] = VEC_TYPES[nbytes]
            if nbytes < 4:
                d["value"] = f"{arr}[{regs[0]}]" if len(regs) == 1 else \
                    "static_cast<unsigned short>(" + " | ".join(f"({arr}[{r}] << {8 * j})" for j, r in enumerate(regs)) + ")"
                d["unpack"] = [f"{arr}[{regs[0]}] = v;"] if len(regs) == 1 else \
                    [f"{arr}[{r}] = static_cast<{dt.raw}>(v >> {8 * j});" for j, r in enumerate(regs)]
            else:
                words = pack_words(regs, dt.bits, arr)
                comps = ["x", "y", "z", "w"][:len(words)]
                d["value"] = words[0] if len(words) == 1 else f"make_{d['vtype']}({', '.join(words)})"
                names = ["v"] if len(words) == 1 else [f"v.{c}" for c in comps]
                d["unpack"] = unpack_words(regs, dt.bits, arr, names, dt.raw)
        out.append(d)
    return out


def _shuffle_ctx(plan) -> dict:
    d = plan.detail
    dt = plan.dtype
    lb = plan.target.lane_bits
    r0 = d.rounds[0]
    send_img = _image(r0.send_reg)
    recv_img = _image(r0.recv_reg)
    packa = [sum(x for j, x in enumerate(d.pack_a) if t >> j & 1) for t in range(1 << len(d.pack_a))]
    packb = [sum(x for j, x in enumerate(d.pack_b) if t >> j & 1) for t in range(1 << len(d.pack_b))]
    rounds = []
    for r in d.rounds:
        sends = []
        for s in send_img:
            reg = r.send_reg.const ^ s
            sends.append({"sel": s, "words": pack_words([reg ^ o for o in packa], dt.bits, "a")})
        recvs = []
        nwords = d.words_per_element if dt.bits == 64 else 1
        for s in recv_img:
            reg = r.recv_reg.const ^ s
            recvs.append({"sel": s, "stmts": unpack_words([reg ^ o for o in packb], dt.bits, "b",
                                                          [f"w{i}" for i in range(nwords)], dt.raw)})
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
    from . import f2
    return sorted(f2.span(f2.reduce(aff.cols)))


def _global_ctx(plan, layout, arr: str) -> dict:
    io = global_io(layout, plan.dtype, plan.target)
    dt = plan.dtype
    items = []
    for ins in io.instrs:
        regs = list(ins.regs)
        nbytes = len(regs) * dt.bytes
        addr = f"((g ^ {hexu(ins.xor_const)}) + {hexu(ins.add_const)})" if ins.xor_const else f"(g + {hexu(ins.add_const)})"
        vtype = VEC_TYPES[nbytes]
        if nbytes < 4:
            value = f"{arr}[{regs[0]}]" if len(regs) == 1 else \
                "static_cast<unsigned short>(" + " | ".join(f"({arr}[{r}] << {8 * j})" for j, r in enumerate(regs)) + ")"
            unpack = [f"{arr}[{regs[0]}] = v;"] if len(regs) == 1 else \
                [f"{arr}[{r}] = static_cast<{dt.raw}>(v >> {8 * j});" for j, r in enumerate(regs)]
        else:
            words = pack_words(regs, dt.bits, arr)
            value = words[0] if len(words) == 1 else f"make_{vtype}({', '.join(words)})"
            names = ["v"] if len(words) == 1 else [f"v.{c}" for c in "xyzw"[:len(words)]]
            unpack = unpack_words(regs, dt.bits, arr, names, dt.raw)
        items.append({"addr": addr, "vtype": vtype, "value": value, "unpack": unpack})
    return {"thread": affine_expr(io.thread_offset, plan.target.lane_bits), "accesses": items,
            "skip_lane": io.skip_lane_mask, "skip_warp": io.skip_warp_mask}


def _uses_stmatrix(plan) -> bool:
    return plan.path == "shared" and plan.detail.store.op.startswith("stmatrix")


def _smem_bytes(plan) -> int:
    return plan.detail.scratch_bytes if plan.path == "shared" else 0


def _body_ctx(plan) -> dict:
    """The printable conversion body of one plan."""
    lb = plan.target.lane_bits
    d = plan.detail
    if plan.path in ("noop", "registers"):
        return {"path": plan.path, "perm": list(d.perm)}
    if plan.path == "shuffle":
        return {"path": plan.path, "shuffle": _shuffle_ctx(plan)}
    return {"path": plan.path, "shared": {
        "swizzle": d.swizzle.name, "rounds": d.rounds, "warp_sync": d.warp_sync,
        "st_op": d.store.op, "ld_op": d.load.op, "st_matrices": d.store.matrices, "ld_matrices": d.load.matrices,
        "st_thread": affine_expr(d.store.thread_offset, lb), "ld_thread": affine_expr(d.load.thread_offset, lb),
        "st_pred": d.store.predicate_warp_mask,
        "stores": _access_ctx(plan, d.store, "a", True, "st"), "loads": _access_ctx(plan, d.load, "b", False, "ld"),
        "st_wf": d.store.wavefronts_per_instr, "ld_wf": d.load.wavefronts_per_instr,
        "columns": [hexu(c) for c in d.swizzle.columns],
        "sw_vec": d.swizzle.vec, "sw_bank": d.swizzle.bank, "sw_seg": d.swizzle.seg,
    }}


def context(plan, name: str) -> dict:
    """The plain dict the templates print."""
    dt, tgt = plan.dtype, plan.target
    lb = tgt.lane_bits
    ctx = {
        "name": name, "lang": tgt.lang, "target": tgt.name, "path": plan.path, "why": plan.why,
        "dtype": dt.name, "ctype": dt.cuda if tgt.lang == "cuda" else dt.hip, "raw": dt.raw, "bytes": dt.bytes,
        "bits": dt.bits, "lanes": tgt.lanes, "lane_bits": lb, "warps": plan.warps, "threads": plan.warps * tgt.lanes,
        "n_in": plan.n_in, "n_out": plan.n_out, "shape": "x".join(map(str, plan.src.shape)),
        "tile": 1 << plan.src.total_out_bits, "out_copies": list(plan.out_copies),
        "src_json": plan.src.to_dict(), "dst_json": plan.dst.to_dict(),
        "load_src": _global_ctx(plan, plan.src, "a"), "store_dst": _global_ctx(plan, plan.dst, "b"),
    }
    ctx["body"] = _body_ctx(plan)
    ctx["smem_bytes"] = _smem_bytes(plan)
    ctx["fallback"] = None
    if _uses_stmatrix(plan):  # headers must also build for sm_80: plan the same conversion without stmatrix
        from .plan import plan_conversion
        from .target import target as to_target
        old = plan_conversion(plan.src, plan.dst, plan.dtype, to_target("sm_80"), path=plan.path, **dict(plan.options))
        ctx["fallback"] = _body_ctx(old)
        ctx["smem_bytes"] = max(ctx["smem_bytes"], _smem_bytes(old))
    ctx["_ctx"] = ctx  # macros take the whole context
    return ctx
