"""`check(plan)`: compile the emitted kernel, run it on the GPU, and compare every slot and every replica
of B (debug kernel) and the whole output tensor (tile kernel) with the NumPy reference, bit for bit.

`check_many` does the same for a list of (label, plan) pairs, compiling them in batches (one NVRTC call for
many kernels costs little more than one), isolating a batch that fails to compile kernel by kernel.
"""

from __future__ import annotations

import functools
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from llgen.core.errors import error_line
from llgen.emit import default_name, emit
from llgen.plan.benchshape import BenchShape, bench_shape
from llgen.plan.packed import byte_plan
from llgen.runtime.compile import RuntimeUnavailable
from llgen.runtime.launch import grid_dim, run_debug, run_tiles
from llgen.runtime.reference import (
    BadSlot,
    bits,
    expected_output,
    expected_slots,
    first_bad_slot,
    loop_input,
    mismatches,
    plus_one,
    poison_value,
    random_input,
    raw_dtype,
    slot_ids,
    tile_elems,
)
from llgen.verify.simulate import element_ids

MAX_ELEMS = 1 << 22  # elements per tile-kernel run (all tiles together)


@dataclass(frozen=True)
class CheckRuns:
    """What a check runs each kernel on: ``runs`` times, each on fresh input of ``tiles`` tiles for the tile kernel
    (0: the debug kernel only), drawn from ``seed`` (None: a random one)."""

    tiles: int = 1000
    runs: int = 1
    seed: int | None = None


@dataclass(frozen=True)
class Batching:
    """How check_many compiles: ``size`` kernels to a source, ``workers`` > 1 compiling that many batches ahead on
    threads while earlier ones run (NVRTC, not the GPU, is what a long check waits for)."""

    size: int = 16
    workers: int = 1


@dataclass(frozen=True)
class BenchLaunch:
    """How check_bench launches a bench source's kernels: ``tiles`` stacked tiles, STREAM and copy on ``grid`` CTAs,
    on input drawn from ``seed`` (None: a random one)."""

    tiles: int = 19
    grid: int = 2
    seed: int | None = None


@dataclass
class CheckResult:
    label: str
    name: str
    path: str
    dtype: str
    target: str
    warps: int
    shape: tuple[int, ...]
    slots: int = 0  # slots compared per run (warps * lanes * registers of B)
    replicas: int = 0  # of those, slots that repeat an element another slot holds
    slot_bad: int = 0
    tiles: int = 0  # tiles per tile-kernel run
    grid: int = 0
    elems: int = 0  # output elements compared per run
    tile_bad: int = 0
    runs: int = 0
    seed: int = 0
    first_bad: BadSlot | None = None
    first_bad_tile: dict | None = None
    error: str | None = None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.slot_bad == 0 and self.tile_bad == 0 and self.runs > 0

    @property
    def mismatches(self) -> int:
        return self.slot_bad + self.tile_bad

    def to_json(self) -> dict:
        d = {
            k: getattr(self, k)
            for k in (
                "label",
                "name",
                "path",
                "dtype",
                "target",
                "warps",
                "slots",
                "replicas",
                "slot_bad",
                "tiles",
                "grid",
                "elems",
                "tile_bad",
                "runs",
                "seed",
                "error",
            )
        }
        d["shape"] = list(self.shape)
        d["ok"] = self.ok
        d["seconds"] = round(self.seconds, 4)
        d["first_bad"] = self.first_bad.to_json() if self.first_bad else None
        d["first_bad_tile"] = self.first_bad_tile
        d.update(self.extra)
        return d


def kernel_name(label: str) -> str:
    """A C identifier for a label (suite case / variant, random pair)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", label)
    return name if re.match(r"[A-Za-z_]", name) else f"k_{name}"


@functools.lru_cache(maxsize=4)
def _sms(target) -> int:
    from llgen.runtime.compile import device

    return device(target).sms


def new_result(label: str, plan, name: str | None = None) -> CheckResult:
    return CheckResult(
        label=label,
        name=name or kernel_name(label),
        path=plan.path,
        dtype=plan.dtype.name,
        target=plan.target.name,
        warps=plan.warps,
        shape=tuple(plan.src.shape),
    )


def launch_error(e: Exception) -> str:
    """A failed launch as a result's error (llgen.core.errors.error_line)."""
    return error_line(e)


def first_bad_tile(bad: np.ndarray, tile: int, want: np.ndarray, got: np.ndarray, **where) -> dict:
    """The first mismatch of a stacked-tile run (``bad``: mismatching flat indices), located by tile and element."""
    t, e = divmod(int(bad[0]), tile)
    return {**where, "tile": t, "element": e, "expected": int(want[bad[0]]), "got": int(got[bad[0]])}


def run_checks(module, plan, res: CheckResult, how: CheckRuns = CheckRuns(), sms: int | None = None) -> CheckResult:
    """Run ``res.name``'s debug and tile kernels ``how.runs`` times on fresh input and fill ``res``; ``sms`` the GPU's
    SM count the tile kernel's grid is sized by (None: the device's)."""
    t0 = time.perf_counter()
    tiles, seed = how.tiles, how.seed
    res.seed = seed if seed is not None else secrets.randbits(62)
    rng = np.random.default_rng(res.seed)
    raw = raw_dtype(plan.dtype)
    tile = tile_elems(plan)
    ids = slot_ids(plan)
    res.slots = int(ids.size)
    res.replicas = int(ids.size - np.unique(ids).size)
    num_tiles = max(1, min(tiles, MAX_ELEMS // tile)) if tiles else 0
    grid = grid_dim(-(-num_tiles // 3), sms if sms is not None else _sms(plan.target)) if num_tiles else 0
    res.tiles, res.grid, res.elems = num_tiles, grid, num_tiles * tile
    try:
        for _ in range(how.runs):
            x = random_input(raw, tile, rng)
            exp = expected_slots(plan, x)
            got = run_debug(module, plan, res.name, x)
            bad = mismatches(exp, got)
            res.slot_bad += int(bad.size)
            if bad.size and res.first_bad is None:
                res.first_bad = first_bad_slot(plan, exp, got)
            if num_tiles:
                xs = random_input(raw, tile * num_tiles, rng)
                exp_t = expected_output(plan, xs, num_tiles)
                got_t = run_tiles(module, plan, res.name, xs, num_tiles, grid)
                bad = mismatches(exp_t, got_t)
                res.tile_bad += int(bad.size)
                if bad.size and res.first_bad_tile is None:
                    res.first_bad_tile = first_bad_tile(bad, tile, bits(exp_t), bits(got_t))
            res.runs += 1
    except RuntimeUnavailable:
        raise
    except Exception as e:  # noqa: BLE001  (a launch error is a result, not a crash of the whole check)
        res.error = launch_error(e)
    res.seconds += time.perf_counter() - t0
    return res


def check(
    plan,
    *,
    how: CheckRuns = CheckRuns(),
    name: str | None = None,
    module=None,
    sms: int | None = None,
    label: str | None = None,
) -> CheckResult:
    """Compile (unless ``module`` is given), run (``how``) and compare one plan. Raises RuntimeUnavailable without a
    GPU."""
    from llgen.runtime.compile import CompileFailed
    from llgen.runtime.compile import compile as compile_source

    if name is None:
        name = kernel_name(label) if label else default_name(plan)
    res = new_result(label or name, plan, name)
    if module is None:
        t0 = time.perf_counter()
        try:
            module = compile_source(emit(plan, "kernel", name), plan.target)
        except CompileFailed as e:
            res.error = f"compile failed: {str(e).strip()[:2000]}"
            return res
        res.seconds = time.perf_counter() - t0
    return run_checks(module, byte_plan(plan), res, how, sms)


def _batches(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def check_many(
    items: list[tuple[str, object]],
    *,
    how: CheckRuns = CheckRuns(),
    batching: Batching = Batching(),
    compiler: Callable | None = None,
    sms: int | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Check (label, plan) pairs, each run as ``how`` says (with a seed, item i uses seed + i), compiled as
    ``batching`` says."""
    from llgen.runtime.compile import CompileFailed
    from llgen.runtime.compile import compile as compile_default

    compiler = compiler or compile_default

    def build(group):
        """(the batch's module or None, seconds): one source for the batch when its plans share a target."""
        named = [(label, plan, kernel_name(label)) for label, plan in group]
        t0 = time.perf_counter()
        module = None
        if len({p.target.name for _, p, _ in named}) == 1:
            try:
                module = compiler("\n".join(emit(p, "kernel", n) for _, p, n in named), named[0][1].target)
            except CompileFailed:
                module = None
        return named, module, time.perf_counter() - t0

    results: list[CheckResult] = []
    index = 0
    for named, module, seconds in _ahead(build, _batches(list(items), batching.size), batching.workers):
        share = seconds / len(named)
        for label, plan, name in named:
            res = new_result(label, plan, name)
            mod = module
            if mod is None:
                try:
                    mod = compiler(emit(plan, "kernel", name), plan.target)
                except CompileFailed as e:
                    res.error = f"compile failed: {str(e).strip()[:2000]}"
            if mod is not None:
                res.seconds = share
                run_checks(mod, byte_plan(plan), res, replace(how, seed=None if how.seed is None else how.seed + index), sms)
            index += 1
            results.append(res)
            if on_result:
                on_result(res)
    return results


def _ahead(fn, items, workers: int):
    """fn(item) for each item, in order, with up to ``workers`` calls running ahead on threads."""
    if workers <= 1:
        yield from map(fn, items)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    it = iter(items)
    with ThreadPoolExecutor(workers) as pool:
        pending = deque(pool.submit(fn, x) for _, x in zip(range(workers), it, strict=False))
        while pending:
            done = pending.popleft().result()
            nxt = next(it, None)
            if nxt is not None:
                pending.append(pool.submit(fn, nxt))
            yield done


def check_gather(module, plan, name: str, *, tiles: int = 37, seed: int | None = None, grid: int = 8) -> CheckResult:
    """Run a gather's ``name``_kernel over ``tiles`` stacked tiles and ``name``_debug over one (every slot and
    replica) on fresh random source and index tensors; compare with NumPy's take_along_axis, bit for bit."""
    t0 = time.perf_counter()
    shape = tuple(plan.layout.shape)
    res = CheckResult(
        label=name,
        name=name,
        path=plan.path,
        dtype=plan.dtype.name,
        target=plan.target.name,
        warps=plan.warps,
        shape=shape,
        seed=seed if seed is not None else secrets.randbits(62),
    )
    rng = np.random.default_rng(res.seed)
    raw = raw_dtype(plan.dtype)
    threads = plan.warps * plan.lanes
    x = random_input(raw, tiles * int(np.prod(shape)), rng).reshape(tiles, *shape)
    ix = rng.integers(0, shape[plan.axis], (tiles, *shape)).astype(np.int32)
    want = np.take_along_axis(x, ix.astype(np.int64), axis=1 + plan.axis)
    ids = element_ids(plan.layout, plan.warps, plan.lanes).reshape(-1)
    try:
        out = module.filled(x.size, raw, poison_value(raw))
        module.launch(f"{name}_kernel", min(grid, tiles), threads, (module.to_device(x), module.to_device(ix), out, tiles))
        module.synchronize()
        got = module.to_host(out)
        bad = mismatches(want.reshape(-1), got)
        res.tiles, res.grid, res.elems, res.tile_bad = tiles, min(grid, tiles), x.size, int(bad.size)
        if bad.size:
            res.first_bad_tile = first_bad_tile(bad, want[0].size, want.reshape(-1), got)
        slots = module.filled(threads * plan.n_regs, raw, poison_value(raw))
        module.launch(
            f"{name}_debug",
            1,
            threads,
            (module.to_device(np.ascontiguousarray(x[0])), module.to_device(np.ascontiguousarray(ix[0])), slots),
        )
        module.synchronize()
        res.slots = int(ids.size)
        res.replicas = int(ids.size - np.unique(ids).size)
        res.slot_bad = int(mismatches(want[0].reshape(-1)[ids], module.to_host(slots)).size)
        res.runs = 1
    except RuntimeUnavailable:
        raise
    except Exception as e:  # noqa: BLE001  (a launch error is a result, not a crash)
        res.error = launch_error(e)
    res.seconds = time.perf_counter() - t0
    return res


def check_bench(
    module, fwd, bwd, name: str, *, launch: BenchLaunch = BenchLaunch(), shape: BenchShape | None = None
) -> CheckResult:
    """Run a bench source's kernels on fresh random input (``launch``): ``name``_stream and ``name``_copy (A -> B -> A
    plus s per tile, and load + s + store) over ``tiles`` stacked tiles on ``grid`` CTAs of BenchShape.groups layout groups,
    each adding s to every element bit for bit; then ``name``_loop, two round trips per tile on ``tiles`` CTAs
    (the second reuses each scratch buffer), adding 2 in the tile's arithmetic. An odd tile count leaves STREAM
    groups with a short last step or none."""
    t0 = time.perf_counter()
    tiles, grid, seed = launch.tiles, launch.grid, launch.seed
    shape = shape or bench_shape(fwd, bwd)
    res = new_result(name, fwd, name)
    res.seed = seed if seed is not None else secrets.randbits(62)
    rng = np.random.default_rng(res.seed)
    raw = raw_dtype(fwd.dtype)
    tile = tile_elems(fwd)
    x = random_input(raw, tiles * tile, rng)
    s = raw.type(rng.integers(1, 100))
    xl = loop_input(fwd.dtype.name, raw, tiles * tile, rng)
    block = fwd.warps * fwd.lanes
    added = (x + s).astype(raw)  # STREAM and copy add in the raw bits
    groups = block * shape.groups
    runs = (
        ("stream", x, added, grid, groups, (tiles, s), shape.stream_smem),
        ("copy", x, added, grid, groups, (tiles, s), 0),
        ("loop", xl, plus_one(fwd.dtype.name, xl, 2, fwd.target.lang), tiles, block, (2,), shape.loop.bytes),
    )
    try:
        for kernel, xin, want, g, b, rest, smem in runs:
            out = module.filled(xin.size, raw, poison_value(raw))
            module.launch(f"{name}_{kernel}", g, b, (module.to_device(xin), out, *rest), smem=smem)
            module.synchronize()
            got = module.to_host(out)
            bad = mismatches(want, got)
            res.tile_bad += int(bad.size)
            if bad.size and res.first_bad_tile is None:
                res.first_bad_tile = first_bad_tile(bad, tile, want, got, kernel=kernel)
        res.tiles, res.grid, res.elems, res.runs = tiles, grid, 3 * x.size, 1
    except RuntimeUnavailable:
        raise
    except Exception as e:  # noqa: BLE001  (a launch error is a result, not a crash)
        res.error = launch_error(e)
    res.seconds = time.perf_counter() - t0
    return res
