"""The endpoint suite's LOOP kernel (`llgen bench --suite endpoint`): one tile a CTA loaded from global memory in
layout P, then k times {store P into S; load Q; +1; store Q into S; load P}, then stored back in P, through the four
endpoint plans of one fixed shared layout S. Each plan is printed by the endpoint emitter (endpoint.py,
src/llgen/templates/endpoint.j2) into its own namespace; src/llgen/templates/endpoint_bench.j2 only calls them and
places the barriers.
"""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.errors import LlgenError
from llgen.emit.bench import add_one
from llgen.emit.endpoint import context
from llgen.emit.environment import check_name, environment
from llgen.emit.spelling import RegArray

DYNAMIC_ALIGN = 16  # what the dynamic shared array is declared with (macros.j2 define_dynamic_scratch)
ROLES = (("st_p", "store"), ("ld_q", "load"), ("st_q", "store"), ("ld_p", "load"))  # the loop's order


@dataclass(frozen=True)
class EndpointLoop:
    """The endpoint LOOP's source and how to launch it."""

    source: str
    kernel: str  # the LOOP kernel's name: (const Raw* in, Raw* out, int k), one tile a CTA
    threads: int
    launch_smem: int  # bytes of dynamic shared memory to launch with (0: S is a static array)


def emit_endpoint_loop(plans, name: str) -> EndpointLoop:
    """The LOOP kernel over ``plans`` = (store P, load Q, store Q, load P), endpoint plans of one shared layout. Over
    the target's static limit S is dynamic shared memory, rounded up to kSmemAlign inside the kernel."""
    check_name(name)
    st_p, ld_q, st_q, ld_p = plans
    if [p.direction for p in plans] != [d for _, d in ROLES]:
        raise LlgenError("the endpoint LOOP takes (store P, load Q, store Q, load P) plans, in that order.")
    if st_p.dist != ld_p.dist or ld_q.dist != st_q.dist:
        raise LlgenError("the endpoint LOOP's stores and loads must use the same P and the same Q.")
    if len({(p.shared, p.smem_bytes, p.dtype, p.target, p.warps) for p in plans}) != 1:
        raise LlgenError("the endpoint LOOP's plans must share one shared layout, element type, target and warp count.")
    tgt, dt = st_p.target, st_p.dtype
    if tgt.lang != "cuda":
        raise LlgenError(f"the endpoint LOOP kernel is CUDA only, not {tgt.name}.")
    env = environment()
    ns = {role: f"{name}_{role}" for role, _ in ROLES}
    sources = []
    for (role, _), plan in zip(ROLES, plans, strict=True):
        ctx = context(plan, ns[role])
        sources.append(env.get_template("endpoint.j2").render(**ctx, in_kernel=True))
    p_arr = RegArray("wp", dt.bits, 1 << st_p.dist.in_bits("register"))
    q_arr = RegArray("wq", dt.bits, 1 << ld_q.dist.in_bits("register"))
    align = max(p.smem_align for p in plans)
    dynamic = st_p.smem_bytes > tgt.static_smem
    threads = st_p.warps * tgt.lanes
    launch = st_p.smem_bytes + max(0, align - DYNAMIC_ALIGN) if dynamic else 0  # room to round the base up
    ctx = {
        "name": name,
        "ns": ns,
        "sources": sources,
        "raw": dt.raw,
        "dtype": dt.name,
        "threads": threads,
        "tile": 1 << st_p.dist.total_out_bits,
        "p_words": p_arr.words,
        "q_words": q_arr.words,
        "inc_q": [f"wq[{k}] = {add_one(dt.name, q_arr, k, 'cuda')};" for k in range(q_arr.words)],
        "f16": dt.name == "f16",
        "smem_bytes": st_p.smem_bytes,
        "align": align,
        "dynamic": dynamic,
        "launch": launch,
        "forms": [f"{role}: {p.form.replace('_', '-')} {p.side.op}" for (role, _), p in zip(ROLES, plans, strict=True)],
    }
    return EndpointLoop(env.get_template("endpoint_bench.j2").render(**ctx), f"{name}_loop", threads, launch)
