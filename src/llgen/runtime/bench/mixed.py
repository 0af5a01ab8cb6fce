"""The mixed suite's LOOP form on a GPU (llgen.cases.mixed): per case, the three paths checked against NumPy (one
step and two) and timed, each step's ns per SM from the slope between two step counts at 8 CTAs an SM (throughput)
and at one CTA an SM (latency), beside the shared-memory floor of the packed bytes (128 bytes a clock an SM at the
boost clock: a floor, not the clock the run held)."""

from __future__ import annotations

import numpy as np

from llgen.cases.mixed import (
    CASES,
    WARPS,
    MixedCase,
    N,
    byte_tiles,
    plain_image,
    plain_source,
    preshuffle_plan,
    preshuffled_source,
    tiles,
)
from llgen.core.errors import error_line
from llgen.runtime.preshuffle_check import decode, repack_module
from llgen.verify.simulate import element_ids


def preshuffled_image(case: MixedCase, x: np.ndarray) -> np.ndarray:
    """Both stages' bytes in G's order (path 3's buffer), by the emitted NumPy repack."""
    repack = repack_module(preshuffle_plan(case), "g")["repack"]
    vals = x if case.packed else x.astype(np.uint8).view(np.int8)
    return np.concatenate([np.ascontiguousarray(repack(vals[t])).view(np.uint8).reshape(-1) for t in range(2)])


def expected_words(case: MixedCase, x: np.ndarray, steps: int) -> np.ndarray:
    """[threads, words]: each thread's XOR over the steps of its bf16 words (registers 2j low, 2j + 1 high of B)."""
    ids = element_ids(case.layout(), WARPS, 32).reshape(WARPS * 32, -1)
    acc = np.zeros((ids.shape[0], ids.shape[1] // 2), dtype=np.uint32)
    for i in range(steps):
        v = x[i & 1].reshape(-1)[ids]
        if case.packed:
            h = decode(v, case.dtype, "bf16").astype(np.uint32)
        else:
            f = v.astype(np.uint8).view(np.int8).astype(np.float32)
            h = (f.view(np.uint32) >> 16).astype(np.uint32)
        acc ^= h[:, 0::2] | (h[:, 1::2] << 16)
    return acc


STEPS = (64, 320)  # the two step counts whose difference times a step
CTAS_PER_SM = 8


def _expected_tile(case, x: np.ndarray, steps: int) -> np.ndarray:
    """[*shape] uint16: each element's XOR over the steps of its bf16 bits (path 1's accumulator)."""
    acc = np.zeros(case.shape, dtype=np.uint16)
    for i in range(steps):
        v = x[i & 1]
        if case.packed:
            acc ^= decode(v, case.dtype, "bf16").astype(np.uint16)
        else:
            acc ^= (v.astype(np.uint8).view(np.int8).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return acc


def _per_step_ns(run, grid: int, sms: int, rep: int) -> float:
    """ns a step takes an SM: the slope between STEPS, times the CTAs an SM runs."""
    from triton.testing import do_bench

    t = {s: do_bench(lambda s=s: run(s, grid), warmup=10, rep=rep, return_mode="median") for s in STEPS}
    return (t[STEPS[1]] - t[STEPS[0]]) * 1e6 / (STEPS[1] - STEPS[0]) * grid / sms


def run_case(case, cp, torch, sms: int, clock_ghz: float, rep: int = 50) -> dict:
    """Check and time one case's three paths."""
    from llgen.runtime.gluon_mixed import constexprs, mixed_loop_kernel

    x = tiles(case, 7)
    floor_ns = case.tile_bytes / 128 / clock_ghz
    res = {"id": case.id, "tile_bytes": case.tile_bytes, "floor_ns": round(floor_ns, 3), "paths": {}}
    grid_max = sms * CTAS_PER_SM

    # path 1: Triton
    xb = torch.from_numpy(byte_tiles(case, x).reshape(-1)).cuda()
    y1 = torch.empty(grid_max * case.k * N, dtype=torch.int16, device="cuda")
    consts = constexprs(case)

    def triton_run(steps, grid):
        mixed_loop_kernel[(grid,)](xb, y1, steps, num_warps=WARPS, **consts)

    runs = {"triton": triton_run}
    checks = {}
    try:
        for steps in (1, 2):
            triton_run(steps, 1)
            torch.cuda.synchronize()
            got = y1[: case.k * N].cpu().numpy().view(np.uint16).reshape(case.shape)
            checks.setdefault("triton", []).append(bool(np.array_equal(got, _expected_tile(case, x, steps))))
    except Exception as e:  # noqa: BLE001 - a path that cannot run is a row saying why
        res["paths"]["triton"] = {"error": error_line(e)}
        runs.pop("triton")

    # paths 2 and 3: llgen
    for name, source, image, fn in (
        ("llgen_plain", plain_source, plain_image, "mixed_plain"),
        ("llgen_preshuffled", preshuffled_source, preshuffled_image, "mixed_g"),
    ):
        try:
            mod = cp.RawModule(code=source(case), options=("-std=c++17",))
            kern = mod.get_function(fn)
            img = cp.asarray(image(case, x))
            words = expected_words(case, x, 1).shape[1]
            y = cp.zeros(grid_max * 128 * words, dtype=cp.uint32)

            def run(steps, grid, kern=kern, img=img, y=y):
                kern((grid,), (128,), (img, y, np.int32(steps)))

            for steps in (1, 2):
                run(steps, 1)
                cp.cuda.runtime.deviceSynchronize()
                got = cp.asnumpy(y[: 128 * words]).reshape(128, words)
                checks.setdefault(name, []).append(bool(np.array_equal(got, expected_words(case, x, steps))))
            runs[name] = run
        except Exception as e:  # noqa: BLE001
            res["paths"][name] = {"error": error_line(e)}
    for name, run in runs.items():
        row = res["paths"].setdefault(name, {})
        row["exact"] = all(checks.get(name, [False]))
        try:
            row["step_ns"] = round(_per_step_ns(run, grid_max, sms, rep), 3)
            row["one_cta_step_ns"] = round(_per_step_ns(run, sms, sms, rep), 3)
            row["of_floor"] = round(floor_ns / row["step_ns"], 3)
        except Exception as e:  # noqa: BLE001
            row["error"] = error_line(e)
    tri = res["paths"].get("triton", {}).get("step_ns")
    for name in ("llgen_plain", "llgen_preshuffled"):
        mine = res["paths"].get(name, {}).get("step_ns")
        if tri and mine:
            res["paths"][name]["vs_triton"] = round(tri / mine, 3)
    return res


def run_suite(log=print, rep: int = 50) -> dict:
    import cupy as cp
    import torch

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    sms = props["multiProcessorCount"]
    clock_ghz = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrClockRate, dev.id) / 1e6
    out = {"device": props["name"].decode(), "sms": sms, "clock_ghz": clock_ghz, "cases": []}
    for case in CASES:
        log(f"  mixed {case.id}")
        out["cases"].append(run_case(case, cp, torch, sms, clock_ghz, rep))
    return out


def table(report: dict) -> str:
    """The report as markdown: per case and path, ns a step per SM, the share of the floor, the speedup on Triton."""
    lines = [
        f"# Mixed suite, LOOP form: {report['device']} ({report['sms']} SMs, floor at {report['clock_ghz']:.2f} GHz)",
        "",
        "| case | floor ns | path | exact | ns/step/SM | one CTA ns/step | of floor | vs Triton |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in report["cases"]:
        for name, r in c["paths"].items():
            if "error" in r and "step_ns" not in r:
                lines.append(f"| {c['id']} | {c['floor_ns']} | {name} | | error: {r['error'][:90]} | | | |")
                continue
            lines.append(
                f"| {c['id']} | {c['floor_ns']} | {name} | {r.get('exact')} | {r.get('step_ns')} | {r.get('one_cta_step_ns')} "
                f"| {r.get('of_floor')} | {r.get('vs_triton', '')} |"
            )
    return "\n".join(lines) + "\n"
