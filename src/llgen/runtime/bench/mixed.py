"""The mixed suite on a GPU (llgen.cases.mixed), per case the three paths checked against NumPy and timed in both
forms. LOOP: each step's ns per SM from the slope between two step counts (timing.per_sm_ns, the bench's own rule;
rules.KS_MIXED steps) at CTAS_PER_SM CTAs an SM (throughput) and at one CTA an SM (latency), beside the shared-memory floor of the packed bytes (128 bytes a clock an SM at the boost clock:
a floor, not the clock the run held). STREAM: a whole weight's bytes read per second, beside a device-to-device copy
of the same bytes (read and write counted)."""

from __future__ import annotations

import numpy as np

from llgen.cases.mixed import (
    CASES,
    CTA_BYTES,
    CTAS_PER_SM,
    MX_BLOCK,
    READ_SOURCE,
    STREAM_BYTES,
    WARPS,
    MixedCase,
    N,
    byte_tiles,
    plain_image,
    plain_source,
    plain_stream_source,
    preshuffle_plan,
    preshuffled_source,
    preshuffled_stream_source,
    scale_plan,
    staged,
    stream_per,
    stream_tiles,
    tiles,
    upcast_source,
)
from llgen.core.errors import error_line
from llgen.runtime.bench.rules import KS_MIXED, KS_ONE_CTA, MIN_LAUNCH_MS
from llgen.runtime.bench.timing import per_sm_ns
from llgen.runtime.preshuffle_check import decode, pair_halves, repack_module, times_scale
from llgen.verify.simulate import element_ids


def preshuffled_image(case: MixedCase, x) -> np.ndarray:
    """The tiles of ``x`` (a LOOP's two stages, a STREAM's first tiles) in G's order, one after another, then an mx
    case's scales in theirs: path 3's bytes, by the emitted NumPy repacks."""
    data, scales = x if case.mx else (x, None)
    repack = repack_module(preshuffle_plan(case), "g")["repack"]
    vals = data if case.packed else data.astype(np.uint8).view(np.int8)
    parts = [np.ascontiguousarray(repack(tile)).view(np.uint8).reshape(-1) for tile in vals]
    if scales is not None:
        s_repack = repack_module(scale_plan(case), "g")["repack"]
        parts += [np.ascontiguousarray(s_repack(t.astype(np.uint8))).view(np.uint8).reshape(-1) for t in scales]
    return np.concatenate(parts)


def _bf16_bits(case: MixedCase, v: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """The 16-bit bits each element upcasts to (exact for every type here), times 2^(scale - 127) where given."""
    bits = decode(v, case.dtype, case.out).astype(np.uint32)
    return bits if scale is None else times_scale(bits, scale).astype(np.uint32)


def _step(case: MixedCase, item) -> tuple[np.ndarray, np.ndarray | None]:
    """One step's tile and, for an mx case, its scales expanded over the tile (each along K for its block)."""
    if not case.mx:
        return item, None
    tile, scales = item
    return tile, np.repeat(scales, MX_BLOCK, axis=case.axis)


def expected_words(case: MixedCase, seq) -> np.ndarray:
    """[threads, words]: each thread's XOR over the tiles of ``seq`` (in turn) of its bf16 words (registers 2j low,
    2j + 1 high of the operand layout)."""
    ids = element_ids(case.layout(), WARPS, 32).reshape(WARPS * 32, -1)
    acc = np.zeros((ids.shape[0], ids.shape[1] // 2), dtype=np.uint32)
    for item in seq:
        tile, scale = _step(case, item)
        h = _bf16_bits(case, tile.reshape(-1)[ids], None if scale is None else scale.reshape(-1)[ids])
        acc ^= pair_halves(h)
    return acc


def folded_words(words: np.ndarray) -> np.ndarray:
    """[threads]: a STREAM thread's one accumulator from its words (cases.mixed._Kernel's fold): word j rotated left
    by j mod 32, XORed."""
    out = np.zeros(words.shape[0], dtype=np.uint32)
    for j in range(words.shape[1]):
        r = j % 32
        w = words[:, j].astype(np.uint64)
        out ^= (((w << r) | (w >> ((32 - r) % 32))) & 0xFFFFFFFF).astype(np.uint32)
    return out


def loop_tiles(x, steps: int) -> list:
    """The tiles a LOOP of ``steps`` reads: the two stages in turn (an mx case's with their scales)."""
    if isinstance(x, tuple):
        return [(x[0][i & 1], x[1][i & 1]) for i in range(steps)]
    return [x[i & 1] for i in range(steps)]


def _llgen_paths(case, plain, preshuffled, data: tuple) -> list[tuple]:
    """(path, source, its data, kernel name) of llgen's paths: plain, its chain of swaps where the buffer is K-strided
    (llgen.plan.chain: the bench measures it before the pick may take it), and pre-shuffled."""
    out = [("llgen_plain", plain, data[0], "mixed_plain")]
    if not case.kmajor:
        out.append(("llgen_plain_2step", lambda c: plain(c, "two_step"), data[0], "mixed_plain"))
    return [*out, ("llgen_preshuffled", preshuffled, data[1], "mixed_g")]


def _expected_tile(case, seq) -> np.ndarray:
    """[*shape] uint16: each element's XOR over the tiles of ``seq`` of its bf16 bits (path 1's accumulator)."""
    acc = np.zeros(case.shape, dtype=np.uint16)
    for item in seq:
        acc ^= _bf16_bits(case, *_step(case, item)).astype(np.uint16)
    return acc


_ALU = {"LOP3", "SHF", "PRMT", "IADD3", "VIADD", "ISETP", "SEL", "LEA", "MOV", "IABS", "IMNMX"}  # the integer pipe


def upcast_model(case: MixedCase, clock_ghz: float) -> dict:
    """The upcast alone's instruction-count floor, from the SASS of its loop (compiled here): a CTA's step issues
    WARPS times the loop's instructions, at most 4 a clock an SM (one a sub-partition) and 2 on the integer pipe."""
    from llgen.runtime.toolchain.cuda import compile_cuda, disassemble_cubin

    (k,) = disassemble_cubin(compile_cuda(upcast_source(case, fit_only=True), "sm_90", ("-std=c++17",))).values()
    loop = k.loop()
    total, alu = sum(loop.values()), sum(n for op, n in loop.items() if op.split(".")[0] in _ALU)
    clocks = WARPS * max(total / 4, alu / 2)
    return {"upcast_instructions": total, "upcast_alu": alu, "upcast_model_ns": round(clocks / clock_ghz, 3)}


def upcast_alone(case: MixedCase, cp, grid_max: int):
    """The upcast alone's kernel on random words, ready to launch as run(steps, grid) with grid <= grid_max: an mx
    case's scale bytes are at most 127, as the LOOP's data, so it runs the one-multiply loop the LOOP runs."""
    kern = cp.RawModule(code=upcast_source(case), options=("-std=c++17",)).get_function("mixed_upcast")
    words = np.random.default_rng(5).integers(0, 1 << 32, 128 * 64, dtype=np.uint64).astype(np.uint32)
    if case.mx:
        words &= np.uint32(0x7F7F7F7F)
    xw, yw = cp.asarray(words), cp.zeros(grid_max * 128 * 64, dtype=cp.uint32)
    return lambda steps, grid: kern((grid,), (128,), (xw, yw, np.int32(steps), np.int32(1)))


def run_case(case, cp, torch, sms: int, clock_ghz: float, rep: int = 50) -> dict:
    """Check and time one case's paths; a path that cannot run is a row saying why, the others still run."""
    x = staged(case, 7)
    data = x[0] if case.mx else x
    floor_ns = (case.tile_bytes + (case.scale_bytes if case.mx else 0)) / 128 / clock_ghz
    res = {
        "id": case.id,
        "tile_bytes": case.tile_bytes,
        "smem_floor_ns": round(floor_ns, 3),
        "floor_ns": round(floor_ns, 3),
        "paths": {},
    }
    grid_max = sms * CTAS_PER_SM

    # path 1: Triton
    xb = torch.from_numpy(byte_tiles(case, data).reshape(-1)).cuda()
    y1 = torch.empty(grid_max * case.k * N, dtype=torch.int16, device="cuda")
    runs, checks = {}, {}
    try:
        from llgen.runtime.gluon_mixed import constexprs, mixed_loop_kernel, mixed_mx_loop_kernel, mx_constexprs

        if case.mx:
            xs = torch.from_numpy(x[1].astype(np.uint8).reshape(-1)).cuda()
            consts = mx_constexprs(case)

            def triton_run(steps, grid):
                mixed_mx_loop_kernel[(grid,)](xb, xs, y1, steps, 1, num_warps=WARPS, **consts)
        else:
            consts = constexprs(case)

            def triton_run(steps, grid):
                mixed_loop_kernel[(grid,)](xb, y1, steps, 1, num_warps=WARPS, **consts)

        runs["triton"] = triton_run
        for steps in (1, 2):
            triton_run(steps, 1)
            torch.cuda.synchronize()
            got = y1[: case.k * N].cpu().numpy().view(np.uint16).reshape(case.shape)
            checks.setdefault("triton", []).append(bool(np.array_equal(got, _expected_tile(case, loop_tiles(x, steps)))))
    except Exception as e:  # noqa: BLE001 - a path that cannot run is a row saying why
        res["paths"]["triton"] = {"error": error_line(e)}
        runs.pop("triton", None)

    # paths 2 and 3: llgen
    for name, source, image, fn in _llgen_paths(case, plain_source, preshuffled_source, (plain_image, preshuffled_image)):
        try:
            mod = cp.RawModule(code=source(case), options=("-std=c++17",))
            kern = mod.get_function(fn)
            img = cp.asarray(image(case, x))
            words = expected_words(case, []).shape[1]
            y = cp.zeros(grid_max * 128 * words, dtype=cp.uint32)

            def run(steps, grid, kern=kern, img=img, y=y):
                kern((grid,), (128,), (img, y, np.int32(steps), np.int32(1)))

            for steps in (1, 2):
                run(steps, 1)
                cp.cuda.runtime.deviceSynchronize()
                got = cp.asnumpy(y[: 128 * words]).reshape(128, words)
                checks.setdefault(name, []).append(bool(np.array_equal(got, expected_words(case, loop_tiles(x, steps)))))
            runs[name] = run
        except Exception as e:  # noqa: BLE001
            res["paths"][name] = {"error": error_line(e)}
    for name, run in runs.items():
        row = res["paths"].setdefault(name, {})
        row["exact"] = all(checks.get(name, [False]))
        try:
            row["step_ns"] = round(per_sm_ns(run, grid_max, sms, rep, per_k=1, ks=KS_MIXED), 3)
            row["one_cta_step_ns"] = round(per_sm_ns(run, sms, sms, rep, per_k=1), 3)
            row["of_floor"] = round(floor_ns / row["step_ns"], 3)
        except Exception as e:  # noqa: BLE001
            row["error"] = error_line(e)
    try:  # the upcast alone: its ALU floor, measured
        upcast = upcast_alone(case, cp, grid_max)
        up = round(per_sm_ns(upcast, grid_max, sms, rep, per_k=1, ks=KS_MIXED), 3)
        res["upcast_ns"] = up
        res["floor_ns"] = max(res["floor_ns"], up)
        for row in res["paths"].values():
            if row.get("step_ns"):
                row["of_floor"] = round(res["floor_ns"] / row["step_ns"], 3)
    except Exception as e:  # noqa: BLE001
        res["upcast_error"] = error_line(e)
    try:
        res.update(upcast_model(case, clock_ghz))
    except Exception as e:  # noqa: BLE001 - the model needs the CPU toolchain; the timings stand without it
        res["upcast_model_error"] = error_line(e)
    tri = res["paths"].get("triton", {}).get("step_ns")
    for name in ("llgen_plain", "llgen_plain_2step", "llgen_preshuffled"):
        mine = res["paths"].get(name, {}).get("step_ns")
        if tri and mine:
            res["paths"][name]["vs_triton"] = round(tri / mine, 3)
    return res


def stream_case(case, cp, torch, rep: int = 50) -> dict:
    """STREAM: the whole weight (STREAM_BYTES of dense byte tiles; G-ordered tiles for path 3) into the operand's
    registers, stream_per tiles a CTA, each thread folding its words into one (folded_words), checked on CTA 0's tiles
    and timed beside a device-to-device copy of the bytes."""
    from triton.testing import do_bench

    n_tiles = stream_tiles(case)
    per = stream_per(case)
    grid = n_tiles // per
    x = tiles(case, 11, per)
    rest = torch.randint(0, 256, (STREAM_BYTES - per * case.tile_bytes,), dtype=torch.uint8, device="cuda")
    rowmajor = torch.cat([torch.from_numpy(byte_tiles(case, x).reshape(-1)).cuda(), rest])
    g_bytes = torch.cat([torch.from_numpy(preshuffled_image(case, x)).cuda(), rest])
    res = {"id": case.id, "bytes": STREAM_BYTES, "paths": {}}
    runs = {}
    try:
        from llgen.runtime.gluon_mixed import constexprs, mixed_stream_kernel

        y1 = torch.empty(case.k * N + grid, dtype=torch.int16, device="cuda")
        consts = constexprs(case)
        runs["triton"] = lambda: mixed_stream_kernel[(grid,)](rowmajor, y1, per, num_warps=WARPS, **consts)
        runs["triton"]()
        torch.cuda.synchronize()
        got = y1[: case.k * N].cpu().numpy().view(np.uint16).reshape(case.shape)
        res["paths"]["triton"] = {"exact": bool(np.array_equal(got, _expected_tile(case, list(x))))}
    except Exception as e:  # noqa: BLE001 - a path that cannot run is a row saying why
        res["paths"]["triton"] = {"error": error_line(e)}
        runs.pop("triton", None)
    for name, source, buf, fn in _llgen_paths(case, plain_stream_source, preshuffled_stream_source, (rowmajor, g_bytes)):
        fn += "_stream"
        try:
            kern = cp.RawModule(code=source(case), options=("-std=c++17",)).get_function(fn)
            src, y = cp.asarray(buf), cp.zeros(grid * 128, dtype=cp.uint32)
            runs[name] = lambda kern=kern, src=src, y=y: kern((grid,), (128,), (src, y, np.int32(per), np.int32(1)))
            runs[name]()
            cp.cuda.runtime.deviceSynchronize()
            got = cp.asnumpy(y[:128])
            res["paths"][name] = {"exact": bool(np.array_equal(got, folded_words(expected_words(case, list(x)))))}
        except Exception as e:  # noqa: BLE001
            res["paths"][name] = {"error": error_line(e)}
            runs.pop(name, None)
    src, dst = cp.asarray(rowmajor), cp.empty(STREAM_BYTES, dtype=cp.uint8)
    copy_ms = do_bench(lambda: cp.copyto(dst, src), warmup=10, rep=rep, return_mode="median")
    res["copy_GBps"] = round(2 * STREAM_BYTES / copy_ms / 1e6, 1)
    read = cp.RawModule(code=READ_SOURCE).get_function("plain_read")
    ry = cp.zeros(grid * 128, dtype=cp.uint32)
    read_args = (src, ry, np.int32(CTA_BYTES // 2048))
    read_ms = do_bench(lambda: read((grid,), (128,), read_args), warmup=10, rep=rep, return_mode="median")
    res["read_GBps"] = round(STREAM_BYTES / read_ms / 1e6, 1)
    for name, run in runs.items():
        row = res["paths"][name]
        try:
            ms = do_bench(run, warmup=10, rep=rep, return_mode="median")
            row["GBps"] = round(STREAM_BYTES / ms / 1e6, 1)
            row["of_copy"] = round(row["GBps"] / res["copy_GBps"], 3)
            row["of_read"] = round(row["GBps"] / res["read_GBps"], 3)
        except Exception as e:  # noqa: BLE001
            row["error"] = error_line(e)
    return res


def run_suite(cases=CASES, log=print, rep: int = 50) -> dict:
    import cupy as cp
    import torch

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    sms = props["multiProcessorCount"]
    clock_ghz = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrClockRate, dev.id) / 1e6
    out = {"device": props["name"].decode(), "sms": sms, "clock_ghz": clock_ghz, "cases": []}
    out["stream"] = []
    for case in cases:
        log(f"  mixed {case.id}")
        out["cases"].append(run_case(case, cp, torch, sms, clock_ghz, rep))
        if not case.mx:  # the mx cases run the LOOP form only
            out["stream"].append(stream_case(case, cp, torch, rep))
    return out


def _rows(entries: list, lead: tuple, cells: tuple) -> list[str]:
    """Markdown rows, one a case and path: the case's ``lead`` fields, the path, then its ``cells`` (an error in their
    place where the path did not run)."""
    out = []
    for c in entries:
        for name, r in c["paths"].items():
            vals = [str(r.get(k, "")) for k in cells]
            if "error" in r and not any(k in r for k in cells[1:]):
                vals = [f"error: {r['error'][:90]}"] + [""] * (len(cells) - 1)
            out.append("| " + " | ".join([*(str(c.get(k)) for k in lead), name, *vals]) + " |")
    return out


def table(report: dict) -> str:
    """The report as markdown: LOOP per case and path (ns a step per SM, the share of the floor, the speedup on
    Triton), then STREAM (GB/s and the share of a copy's)."""
    lines = [
        f"# Mixed suite, LOOP form: {report['device']} ({report['sms']} SMs, floor at {report['clock_ghz']:.2f} GHz)",
        "",
        "floor: the larger of the shared-memory floor (the packed bytes at 128 B a clock) and the upcast alone, measured (the",
        "pre-shuffled loader's upcast: the fast nibble order for 4-bit types, byte order 0,2,1,3 for i8; the plain paths",
        "decode byte by byte).",
        "",
        "upcast model: the upcast alone's loop (SASS) at 4 instructions a clock an SM and 2 integer ones.",
        f"ns/step/SM: the slope between {KS_MIXED[0]} and {KS_MIXED[1]} steps at {CTAS_PER_SM} CTAs an SM; one CTA: between "
        f"{KS_ONE_CTA[0]} and {KS_ONE_CTA[1]} at one CTA an SM; both doubled until the shorter launch runs {MIN_LAUNCH_MS} ms.",
        "_mx: mxfp4, each value times its e8m0 scale (one per 32 along K, staged beside the tile); LOOP form only. Whether",
        "every scale is at most 128 is decided once, before the loop; the data's scales are, so the one-multiply loop runs.",
        "",
        "| case | smem floor ns | upcast ns | upcast model ns | path | exact | ns/step/SM | one CTA ns/step | of floor | vs Triton |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *_rows(
            report["cases"],
            ("id", "smem_floor_ns", "upcast_ns", "upcast_model_ns"),
            ("exact", "step_ns", "one_cta_step_ns", "of_floor", "vs_triton"),
        ),
    ]
    if report.get("stream"):
        lines += [
            "",
            f"## STREAM form: {STREAM_BYTES >> 20} MiB of packed bytes into the operand's registers, against a device-to-device copy",
            "",
            "plain read: the same bytes read as coalesced 16-byte loads in the same grid, nothing else (the shape's ceiling).",
            "",
            "| case | copy GB/s (read+write) | plain read GB/s | path | exact | GB/s read | of copy | of plain read |",
            "|---|---|---|---|---|---|---|---|",
            *_rows(report["stream"], ("id", "copy_GBps", "read_GBps"), ("exact", "GBps", "of_copy", "of_read")),
        ]
    return "\n".join(lines) + "\n"
