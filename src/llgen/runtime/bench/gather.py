"""Gather in `llgen bench`: llgen's gather kernels (its pick, and the shuffle and shared-memory paths
forced) against Triton's `gl.gather` with the same layout for source, index and output, on the same index tiles.

LOOP as for conversions: one tile per CTA, 32 CTAs per SM, K gathers in a row with one index tile (x = gather(x,
idx) K times), timed at K = 64 and 128; the slope is ns per gather per tile per SM. Each kernel is first checked
against NumPy's take_along_axis applied K = 3 times, bit for bit. Index patterns: "random" (uniform over the axis,
a fresh draw per tile) and "reverse" (position i reads size - 1 - i: a permutation).
"""

from __future__ import annotations

import numpy as np

from llgen.cases.suite import gather_bench_cases
from llgen.core.errors import LlgenError, error_line
from llgen.core.target import target as to_target
from llgen.emit import RegArray, emit
from llgen.plan.gather import plan_gather
from llgen.runtime.bench.device import compile_all, free_device_memory
from llgen.runtime.bench.rules import short
from llgen.runtime.bench.timing import per_sm_ns
from llgen.runtime.reference import random_input, raw_dtype

PATTERNS = ("random", "reverse")
CHECK_K = 3

LOOP_KERNEL = """
#ifndef LLGEN_DYNAMIC_SCRATCH
#define LLGEN_DYNAMIC_SCRATCH(name) extern __shared__ __align__(16) unsigned char name[]
#endif
// {name}_loop: one tile per CTA; k gathers in a row with one index tile (x = gather(x, idx)), then store x.
extern "C" __global__ void __launch_bounds__({threads}) {name}_loop(const {raw}* __restrict__ src, const int* __restrict__ index, {raw}* __restrict__ out, int k) {{
{scratch}  {word} a[{words}];
  {word} b[{words}];
  unsigned ix[{regs}];
  const long long t = static_cast<long long>(blockIdx.x) * {tile};
  llgen::{name}::load_bits(src + t, a);
  llgen::{name}::load_index_bits(index + t, ix);
  for (int i = 0; i < k; ++i) {{
    llgen::{name}::gather_bits(a, ix, b{smem_arg});
#pragma unroll
    for (int w = 0; w < {words}; ++w) a[w] = b[w];
  }}
  llgen::{name}::store_bits(out + t, a);
}}
"""


def gather_variants(case, target: str = "sm_90") -> tuple[list[tuple[str, object]], dict]:
    """([(name, plan)], skipped): llgen's pick ("llgen"), then the shuffle and shared paths forced where they work
    and differ from it (the shared one may take the target's whole shared memory: the LOOP kernel declares it
    dynamic); ``skipped`` says why the others are not run."""
    pick = plan_gather(case.layout, case.axis, case.dtype, target)
    out, skipped = [("llgen", pick)], {}
    room = to_target(target).smem_per_cta  # the LOOP kernel takes its scratch as dynamic shared memory
    for path in ("shuffle", "shared"):
        try:
            p = plan_gather(case.layout, case.axis, case.dtype, target, path=path, smem_budget=room)
        except LlgenError as e:
            skipped[path] = str(e)
            continue
        same = next((n for n, q in out if (q.path, q.detail) == (p.path, p.detail)), None)
        if same:
            skipped[path] = f"the same kernel as {same}"
        else:
            out.append((path, p))
    return out, skipped


def loop_source(plan, name: str) -> str:
    """The gather's header code and its LOOP kernel ``<name>_loop`` (scratch as dynamic shared memory)."""
    header = "\n".join(x for x in emit(plan, "header", name).splitlines() if x.strip() != "#pragma once")
    words = RegArray("a", plan.dtype.bits, plan.n_regs)
    smem = scratch_bytes(plan)
    return header + LOOP_KERNEL.format(
        name=name,
        threads=plan.warps * plan.lanes,
        raw=plan.dtype.raw,
        word=words.ctype,
        words=words.words,
        regs=plan.n_regs,
        tile=1 << plan.layout.total_out_bits,
        scratch="  LLGEN_DYNAMIC_SCRATCH(smem);\n" if smem else "",
        smem_arg=", smem" if smem else "",
    )


def scratch_bytes(plan) -> int:
    return plan.detail.scratch_bytes if plan.path == "shared" else 0


def index_tiles(pattern: str, shape: tuple, axis: int, tiles: int, rng) -> np.ndarray:
    """int32 index tiles (tiles, *shape) of ``pattern`` along ``axis``."""
    size = shape[axis]
    if pattern == "random":
        return rng.integers(0, size, (tiles, *shape)).astype(np.int32)
    if pattern == "reverse":
        along = (size - 1 - np.arange(size)).reshape([size if d == axis else 1 for d in range(len(shape))])
        return np.ascontiguousarray(np.broadcast_to(along, (tiles, *shape))).astype(np.int32)
    raise LlgenError(f"unknown index pattern '{pattern}'; known: {', '.join(PATTERNS)}.")


def expected(x: np.ndarray, idx: np.ndarray, axis: int, k: int) -> np.ndarray:
    """x (tiles, *shape) gathered k times along ``axis`` by the same index tiles."""
    for _ in range(k):
        x = np.take_along_axis(x, idx.astype(np.int64), axis=1 + axis)
    return x


def run_gather(cases=None, target: str = "sm_90", rep: int = 100, with_triton: bool = True, log=print) -> list[dict]:
    """Every gather case by every index pattern: one result per (case, pattern), never raising (what fails is the
    row's or the variant's "error")."""
    out = []
    for case in gather_bench_cases() if cases is None else cases:
        for pattern in PATTERNS:
            res = {
                "id": case.id,
                "dtype": case.dtype,
                "shape": list(case.shape),
                "warps": case.warps,
                "axis": case.axis,
                "pattern": pattern,
                "note": case.note,
                "variants": {},
                "skipped": {},
            }
            try:
                _run_one(case, res, target, rep, with_triton, log)
            except Exception as e:  # noqa: BLE001 - the case is a row that says why
                res["error"] = error_line(e)
                log(f"  gather {case.id} / {pattern}: {res['error']}")
            out.append(res)
    return out


def _run_one(case, res: dict, target: str, rep: int, with_triton: bool, log) -> None:
    """Fill ``res``, the row of ``case`` under its index pattern (``res["pattern"]``)."""
    import cupy as cp

    pattern = res["pattern"]
    plans, res["skipped"] = gather_variants(case, target)
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    grid, threads = sms * 32, case.warps * 32
    raw = raw_dtype(case.dtype)
    rng = np.random.default_rng()
    xh = random_input(raw, grid * int(np.prod(case.shape)), rng).reshape(grid, *case.shape)
    ih = index_tiles(pattern, tuple(case.shape), case.axis, grid, rng)
    want = cp.asarray(expected(xh, ih, case.axis, CHECK_K).reshape(-1))
    x, idx = cp.asarray(xh.reshape(-1)), cp.asarray(ih.reshape(-1))
    y = cp.empty_like(x)
    try:
        modules = compile_all({n: loop_source(p, "g") for n, p in plans})
        for name, plan in plans:
            r = {"path": plan.path, "shuffles": plan.shuffles, "smem": scratch_bytes(plan)}
            try:
                mod = modules[name]
                if isinstance(mod, Exception):
                    raise mod
                f = mod.get_function("g_loop")
                smem = scratch_bytes(plan)
                f.max_dynamic_shared_size_bytes = smem
                r.update(regs=f.num_regs, local_bytes=f.local_size_bytes)

                def run(k, g, f=f, smem=smem):
                    f((g,), (threads,), (x, idx, y, np.int32(k)), shared_mem=smem)

                y[:] = 0
                run(CHECK_K, grid)
                r["loop_correct"] = bool((y == want).all())
                r["loop_per_sm_ns"] = per_sm_ns(run, grid, sms, rep, per_k=1)
            except Exception as e:  # noqa: BLE001
                r["error"] = error_line(e)
            res["variants"][name] = r
            log(f"  gather {case.id} / {pattern} / {name}: {short(r)}")
        if with_triton:
            r = {"path": "triton"}
            try:
                import torch

                from llgen.runtime.gluon import TORCH_DTYPES, TritonGather  # imports Triton: only where Triton runs

                tdt = getattr(torch, TORCH_DTYPES[case.dtype])
                tx, ty = (torch.as_tensor(a, device="cuda").view(tdt) for a in (x, y))
                ti = torch.as_tensor(idx, device="cuda")
                tg = TritonGather(case.layout, case.axis, case.warps)

                def trun(k, g):
                    tg.loop(tx, ti, ty, k, g)

                y[:] = 0
                trun(CHECK_K, grid)
                r["loop_correct"] = bool((y == want).all())
                r["loop_per_sm_ns"] = per_sm_ns(trun, grid, sms, rep, per_k=1)
                r["regs"] = getattr(tg.compiled, "n_regs", None)
                r["smem"] = getattr(getattr(tg.compiled, "metadata", None), "shared", None)
            except Exception as e:  # noqa: BLE001 - Triton's failure is reported, the rest goes on
                r["error"] = error_line(e)
            res["variants"]["triton"] = r
            log(f"  gather {case.id} / {pattern} / triton: {short(r)}")
    finally:
        free_device_memory()
