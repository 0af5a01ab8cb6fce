"""GatherPlan -> template context -> CUDA or HIP source (kernel and vendorable header).

Like the conversion emitter, this only spells the plan's numbers as C expressions; src/llgen/templates/gather.j2 prints
them. Register indices are compile-time constants everywhere: the run-time index picks a source
lane (shfl.idx), a word (ternary selects) and an element inside a word (a shift), never an
array slot.
"""

from __future__ import annotations

from llgen.core.errors import LlgenError
from llgen.emit.context import called_helpers, element_and_group, global_ctx
from llgen.emit.environment import environment
from llgen.emit.spelling import RegArray, address, affine_expr, hexu, replica_test, run_term, vector_access


def name(plan, kinds: tuple[str, str] | None = None) -> str:  # noqa: ARG001 - one layout: the kinds name nothing
    return f"gather_{plan.dtype.name}_{'x'.join(map(str, plan.layout.shape))}_ax{plan.axis}"


def render(
    plan,
    form: str,
    kernel_name: str,
    command: str | None = None,  # noqa: ARG001
    header_file: str | None = None,
    packed: dict | None = None,
) -> str:
    """Form "kernel" (standalone .cu/.hip: ``<name>_kernel`` and ``<name>_debug``, with the header's code inline) or
    "header" (.cuh/.hip.h to vendor). Its opening comment names no command line. ``packed``: a 4-bit gather's packing
    (llgen.emit.packed), for its byte plan ``plan``: gather_packed, and check kernels that gather every nibble."""
    if header_file is not None:
        raise LlgenError("a gather kernel holds its header's code; it includes no header.")
    ctx = gather_context(plan, kernel_name, form)
    ctx["packed"] = packed
    return environment().get_template("gather.j2").render(**ctx)


def dynamic_smem(plan) -> int:  # noqa: ARG001 - every gather kernel declares its scratch as a static array
    """0: a gather's scratch stays under a static array's limit (plan.gather), so its kernels take none at launch."""
    return 0


def _deposit_expr(var: str, runs) -> str:
    """C for OR over runs (src, dst, width) of ((var >> src) & mask) << dst."""
    return " | ".join(run_term(var, s, d, w) for s, d, w in runs) or "0u"


def _shuffle_ctx(plan, a: RegArray, b: RegArray) -> dict:
    d = plan.detail
    mask = hexu((1 << plan.dtype.bits) - 1)
    dests = []
    for j in dict.fromkeys(r.dest for r in d.rounds):
        rounds = [{"words": a.words_of(list(r.send)), "sel": hexu(r.select_value)} for r in d.rounds if r.dest == j]
        ix = f"ix[{j}]"
        if plan.dtype.bits == 64:
            store = [f"b[{j}] = static_cast<unsigned long long>(v0) | (static_cast<unsigned long long>(v1) << 32);"]
        elif plan.dtype.bits == 32:
            store = [f"b[{j}] = v0;"]
        else:
            pos = _deposit_expr(ix, d.pack_runs)
            elem = f"((v0 >> ({plan.dtype.bits}u * ({pos}))) & {mask})" if d.pack > 1 else f"(v0 & {mask})"
            store = [b.set(j, elem)]
        dests.append(
            {
                "dest": j,
                "rounds": rounds,
                "store": store,
                "src_lane": (f"(lane & {hexu(d.lane_keep)}) | " if d.lane_keep else "") + _deposit_expr(ix, d.lane_runs),
                "select": f"({ix} & {hexu(d.select_mask)})",
            }
        )
    return {
        "dests": dests,
        "op": d.rounds[0].op if d.rounds else "local",
        "nwords": d.words_per_element,
        "rounds_per_dest": d.rounds_per_dest,
        "pack": d.pack,
        "shuffles": d.shuffles,
    }


def _shared_ctx(plan, a: RegArray, b: RegArray) -> dict:
    d = plan.detail
    lb = plan.target.lane_bits
    st = d.store
    eb = plan.dtype.bytes
    stores = [dict(vector_access(a, list(i.regs), eb), **address("st", i.xor_const, i.add_const, eb)) for i in st.instrs]
    raw = plan.dtype.raw
    loads = []
    for j, c in d.loads:
        off = f"ld + {hexu(c)} + ((ix[{j}] & {hexu(d.axis_mask)}) << {d.axis_shift})"
        value = f"*reinterpret_cast<const {raw}*>(s + ({off}) * {plan.dtype.bytes})"
        stmt = f"b[{j}] = {value};" if b.per == 1 else b.set(j, f"static_cast<unsigned>({value})")
        loads.append(stmt)
    return {
        "st_thread": affine_expr(st.thread_offset, lb),
        "ld_thread": affine_expr(d.load_thread, lb),
        "stores": stores,
        "skip": replica_test(st.skip_lane_mask, st.skip_warp_mask),
        "loads": loads,
        "scratch": d.scratch_bytes,
    }


def gather_context(plan, name: str, form: str = "header") -> dict:
    """The plain dict gather.j2 prints."""
    dt, tgt = plan.dtype, plan.target
    n = plan.n_regs
    a, b = (RegArray(x, dt.bits, n) for x in ("a", "b"))
    ix = RegArray("ix", 32, n)
    smem = plan.detail.scratch_bytes if plan.path == "shared" else 0
    ctx = {
        "name": name,
        "form": form,
        "hip": tgt.is_hip,
        "target": tgt.name,
        "path": plan.path,
        "why": plan.why,
        **element_and_group(dt, tgt, plan.warps),
        "n": n,
        "axis": plan.axis,
        "axis_size": plan.axis_size,
        "shape": "x".join(map(str, plan.layout.shape)),
        "tile": 1 << plan.layout.total_out_bits,
        "layout_json": plan.layout.to_dict(),
        "word": a.ctype,
        "na": a.words,
        "nb": b.words,
        "per": a.per,
        "smem_bytes": smem,
        "shuffles": plan.shuffles,
        "load_src": global_ctx(plan.global_io, dt.bytes, tgt.lane_bits, a),
        "load_idx": global_ctx(plan.index_io, 4, tgt.lane_bits, ix),
        "store_out": global_ctx(plan.global_io, dt.bytes, tgt.lane_bits, b),
        "a_elems": [a.elem(i) for i in range(n)],
        "b_elems": [b.elem(j) for j in range(n)],
        "a_sets": [a.set(i, f"static_cast<{a.ctype}>(bit_cast<{dt.raw}>(src[{i}]))") for i in range(n)],
        "b_sets": [b.set(j, f"static_cast<{b.ctype}>(bit_cast<{dt.raw}>(out[{j}]))") for j in range(n)],
        "copies": [b.set(j, b.elem(k)) for j, k in plan.out_copies],
    }
    if plan.path == "shared":
        ctx["shared"] = _shared_ctx(plan, a, b)
    else:
        ctx["shuffle"] = _shuffle_ctx(plan, a, b)
    # the shuffle rounds' shfl_idx calls are the template's own (macros.j2)
    idx = plan.path != "shared" and ctx["shuffle"]["op"] == "idx"
    ctx["helpers"] = called_helpers(ctx) + (["shfl_idx"] if idx else [])
    ctx["_ctx"] = ctx  # macros take the whole context
    return ctx
