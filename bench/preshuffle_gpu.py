"""On the GPU machine, one command: every pre-shuffle loader case exact against NumPy (repack by the emitted NumPy,
load and upcast by the emitted header), the mma.sync products on pre-shuffled and K-permuted operands, the repack
kernel against the NumPy repack, the 4-bit conversions and endpoints (llgen.cases.packed), and a STREAM timing of a whole weight loaded and upcast beside a device-to-device
copy of the same bytes. Writes preshuffle-gpu.json and .md to $OUT (or bench/), ending with a short table.

    python3 bench/preshuffle_gpu.py
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from llgen.cases.preshuffle import NVIDIA, SINGLE_WARP_B, load_cases, mma_cases, wgmma_cases
from llgen.core.dtypes import dtype
from llgen.emit import preshuffle as E
from llgen.plan.preshuffle import PreshufflePlan
from llgen.runtime.compile import compile as gpu_compile
from llgen.runtime.compile import compile_sm90a, device
from llgen.runtime.preshuffle_check import pack_nibbles, repack_module, run_load, run_mma, run_wgmma, values
from llgen.spec import parse_layout

STREAM_B = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 4], instrShape = [16, 8]}>, kWidth = 2}>"


def repack_kernels(cp) -> list[dict]:
    """The emitted CUDA repack and unrepack against the emitted NumPy repack."""
    out = []
    for dt, decode in (("i4", "fast"), ("e2m1", "plain"), ("f16", "plain"), ("i8", "plain")):
        plan = PreshufflePlan(
            parse_layout(SINGLE_WARP_B.replace("[1, 1]", "[1, 4]"), (128, 64), 4), (256, 128), dtype(dt), 0, decode
        )
        x = values(plan, np.random.default_rng(3))
        want = np.ascontiguousarray(repack_module(plan, "g")["repack"](x)).view(np.uint8).reshape(-1)
        src = np.ascontiguousarray(x).view(np.uint8).reshape(-1)
        if dtype(dt).sub_byte:
            src = pack_nibbles(np.ascontiguousarray(x).reshape(-1))
        mod = cp.RawModule(code=E.repack_kernel(plan, "rp", "g"), options=("-std=c++17",))
        d_src, d_dst, d_back = cp.asarray(src), cp.zeros(want.size, cp.uint8), cp.zeros(src.size, cp.uint8)
        n = want.size if dtype(dt).sub_byte else want.size // (dtype(dt).bits // 8)
        mod.get_function("rp_repack")(((n + 255) // 256,), (256,), (d_src, d_dst))
        mod.get_function("rp_unrepack")(((n + 255) // 256,), (256,), (d_dst, d_back))
        ok = bool(np.array_equal(cp.asnumpy(d_dst), want) and np.array_equal(cp.asnumpy(d_back), src))
        out.append({"case": f"repack {dt}/{decode}", "ok": ok})
    return out


def packed_checks() -> list[dict]:
    """4-bit conversions (pairs and nibbles, by their picks and the shared path) and 4-bit endpoints, exact."""
    from llgen.cases.packed import ROW4, ROW8, SHAPE, SWIZZLED, gpu_items
    from llgen.plan.endpoint import plan_load, plan_store
    from llgen.runtime.check import CheckRuns, check_many
    from llgen.runtime.endpointcheck import check_endpoint

    rows = []
    for r in check_many(gpu_items(), how=CheckRuns(tiles=64, runs=2, seed=1)):
        detail = r.error or (f"{r.first_bad or ''} {r.first_bad_tile or ''}" if not r.ok else f"{r.path}")
        rows.append({"case": f"packed {r.label}", "ok": r.ok, "detail": detail})
    from llgen.cases.packed import CASES, packed_plan
    from llgen.runtime.packed_check import run_upcast

    for cid, src, dst, tgt, _ in CASES:
        if not tgt.startswith("gfx"):
            for dt in ("i4", "u4", "e2m1"):
                r = run_upcast(packed_plan(src, dst, tgt, dt), gpu_compile, seed=len(cid))
                rows.append({"case": f"packed upcast {cid} {r.label}", "ok": r.ok, "detail": r.detail})
    from llgen.emit import emit
    from llgen.plan.gather import plan_gather
    from llgen.runtime.check import check_gather

    for axis in (0, 1):
        for path in (None, "shared"):
            g = plan_gather(parse_layout(ROW8, SHAPE, 4), axis, "u4", "sm_90", path=path)
            name = f"g4_{axis}_{g.path}"
            r = check_gather(gpu_compile(emit(g, "kernel", name)), g.inner, name, tiles=64, seed=axis)
            rows.append({"case": f"packed gather axis {axis} {g.path}", "ok": r.ok, "detail": r.error or ""})
    s = parse_layout(SWIZZLED, SHAPE, 4)
    for i, dist in enumerate((ROW8, ROW4)):
        d = parse_layout(dist, SHAPE, 4)
        for p in (plan_store(d, s, "e2m1"), plan_load(s, d, "e2m1")):
            bad = check_endpoint(p.inner, name=f"packed_ep{i}_{p.inner.direction}", runs=2, cpu=False, seed=5)
            rows.append({"case": f"packed endpoint {i} {p.inner.direction}", "ok": not bad, "detail": "; ".join(bad)[:300]})
    return rows


def stream(cp, dt: str, decode: str, memory: str, k: int = 8192, n: int = 8192) -> dict:
    """A K x N weight from HBM into mma v2 B registers (4 warps, tile 128 x 64), upcast to f16, XOR-reduced so
    nothing folds; each CTA walks 8 tiles along K. Beside it: a device-to-device copy of the same bytes."""
    op = parse_layout(STREAM_B, (128, 64), 4)
    plan = PreshufflePlan(op, (k, n), dtype(dt), 0, decode)
    kt, nt, per = k // 128, n // 64, 8
    up = "unsigned h[kRegisters / 2]; upcast_f16(w, h);" if dtype(dt).sub_byte else "const unsigned (&h)[kWords] = w;"
    hn = "kRegisters / 2" if dtype(dt).sub_byte else "kWords"
    src = (
        E.header(plan, "s", memory)
        + f"""
extern "C" __global__ void __launch_bounds__(128) llgen_stream(const unsigned char* __restrict__ src, unsigned* out) {{
  using namespace llgen::s;
  const unsigned t1 = blockIdx.x / {kt // per}u, t0 = (blockIdx.x % {kt // per}u) * {per}u;
  unsigned acc = 0;
#pragma unroll 2
  for (unsigned i = 0; i < {per}u; ++i) {{
    unsigned w[kWords];
    load(src, t0 + i, t1, w);
    {up}
#pragma unroll
    for (int j = 0; j < {hn}; ++j) acc ^= h[j];
  }}
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}}
"""
    )
    mod = cp.RawModule(code=src, options=("-std=c++17",))
    fn = mod.get_function("llgen_stream")
    nbytes = k * n * dtype(dt).bits // 8
    buf = cp.asarray(np.random.default_rng(0).integers(0, 256, nbytes, dtype=np.uint8))
    out = cp.zeros(kt // per * nt * 128, cp.uint32)
    dst = cp.empty_like(buf)
    blocks = kt // per * nt

    def timed(run) -> float:
        for _ in range(3):
            run()
        times = []
        for _ in range(20):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            run()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
        return statistics.median(times)

    t_ours = timed(lambda: fn((blocks,), (128,), (buf, out)))
    t_copy = timed(lambda: cp.copyto(dst, buf))
    ours, copy = nbytes / t_ours / 1e3, 2 * nbytes / t_copy / 1e3
    return {
        "case": f"stream {dt}/{decode}/{memory} {k}x{n}",
        "bytes": nbytes,
        "us": round(t_ours, 2),
        "copy_us": round(t_copy, 2),
        "GBps": round(ours, 1),
        "copy_GBps": round(copy, 1),
        "of_copy": round(ours / copy, 3),
    }


def main() -> int:
    import cupy as cp

    t0 = time.time()
    dev = device("sm_90")
    rows = []
    for label, plan, memory in load_cases(NVIDIA):
        r = run_load(plan, memory, gpu_compile)
        rows.append({"case": f"load {label}", "ok": r.ok, "detail": r.detail})
    for label, plan, memory, out in mma_cases():
        r = run_mma(plan, memory, out, gpu_compile)
        rows.append({"case": f"mma {label}", "ok": r.ok, "detail": r.detail})
    for label, plan, memory in wgmma_cases():
        try:
            r = run_wgmma(plan, memory, compile_sm90a)
            rows.append({"case": f"wgmma {label}", "ok": r.ok, "detail": r.detail})
        except Exception as e:  # noqa: BLE001 - a case that cannot run is a failed row, the others still run
            rows.append({"case": f"wgmma {label}", "ok": False, "detail": str(e)[:300]})
    rows += repack_kernels(cp)
    rows += packed_checks()
    streams = []
    for dt, decode, memory in (
        ("i4", "fast", "g"),
        ("i4", "fast", "k"),
        ("i4", "plain", "g"),
        ("e2m1", "fast", "g"),
        ("e2m1", "plain", "g"),
        ("f16", "plain", "g"),
        ("f16", "plain", "k"),
        ("i8", "plain", "g"),
    ):
        try:
            streams.append(stream(cp, dt, decode, memory))
        except Exception as e:  # noqa: BLE001 - a case that cannot run is reported, the others still run
            streams.append({"case": f"stream {dt}/{decode}/{memory}", "error": str(e)[:300]})
    bad = [r for r in rows if not r["ok"]]
    report = {
        "device": getattr(dev, "name", str(dev)),
        "date": datetime.date.today().isoformat(),
        "seconds": round(time.time() - t0, 1),
        "exact": f"{len(rows) - len(bad)} of {len(rows)}",
        "failures": bad,
        "checks": rows,
        "stream": streams,
    }
    folder = Path(os.environ.get("OUT") or "bench")
    folder.mkdir(parents=True, exist_ok=True)  # session 25 lost a whole run's report to a folder not made
    print(f"exact: {report['exact']}", flush=True)  # before the files, so a log keeps it whatever happens
    (folder / "preshuffle-gpu.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [f"# Pre-shuffle on the GPU: {report['device']}, {report['date']}", "", f"exact: {report['exact']}", ""]
    lines += [f"- FAIL {r['case']}: {r.get('detail', '')}" for r in bad]
    lines += ["", "| stream case | us | GB/s read | copy us | copy GB/s (read+write) | of copy |", "|---|---|---|---|---|---|"]
    for s in streams:
        if "error" in s:
            lines.append(f"| {s['case']} | error: {s['error'][:80]} | | | | |")
        else:
            lines.append(f"| {s['case']} | {s['us']} | {s['GBps']} | {s['copy_us']} | {s['copy_GBps']} | {s['of_copy']} |")
    text = "\n".join(lines) + "\n"
    (folder / "preshuffle-gpu.md").write_text(text)
    print(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
