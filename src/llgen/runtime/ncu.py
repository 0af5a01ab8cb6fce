"""Nsight Compute's counters for emitted kernels, next to the planner's prediction.

`measure(plans, source, ...)` runs this module under ncu as a worker: the worker calls ``source`` ("module:function
arg...", returning the caller's [(name, plan)] again), compiles each plan's debug kernel and launches it LAUNCHES
times (one CTA = one tile), and ncu records the wavefront and instruction counters of every ``*_debug`` launch. `make
gpu-check` and `llgen bench --measures wavefronts` both measure through here; a kernel over the prediction is
measured again with a barrier before its slot stores (FENCED_MATCH where that takes exactly the prediction,
docs/design.md §7.5). `measure_endpoints` does the same for shared-memory endpoint plans (stores and
loads), through their check kernels.

`pipe_busy(call, kernels, ...)` runs ``call`` (a function that launches kernels itself) under ncu and reads how busy
each matching kernel kept the SM's LSU data pipe, which carries shared-memory wavefronts and warp shuffles alike:
whether a LOOP kernel is at the hardware's limit.
"""

from __future__ import annotations

import csv
import importlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

WF_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
WF_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
INST_LD = "smsp__inst_executed_op_shared_ld.sum"
INST_ST = "smsp__inst_executed_op_shared_st.sum"
CORE_METRICS = [WF_LD, WF_ST, INST_LD, INST_ST]
EXTRA_METRICS = [  # used where `ncu --query-metrics` lists them
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_stsm.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
]


PIPE_BUSY = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active"  # over the cycles an SM has work
ALU_BUSY = "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"  # the integer ALU (SEL, PRMT, LOP3, IADD)
PIPE_METRICS = [
    PIPE_BUSY,
    ALU_BUSY,
    "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_pipe_lsu_wavefronts.sum",
    "sm__cycles_elapsed.avg",
]

# a debug kernel over the prediction as emitted that takes exactly the prediction with a barrier before its slot
# stores: the excess was global-memory traffic beside the conversion's shared loads (docs/design.md §7.5)
FENCED_MATCH = "match when fenced"


def tool_path(name: str) -> str | None:
    """``name`` on PATH, else in the usual CUDA and Nsight Compute install folders."""
    found = shutil.which(name)
    if found:
        return found
    for pattern in (
        f"/usr/local/cuda/bin/{name}",
        f"/usr/local/cuda-*/bin/{name}",
        f"/opt/nvidia/nsight-compute/*/{name}",
        f"/usr/local/cuda/nsight-compute-*/{name}",
    ):
        hits = sorted(Path("/").glob(pattern.lstrip("/")))
        if hits:
            return str(hits[-1])
    return None


def run_proc(cmd: list[str], timeout: float, env: dict | None = None) -> dict:
    """Run ``cmd`` in its own process group; on timeout kill that group (the tool and the Python under it)."""
    t0 = time.monotonic()
    p = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True, env=env
    )
    timed_out = False
    try:
        out, _ = p.communicate(timeout=max(1.0, timeout))
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
    return {"rc": p.returncode, "out": out or "", "timed_out": timed_out, "seconds": round(time.monotonic() - t0, 1)}


def parse_ncu_csv(text: str) -> dict[str, list[dict[str, float]]]:
    """`ncu --csv --page raw` output -> {kernel name: [{metric: value} per launch, in order]}; other lines (==PROF==,
    program output) are skipped."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    out: dict[str, dict[str, float]] = {}
    header = None
    for row in rows:
        if row and row[0] == "ID" and "Kernel Name" in row:
            header = row
            continue
        if header is None or not row or not row[0].strip().isdigit():
            continue  # the units row, or noise
        rec = dict(zip(header, row, strict=False))
        name = rec.get("Kernel Name", "").split("(")[0].strip()
        vals = {}
        for k, v in rec.items():
            if "__" not in k:
                continue
            try:
                vals[k] = float(v.replace(",", ""))
            except ValueError:
                continue
        out.setdefault(name, []).append(vals)
    return out


def query_metrics(ncu: str) -> set[str] | None:
    """Base names ncu knows on this device, or None when it cannot say."""
    r = run_proc([ncu, "--query-metrics"], 60)
    if r["rc"] != 0:
        return None
    names = set(re.findall(r"^\s*([a-z0-9]+__[A-Za-z0-9_]+)", r["out"], re.MULTILINE))
    return names or None


def choose_metrics(known: set[str] | None) -> list[str]:
    if known is None:
        return list(CORE_METRICS)
    return list(CORE_METRICS) + [m for m in EXTRA_METRICS if m.rsplit(".", 1)[0] in known]


def prediction(plan) -> dict:
    """The planner's numbers for one CTA (one tile): wavefronts and instructions of each side."""
    d = plan.detail
    active_st = sum(1 for w in range(plan.warps) if not w & d.store.predicate_warp_mask)
    return {
        "swizzle": d.swizzle.name,
        "st_op": d.store.op,
        "ld_op": d.load.op,
        "pred_st_wf": d.predicted_store_wavefronts,
        "pred_ld_wf": d.predicted_load_wavefronts,
        "pred_st_instr": len(d.store.instrs) * active_st,
        "pred_ld_instr": len(d.load.instrs) * plan.warps,
        "st_wf_per_instr": d.store.wavefronts_per_instr,
        "ld_wf_per_instr": d.load.wavefronts_per_instr,
        "floor_wf": d.floor_wavefronts,
    }


def compare_wavefronts(pred: dict, meas: dict) -> dict:
    """Measured next to predicted. The wavefront counters include ldmatrix/stmatrix (docs/design.md §7); where the plain
    counter misses and adding the ldsm/stsm counter matches, that is said, not hidden."""
    row = dict(pred)
    st, ld = meas.get(WF_ST), meas.get(WF_LD)
    row.update(
        {
            "st_wf": st,
            "ld_wf": ld,
            "st_instr": meas.get(INST_ST),
            "ld_instr": meas.get(INST_LD),
            "ldsm_wf": meas.get(EXTRA_METRICS[0]),
            "stsm_wf": meas.get(EXTRA_METRICS[1]),
            "ldsm_instr": meas.get(EXTRA_METRICS[2]),
            "stsm_instr": meas.get(EXTRA_METRICS[3]),
            # the counters of the pipes, without the device attributes and launch facts ncu's raw page adds
            "raw": {k: v for k, v in meas.items() if k.split("__")[0] in ("l1tex", "smsp", "sm", "gpu")},
        }
    )
    if st is None or ld is None:
        row["verdict"] = "not measured"
        return row
    st_ok, ld_ok = st == pred["pred_st_wf"], ld == pred["pred_ld_wf"]
    notes = []
    if not ld_ok and row["ldsm_wf"] is not None and ld + row["ldsm_wf"] == pred["pred_ld_wf"]:
        ld_ok, notes = True, notes + ["ld = op_ld + op_ldsm"]
    if not st_ok and row["stsm_wf"] is not None and st + row["stsm_wf"] == pred["pred_st_wf"]:
        st_ok, notes = True, notes + ["st = op_st + op_stsm"]
    row["verdict"] = "match" if st_ok and ld_ok else "MISMATCH"
    row["note"] = "; ".join(notes)
    return row


def compare_launches(pred: dict, launches: list[dict]) -> dict:
    """The same kernel launched several times: "match" when every launch's counters equal the prediction, "unstable"
    when some do and some do not (the hardware counted identical launches differently, so the deterministic model
    cannot be what is off), "MISMATCH" when none does. The row shows the first launch; "launches" has them all."""
    rows = [compare_wavefronts(pred, m) for m in launches] or [compare_wavefronts(pred, {})]
    row = dict(rows[0])
    row["launches"] = [(r["st_wf"], r["ld_wf"]) for r in rows]
    verdicts = {r["verdict"] for r in rows}
    if len(verdicts) > 1 and "match" in verdicts:
        row["verdict"] = "unstable"
        row["note"] = "; ".join(
            filter(
                None,
                [
                    row.get("note"),
                    "launches (st, ld): "
                    + ", ".join(f"({st:g}, {ld:g})" for st, ld in row["launches"] if st is not None and ld is not None),
                ],
            )
        )
    return row


def _call(source: str):
    """``"module:function arg ..."`` -> function(*args): for `measure`'s worker, the [(name, plan)] to measure."""
    ref, *args = source.split()
    module, func = ref.split(":")
    return getattr(importlib.import_module(module), func)(*args)


def measure(plans: list, source: str, timeout: float, log_dir: Path, target: str = "sm_90", log=print) -> dict:
    """Every shared-memory plan of ``plans`` [(name, plan)] under ncu; ``source`` is how the worker process rebuilds
    the same list. Returns {"rows": {name: compared row}, "metrics", "rc", "timed_out", "seconds", "out"}; a missing
    ncu gives no rows and says so in "out"."""
    res, measured = _counters([target, source], "regex:_debug$", timeout, log_dir, log, "ncu")
    if res["rc"] is None:
        return res
    res["rows"] = {
        name: compare_launches(prediction(plan), measured.get(f"{name}_debug") or [])
        for name, plan in plans
        if plan.path == "shared"
    }
    over = [name for name, row in res["rows"].items() if row["verdict"] != "match" and _over(row)]
    if over:  # again with a barrier before the slot stores: is the excess the conversion's own?
        log(f"ncu: {len(over)} kernel(s) over the prediction; again with a barrier before their slot stores")
        _, fenced = _counters([target, source, ",".join(over)], "regex:_fenced_debug$", timeout, log_dir, log, "ncu-fenced")
        plan_of = dict(plans)
        for name in over:
            row = res["rows"][name]
            again = compare_launches(prediction(plan_of[name]), fenced.get(f"{name}_fenced_debug") or [])
            row["fenced_launches"] = again["launches"]
            if again["verdict"] == "match":
                row["verdict"] = FENCED_MATCH
                row["note"] = "; ".join(
                    filter(None, [row.get("note"), "the predicted counts with a barrier before the slot stores"])
                )
    return res


def _over(row: dict) -> bool:
    """Some launch counted more store or load wavefronts than predicted."""
    return any(
        (st is not None and st > row["pred_st_wf"]) or (ld is not None and ld > row["pred_ld_wf"]) for st, ld in row["launches"]
    )


def fence_slot_stores(source: str, name: str) -> str:
    """``name``_debug with a barrier between the conversion and the stores of B's slots: in a large tile's debug
    kernel ptxas starts storing the slots that earlier rounds finished while the last round's shared loads still
    run, and Nsight Compute counts those loads' wavefronts higher (docs/design.md §7.5)."""
    line = f"  llgen::{name}::unpack(b, out);"
    if source.count(line) != 1:
        raise ValueError(f"the debug kernel of {name} has no single unpack of B to fence")
    return source.replace(line, "  __syncthreads();  // the conversion's shared loads before any slot store\n" + line)


def frame_wavefronts(smem_bytes: int, threads: int, lanes: int = 32) -> int:
    """Wavefronts of one of the endpoint check kernels' byte loops over S's buffer (the 0xa5 fill, the copy in
    or out: thread t takes bytes t, t + threads, ...): a warp instruction for each step in which any of its lanes
    is in range, its 32 adjacent bytes one wavefront."""
    return sum(max(0, -(-(smem_bytes - lanes * w) // threads)) for w in range(threads // lanes))


def endpoint_prediction(plan) -> dict:
    """What an endpoint plan's check kernel (src/llgen/runtime/endpointcheck.py) should count: a store kernel stores the
    plan's wavefronts after the fill and loads the copy-out; a load kernel stores the copy-in and loads the plan's.
    Instructions likewise: one a byte-loop step, one per plan instruction and warp that runs it."""
    side, lanes = plan.side, plan.target.lanes
    frame = frame_wavefronts(plan.smem_bytes, plan.warps * lanes, lanes)
    store = plan.direction == "store"
    warps = plan.warps >> side.predicate_warp_mask.bit_count() if store else plan.warps
    instrs = len(side.instrs) * warps
    access = f"{side.op} x{side.width}" + (f" + {plan.convert.path}" if plan.convert is not None else "")
    return {
        "access": access,
        "plan_wf": plan.wavefronts,
        "frame_wf": frame,
        "floor_wf": plan.floor,
        "pred_st_wf": plan.wavefronts + frame if store else frame,
        "pred_ld_wf": frame if store else plan.wavefronts,
        "pred_st_instr": instrs + frame if store else frame,
        "pred_ld_instr": frame if store else instrs,
    }


def measure_endpoints(items: list, source: str, timeout: float, log_dir: Path, log=print) -> dict:
    """Every endpoint plan of ``items`` [(name, plan)] under ncu (its check kernel ``name_store`` or
    ``name_load``), next to `endpoint_prediction`; ``source`` is how the worker rebuilds ``items``. Returns what
    `measure` does."""
    res, measured = _counters(["--endpoints", source], "regex:_(store|load)$", timeout, log_dir, log, "ncu-endpoints")
    if res["rc"] is None:
        return res
    res["rows"] = {
        name: compare_launches(endpoint_prediction(plan), measured.get(f"{name}_{plan.direction}") or []) for name, plan in items
    }
    return res


def _counters(worker_args: list[str], kernels: str, timeout: float, log_dir: Path, log, stem: str) -> tuple[dict, dict]:
    """ncu over this module's worker (``worker_args``) with the shared-memory metrics this ncu knows (again with
    the four core metrics if the extra ones fail): ({"metrics", "rc", "timed_out", "seconds", "out"}, {kernel:
    [{metric: value} per launch]})."""
    ncu = tool_path("ncu")
    if not ncu:
        return {"rows": {}, "metrics": [], "rc": None, "timed_out": False, "seconds": 0, "out": "ncu not found"}, {}
    t0 = time.monotonic()
    metrics = choose_metrics(query_metrics(ncu))
    worker = [sys.executable, "-m", "llgen.runtime.ncu", *worker_args]
    r, measured = _run_ncu(ncu, metrics, kernels, worker, timeout, log_dir / stem)
    if r["rc"] != 0 and not measured and metrics != CORE_METRICS and not r["timed_out"]:
        log("ncu: failed with the extra metrics; again with the four core metrics")
        metrics = list(CORE_METRICS)
        r, measured = _run_ncu(ncu, metrics, kernels, worker, max(20.0, timeout - (time.monotonic() - t0)), log_dir / stem)
    res = {
        "metrics": metrics,
        "rc": r["rc"],
        "timed_out": r["timed_out"],
        "seconds": round(time.monotonic() - t0, 1),
        "out": r["out"][-300:],
    }
    return res, measured


def _run_ncu(ncu: str, metrics: list[str], kernels: str, worker: list[str], timeout: float, log_path: Path):
    """ncu's raw counters of the launches of ``kernels`` (an ncu -k filter) that ``worker`` makes:
    (run_proc's result, {kernel name: [{metric: value} per launch]}); its output is kept next to ``log_path``
    as <its name>.csv and <its name>-stdout.txt."""
    log_dir, stem = log_path.parent, log_path.name
    log_dir.mkdir(parents=True, exist_ok=True)
    csv_path = log_dir / f"{stem}.csv"
    csv_path.unlink(missing_ok=True)
    r = run_proc(
        [
            ncu,
            "--csv",
            "--page",
            "raw",
            "--print-units",
            "base",
            "-k",
            kernels,
            "--metrics",
            ",".join(metrics),
            "--log-file",
            str(csv_path),
        ]
        + worker,
        timeout,
    )
    text = csv_path.read_text(errors="replace") if csv_path.exists() else ""
    (log_dir / f"{stem}-stdout.txt").write_text(r["out"])
    return r, parse_ncu_csv(text) or parse_ncu_csv(r["out"])


def pipe_busy(call: str, kernels: str, timeout: float, log_dir: Path, metrics: list[str] | None = None) -> dict:
    """The LSU data pipe's counters (PIPE_METRICS, or those of ``metrics`` that ncu knows here) of every launch of
    ``kernels`` that ``call`` ("module:function arg ...", run in a worker process) makes: {"kernels": {name:
    [{metric: value} per launch]}, "rc", "timed_out", "seconds", "out"}."""
    ncu = tool_path("ncu")
    if not ncu:
        return {"kernels": {}, "rc": None, "timed_out": False, "seconds": 0, "out": "ncu not found"}
    t0 = time.monotonic()
    if metrics is not None:
        known = query_metrics(ncu)
        metrics = [m for m in metrics if known is None or m.split(".")[0] in known]
    r, measured = _run_ncu(
        ncu,
        metrics or PIPE_METRICS,
        kernels,
        [sys.executable, "-m", "llgen.runtime.ncu", "--call", call],
        timeout,
        log_dir / "ncu",
    )
    return {
        "kernels": measured,
        "rc": r["rc"],
        "timed_out": r["timed_out"],
        "seconds": round(time.monotonic() - t0, 1),
        "out": r["out"][-300:],
    }


LAUNCHES = 2  # each kernel is measured this many times: a counter that varies between them is the hardware's noise


def worker(target: str, source: str, fenced: str = "") -> int:
    """Under ncu: each shared-memory plan's debug kernel, launched LAUNCHES times, 16 kernels to a compile. With
    ``fenced`` (names, comma-separated): those plans' debug kernels with a barrier before the slot stores, named
    <name>_fenced."""
    import numpy as np

    from llgen.emit import emit
    from llgen.runtime.compile import compile as compile_source
    from llgen.runtime.launch import run_debug
    from llgen.runtime.reference import random_input, raw_dtype

    jobs = [(n, p) for n, p in _call(source) if p.path == "shared"]
    if fenced:
        jobs = [(f"{n}_fenced", p) for n, p in jobs if n in set(fenced.split(","))]

    def text(n, p):
        return fence_slot_stores(emit(p, "kernel", n), n) if fenced else emit(p, "kernel", n)

    rng = np.random.default_rng(1)
    for i in range(0, len(jobs), 16):
        group = jobs[i : i + 16]
        mod = compile_source("\n".join(text(n, p) for n, p in group), target)
        for n, p in group:
            for _ in range(LAUNCHES):
                run_debug(mod, p, n, random_input(raw_dtype(p.dtype), 1 << p.src.total_out_bits, rng))
                print(f"worker: {n}_debug", flush=True)
    return 0


def endpoint_worker(source: str) -> int:
    """Under ncu: each endpoint plan's check kernel (src/llgen/runtime/endpointcheck.py), run LAUNCHES times, 32 plans to a
    compile; a batch that does not compile is compiled plan by plan, and a plan that does not is left out (its row
    says "not measured")."""
    import numpy as np

    from llgen.runtime.endpointcheck import compile_endpoints, run_endpoint

    items = _call(source)
    rng = np.random.default_rng(1)
    for i in range(0, len(items), 32):
        group = items[i : i + 32]
        try:
            mods = [(compile_endpoints(group, cpu=False), group)]
        except Exception:  # noqa: BLE001 - one plan's compile failure must not lose the others
            mods = []
            for item in group:
                try:
                    mods.append((compile_endpoints([item], cpu=False), [item]))
                except Exception as e:  # noqa: BLE001
                    print(f"worker: {item[0]} not compiled: {str(e).splitlines()[0][:200]}", flush=True)
        for mod, named in mods:
            for n, p in named:
                for _ in range(LAUNCHES):
                    run_endpoint(mod, p, n, rng)
                print(f"worker: {n}_{p.direction}", flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--endpoints":
        sys.exit(endpoint_worker(sys.argv[2]))
    if sys.argv[1] == "--call":
        _call(sys.argv[2])  # the function launches its kernels itself
        sys.exit(0)
    sys.exit(worker(*sys.argv[1:4]))
