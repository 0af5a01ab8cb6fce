"""Nsight Compute in the bench (src/llgen/runtime/ncu.py runs it): the shared-memory wavefronts of every variant next to the
planner's prediction, and, where llgen and Triton are close, how busy each LOOP kernel keeps the LSU data pipe.
Each runs in a worker process under ncu that rebuilds the cases from a JSON file (save_cases, load_cases)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from llgen.cases.suite import Case
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.emit import emit_bench
from llgen.plan.benchshape import bench_shape
from llgen.plan.variants import PICK, variants
from llgen.runtime import ncu
from llgen.runtime.bench.device import compile_all
from llgen.runtime.bench.rules import PIPE_K, PIPE_TIE, loop_ratio
from llgen.runtime.reference import loop_input, raw_dtype

WORKER = "llgen.runtime.bench.counters"  # the module ncu's worker calls into


def measure_wavefronts(cases, target: str, report: dict, log, options: dict | None = None, baselines: bool = True) -> None:
    """Nsight Compute's shared-memory wavefronts of every shared-memory variant (one tile's debug kernel each),
    next to the prediction: variant["wavefronts_meas"][fwd|bwd] = {st, ld, pred_st, pred_ld, floor, verdict}."""
    with tempfile.TemporaryDirectory(prefix="llgen-bench-") as tmp:
        path = save_cases(cases, Path(tmp) / "cases.json", options, baselines)
        res = ncu.measure(wavefront_plans(path, target), f"{WORKER}:wavefront_plans {path} {target}", 600, Path(tmp), target, log)
    report["info"]["ncu"] = {k: res[k] for k in ("metrics", "rc", "timed_out", "seconds")}
    for c in report["cases"]:
        for name, v in c["variants"].items():
            for tag in ("fwd", "bwd"):
                row = res["rows"].get(f"{c['id']}_{name}_{tag}")
                if row:
                    v.setdefault("wavefronts_meas", {})[tag] = {
                        "st": row["st_wf"],
                        "ld": row["ld_wf"],
                        "pred_st": row["pred_st_wf"],
                        "pred_ld": row["pred_ld_wf"],
                        "floor": row["floor_wf"],
                        "verdict": row["verdict"],
                        "launches": row["launches"],
                        **({"fenced_launches": row["fenced_launches"]} if "fenced_launches" in row else {}),
                    }
    log(f"ncu: {len(res['rows'])} shared-memory kernels measured in {res['seconds']} s (rc {res['rc']})")


def measure_pipes(cases, target: str, report: dict, log, options: dict | None = None) -> None:
    """Where llgen's LOOP is not clearly ahead of Triton's (ratio under PIPE_TIE), Nsight Compute's word on how busy
    each LOOP kernel keeps the LSU data pipe, which shared-memory wavefronts and shuffles both go through: a kernel
    that keeps it busy with no more wavefronts or shuffles than the conversion needs is at the hardware's limit.
    variant["pipe"] = {busy_pct (of the cycles its SMs had work), busy_pct_elapsed, wavefronts, cycles} for llgen
    and triton."""
    close = [c for c, rc in zip(cases, report["cases"], strict=True) if (loop_ratio(rc) or PIPE_TIE) < PIPE_TIE]
    if not close:
        return
    with tempfile.TemporaryDirectory(prefix="llgen-pipes-") as tmp:
        call = f"{WORKER}:loop_launches {save_cases(close, Path(tmp) / 'cases.json', options)} {target}"
        res = ncu.pipe_busy(call, "regex:_loop$|^loop_kernel$", 300, Path(tmp))
    triton = iter(res["kernels"].get("loop_kernel", []))
    by_id = {rc["id"]: rc for rc in report["cases"]}
    for c in close:
        for name, m in ((PICK, (res["kernels"].get(f"{c.id}_loop") or [None])[0]), ("triton", next(triton, None))):
            if m and ncu.PIPE_BUSY in m:
                by_id[c.id]["variants"][name]["pipe"] = {
                    "busy_pct": m[ncu.PIPE_BUSY],
                    "alu_busy_pct": m.get(ncu.ALU_BUSY),
                    "wavefronts": m.get("l1tex__data_pipe_lsu_wavefronts.sum"),
                    "busy_pct_elapsed": m.get("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"),
                    "cycles": m.get("sm__cycles_elapsed.avg"),
                }
    log(
        f"ncu: the LSU data pipe of {len(close)} close case(s) in {res['seconds']} s (rc {res['rc']}): "
        + ", ".join(
            f"{c.id} "
            + "/".join(
                f"{by_id[c.id]['variants'][n].get('pipe', {}).get('busy_pct', float('nan')):.1f}%" for n in (PICK, "triton")
            )
            for c in close
        )
    )


def save_cases(cases, path: Path, options: dict | None = None, baselines: bool = True) -> str:
    """The cases and the plan options as JSON, for a worker process under ncu to rebuild with load_cases."""
    fields = ("id", "dtype", "warps", "note", "smem_budget")
    saved = [
        {**{k: getattr(c, k) for k in fields}, "shape": list(c.shape), "src": c.src.to_dict(), "dst": c.dst.to_dict()}
        for c in cases
    ]
    path.write_text(json.dumps({"options": options or {}, "baselines": baselines, "cases": saved}))
    return str(path)


def load_cases(cases_json: str) -> tuple[list, dict, bool]:
    """(cases, plan options, baselines) saved by save_cases."""
    saved = json.loads(Path(cases_json).read_text())
    cases = [
        Case(
            c["id"],
            c["dtype"],
            tuple(c["shape"]),
            c["warps"],
            LinearLayout.from_dict(c["src"]),
            LinearLayout.from_dict(c["dst"]),
            c.get("note", ""),
            c.get("smem_budget"),
        )
        for c in saved["cases"]
    ]
    return cases, saved["options"], saved.get("baselines", True)


def wavefront_plans(cases_json: str, target: str) -> list[tuple[str, object]]:
    """Every variant's two plans for the cases saved by save_cases (ncu's worker rebuilds them from the file), named
    <case>_<variant>_<fwd|bwd>."""
    out = []
    cases, options, baselines = load_cases(cases_json)
    for case in cases:
        try:
            vs = variants(case, target, options, baselines)
        except LlgenError:  # the case is an error row of the report already
            continue
        for v in vs:
            out += [(f"{case.id}_{v.name}_fwd", v.fwd), (f"{case.id}_{v.name}_bwd", v.bwd)]
    return out


def loop_launches(cases_json: str, target: str) -> None:
    """ncu's worker for measure_pipes: per case, llgen's LOOP kernel (<case>_loop) and then Triton's (loop_kernel),
    each launched once with 32 CTAs per SM, as LOOP times them, and PIPE_K round trips, so that the tile's load and
    store around the loop weigh little (LOOP's timing cancels them: it is a slope in K)."""
    import cupy as cp
    import torch

    from llgen.runtime.gluon import TORCH_DTYPES, TritonCase  # imports Triton: only in the worker

    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    cases, options, _ = load_cases(cases_json)
    for case in cases:
        v = variants(case, target, options)[0]
        tile, raw = 1 << case.src.total_out_bits, raw_dtype(case.dtype).type
        x = cp.asarray(loop_input(case.dtype, raw, tile * sms * 32, np.random.default_rng(1)))
        y = cp.empty_like(x)
        # built as the bench built it (compile_all: for one CTA an SM where ptxas's own budget spills)
        name = f"{case.id}_loop"
        loop = compile_all({case.id: emit_bench(v.fwd, v.bwd, case.id, bench_shape(v.fwd, v.bwd))}, loop=name)[
            case.id
        ].get_function(name)
        smem = bench_shape(v.fwd, v.bwd).loop.bytes
        loop.max_dynamic_shared_size_bytes = smem
        loop((sms * 32,), (case.warps * 32,), (x, y, np.int32(PIPE_K)), shared_mem=smem)
        tx = torch.as_tensor(x, device="cuda").view(getattr(torch, TORCH_DTYPES[case.dtype]))
        TritonCase(case.src, case.dst, case.warps, case.dtype).loop(tx, torch.empty_like(tx), PIPE_K, sms * 32)
        cp.cuda.Device(0).synchronize()
