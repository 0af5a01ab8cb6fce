"""A shared-memory endpoint plan (plan/endpoint.py, a store or a load) as source text: a vendorable header
(``store``/``store_bits`` or ``load``/``load_bits``, with the global helper the standalone kernel needs) and a
standalone kernel that `llgen check` runs (src/llgen/runtime/endpointcheck.py); llgen.emit.tile prints a tile's store
and load as one header from this module's contexts. A vendorable header's comments say how to declare the tile and
which element each register holds (llgen.emit.registers).

The shared access is the plan's Side, printed as the conversion templates print a shared plan's stores or loads
(the same macros: vector pointer casts, the ldmatrix/stmatrix helpers); a two-step plan's Q <-> D conversion is
the conversion planner's register or shuffle body, printed by the same macro as a conversion's. A padded S maps
each access's element offset through the padding function ``pad``, since padding is not linear.
"""

from __future__ import annotations

import hashlib
import json
import re

from llgen.core.errors import LlgenError
from llgen.emit.context import access_dict, body_ctx, called_helpers, element_and_group, global_tables, provenance
from llgen.emit.environment import environment
from llgen.emit.registers import register_lines
from llgen.emit.spelling import RegArray, address, affine_expr, hexu, loads_named, name_loads
from llgen.plan.hw import Hw


def dynamic_smem(plan) -> int:
    """Dynamic shared memory the standalone kernels take at launch: S's buffer where it is over what a static array may
    hold (Target.static_smem: 48 KB on CUDA, where the kernels then opt in to more), else 0."""
    return plan.smem_bytes if plan.smem_bytes > plan.target.static_smem else 0


def name(plan, kinds: tuple[str, str] | None = None) -> str:
    """``st_<D's kind>2<S's kind>_<dtype>_<shape>_<hash>`` (``ld_`` for a load): the hash covers both layouts, the
    padding, the dtype, the target and the warps."""
    key = json.dumps(
        [
            plan.direction,
            plan.dist.to_dict(),
            plan.shared.to_dict(),
            [list(p) for p in plan.buffer.intervals],
            plan.dtype.name,
            plan.target.name,
            plan.warps,
        ],
        sort_keys=True,
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    what = "2".join(re.sub(r"[^A-Za-z0-9]", "", k) or "x" for k in kinds) if kinds else plan.path
    prefix = "st" if plan.direction == "store" else "ld"
    return f"{prefix}_{what}_{plan.dtype.name}_{'x'.join(map(str, plan.dist.shape))}_{digest}"


def _accesses(plan, arr: RegArray, store: bool) -> list[dict]:
    """Each instruction of the shared side as printable pieces (the conversion macros' st_vector/ld_vector,
    stmatrix/ldmatrix): through ``pad`` where S is padded."""
    side, eb = plan.side, plan.dtype.bytes
    padded = plan.buffer.padded
    named = not store and loads_named(arr, [list(ins.regs) for ins in side.instrs], side.matrices, eb)
    out = []
    for ins in side.instrs:
        regs = list(ins.regs)
        if padded:
            thread = f"(off ^ {hexu(ins.xor_const)})" if ins.xor_const else "off"
            where = f"pad({thread} + {hexu(ins.add_const)}) * {eb}" if ins.add_const else f"pad({thread}) * {eb}"
            d = {"regs": regs, "base": where, "imm": "0", "addr": where}
        else:
            d = {"regs": regs, **address("off", ins.xor_const, ins.add_const, eb)}
        d.update(access_dict(arr, regs, side.matrices, eb, store, named))
        out.append(d)
    return out


def _offset_map(plan) -> list[str]:
    """S's offset bits as the comment names them: offset bit i -> the element coordinates it moves by."""
    bases = plan.shared.to_dict()["bases"]["offset"]
    return [f"{1 << i} -> ({', '.join(map(str, b))})" for i, b in enumerate(bases)]


def _instruction(plan) -> str:
    """The instruction tile and the vector width, for the comments."""
    side, eb = plan.side, plan.dtype.bytes
    if side.matrices:
        trans = ".trans" if side.op.endswith("trans") else ""
        base = side.op.split(".")[0]
        return (
            f"{base}.x{side.matrices}{trans}: {side.matrices} 8x8 matrices of 16-byte rows (lanes 8m..8m+7 address "
            f"matrix m), {side.width} elements a thread"
        )
    return f"{side.op} of {side.width} element(s), {side.width * eb} bytes a thread"


def context(plan, name: str, command: str | None = None) -> dict:
    """The plain dict endpoint.j2 and endpoint_kernel.j2 print."""
    dt, tgt = plan.dtype, plan.target
    lb = tgt.lane_bits
    store = plan.direction == "store"
    n = 1 << plan.dist.in_bits("register")
    d_arr = RegArray("a" if store else "b", dt.bits, n)
    conv = None
    if plan.convert is not None:
        nq = 1 << plan.staging.in_bits("register")
        q_arr = RegArray("b" if store else "a", dt.bits, nq)
        conv = body_ctx(plan.convert)
        access_arr = q_arr
    else:
        q_arr, access_arr = None, d_arr
    g_arr = RegArray("a" if store else "b", dt.bits, n)
    side = plan.side
    accesses = _accesses(plan, access_arr, store)
    intervals = list(plan.buffer.intervals)
    copies = [] if store or conv else [d_arr.set(j, d_arr.elem(k)) for j, k in plan.copies]
    ctx = {
        "name": name,
        "hip": tgt.is_hip,
        "target": tgt.name,
        "store": store,
        "op_path": plan.path,
        **element_and_group(dt, tgt, plan.warps),
        "regs": n,
        "words": d_arr.words,
        "word": d_arr.ctype,
        "per": d_arr.per,
        "q_words": q_arr.words if q_arr else 0,
        "shape": "x".join(map(str, plan.dist.shape)),
        "tile": False,  # one side; a tile header holds a store and a load (tile_context)
        "tile_elems": 1 << plan.dist.total_out_bits,
        "cols": plan.dist.shape[-1],
        "dist_json": plan.dist.to_dict(),
        "shared_json": plan.shared.to_dict(),
        "offset_map": _offset_map(plan),
        "intervals": intervals,
        "pad_terms": [(i.bit_length() - 1, p) for i, p in intervals],
        "instruction": _instruction(plan),
        "matrices": side.matrices,
        "trans": side.op.endswith("trans"),
        "thread": affine_expr(side.thread_offset, lb),
        "pred": side.predicate_warp_mask,
        "accesses": accesses,
        "fills": [] if store else name_loads(access_arr, accesses, side.matrices, dt.bytes),
        "copies": copies,
        "wavefronts": plan.wavefronts,
        "floor": plan.floor,
        "floor_reason": plan.floor_reason,
        "smem_bytes": plan.smem_bytes,
        "smem_align": plan.smem_align,
        "align_reason": plan.align_reason,
        "convert": conv,
        "convert_path": plan.convert.path if plan.convert is not None else None,
        "staging_json": plan.staging.to_dict() if plan.staging is not None else None,
        "global": global_tables(plan.tile_io, dt.bytes, lb, g_arr),
        "reg_broadcast": Hw.of(plan.dist).reg_broadcast_mask,
        **provenance(command),
    }
    # byte_perm where a vector packs scattered registers or a loaded word joins two loads' halves
    ctx["helpers"] = called_helpers(ctx["accesses"], ctx["fills"], conv, copies)
    ctx.update(_documentation(plan))
    ctx["matrix_ops"] = (
        [{"op": "stmatrix" if store else "ldmatrix", "n": side.matrices, "trans": ctx["trans"]}] if side.matrices else []
    )
    ctx["_ctx"] = ctx
    return ctx


def _documentation(plan) -> dict:
    """What a vendorable header adds for its reader: which element each register holds (comments, and the flat_/coord_
    functions' tables), and how to declare the tile (opt_in: over what a static __shared__ array may hold)."""
    hw = Hw.of(plan.dist)
    shape = plan.dist.shape
    return {
        "reg_doc": register_lines(plan.dist, plan.dtype.bits, "in" if plan.direction == "store" else "out"),
        "flat": {k: [hexu(c) for c in getattr(hw, k)] or ["0u"] for k in ("reg", "lane", "warp")},
        "nbits": [len(hw.reg), len(hw.lane), len(hw.warp)],
        "rank": len(shape),
        "dims": list(shape),
        "opt_in": plan.smem_bytes > plan.target.static_smem,
        "static_smem": plan.target.static_smem,
    }


def render(
    plan, form: str, kernel_name: str, command: str | None = None, header_file: str | None = None, packed: dict | None = None
) -> str:
    """Source text of an endpoint plan: form "header" (.cuh/.hip.h to vendor) or "kernel" (the standalone check kernel,
    which includes ``header_file`` where given instead of repeating the header; over 48 KB its buffer is dynamic shared
    memory, `dynamic_smem` bytes at launch); ``packed``: a 4-bit plan's packing, for the byte plan ``plan``."""
    if form not in ("kernel", "header"):
        raise LlgenError(f"unknown form '{form}'; use kernel or header.")
    if form == "kernel" and plan.smem_bytes > plan.target.smem_per_cta:
        raise LlgenError(
            f"S's buffer of {plan.smem_bytes} bytes is more than the {plan.target.smem_per_cta} bytes of shared memory "
            f"a block may use on {plan.target.name}, so no check kernel can hold it."
        )
    ctx = context(plan, kernel_name, command)
    ctx["header_file"] = header_file if form == "kernel" else None
    ctx["in_kernel"] = form == "kernel"
    ctx["packed"] = packed
    ctx["dynamic_smem"] = dynamic_smem(plan)
    template = "endpoint.j2" if form == "header" else "endpoint_kernel.j2"
    return environment().get_template(template).render(**ctx)
