"""`llgen check` of a shared-memory endpoint (a store or a load plan, llgen.emit.endpoint): compile the
emitted check kernels, run them on a GPU or on CPU threads (src/llgen/runtime/host.py), and compare bit for bit.

The expected memory image comes from S's own map (its bases, its padding), not from the plan: a store must leave
element e at byte ``pad(S^-1(e)) * bytes`` and the 0xa5 poison everywhere else (padding included); a load must
fill every (warp, lane, register) slot of D, replicas included, with its element, and its store_b must write the
dense tile back. A store's image fed to the load of the same S closes the round trip.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import click
import numpy as np

from llgen.emit import dynamic_smem, emit
from llgen.runtime.compile import CompileFailed
from llgen.runtime.reference import poison_value, random_input, raw_dtype
from llgen.verify.simulate import element_ids

POISON = 0xA5  # the store kernel's fill: bytes no element may land on stay this


def memory_image(plan) -> tuple[np.ndarray, np.ndarray]:
    """(byte address of each element offset of S, the flat row-major element at that offset)."""
    lay = plan.encoding.to_linear(plan.dist.shape) if plan.encoding is not None else plan.shared
    d = lay.to_dict()
    names = list(d["out_dims"])
    o = np.arange(1 << len(d["bases"]["offset"]), dtype=np.int64)
    coords = dict.fromkeys(names, 0)
    for i, vec in enumerate(d["bases"]["offset"]):
        for name, c in zip(names, vec, strict=True):
            coords[name] = coords[name] ^ np.where((o >> i) & 1, c, 0)
    elem = np.zeros(o.size, dtype=np.int64)
    for name, size in zip(plan.dist.out_names, plan.dist.shape, strict=True):
        elem = elem * size + coords[name]
    pad = plan.buffer.pad if plan.buffer.padded else None
    addr = np.array([pad(int(x)) for x in o], dtype=np.int64) if pad else o
    return addr * plan.dtype.bytes, elem


def shared_bytes(plan, x: np.ndarray, fill: int = POISON) -> np.ndarray:
    """The kSmemBytes buffer holding tile ``x`` (raw, row-major) as S lays it out, ``fill`` in the padding."""
    addr, elem = memory_image(plan)
    out = np.full(plan.smem_bytes, fill, dtype=np.uint8)
    eb = plan.dtype.bytes
    raw = x.view(np.uint8).reshape(-1, eb)
    for k in range(eb):
        out[addr + k] = raw[elem, k]
    return out


def run_endpoint(module, plan, name: str, rng) -> list[str]:
    """Run ``name``'s kernels once on fresh input; the mismatches in words (none: exact)."""
    raw = raw_dtype(plan.dtype)
    tile = 1 << plan.dist.total_out_bits
    threads = plan.warps * plan.target.lanes
    x = random_input(raw, tile, rng)
    image = shared_bytes(plan, x)
    bad = []
    if plan.direction == "store":
        out = module.filled(plan.smem_bytes, np.uint8, 0)
        module.launch(f"{name}_store", 1, threads, (module.to_device(x), out), smem=dynamic_smem(plan))
        module.synchronize()
        got = module.to_host(out)
        wrong = np.flatnonzero(got != image)
        if wrong.size:
            b = int(wrong[0])
            bad.append(f"{wrong.size} of {image.size} shared bytes differ; byte {b}: expected {image[b]:#04x}, got {got[b]:#04x}")
        return bad
    n = 1 << plan.dist.in_bits("register")
    slots = module.filled(threads * n, raw, poison_value(raw))
    module.launch(f"{name}_load", 1, threads, (module.to_device(image), slots), smem=dynamic_smem(plan))
    module.synchronize()
    want = x[element_ids(plan.dist, plan.warps, plan.target.lanes).reshape(-1)]
    got = module.to_host(slots)
    wrong = np.flatnonzero(got != want)
    if wrong.size:
        t, j = divmod(int(wrong[0]), n)
        bad.append(
            f"{wrong.size} of {want.size} slots differ; thread {t} register {j}: expected {want[wrong[0]]}, got {got[wrong[0]]}"
        )
    out = module.filled(tile, raw, poison_value(raw))
    module.launch(f"{name}_tile", 1, threads, (module.to_device(image), out), smem=dynamic_smem(plan))
    module.synchronize()
    wrong = np.flatnonzero(module.to_host(out) != x)
    if wrong.size:
        bad.append(f"store_b: {wrong.size} of {tile} tile elements differ, the first at {int(wrong[0])}")
    return bad


def round_trip(module, store: tuple[str, object], load: tuple[str, object], rng) -> list[str]:
    """A tile through ``store``'s kernel (name, plan) into S, its shared bytes into ``load``'s kernel, which reads the
    same S into its own D: every slot of that D must hold its element."""
    (sname, sp), (lname, lp) = store, load
    raw = raw_dtype(sp.dtype)
    x = random_input(raw, 1 << sp.dist.total_out_bits, rng)
    image = module.filled(sp.smem_bytes, np.uint8, 0)
    module.launch(f"{sname}_store", 1, sp.warps * sp.target.lanes, (module.to_device(x), image), smem=dynamic_smem(sp))
    threads = lp.warps * lp.target.lanes
    slots = module.filled(threads << lp.dist.in_bits("register"), raw, poison_value(raw))
    module.launch(f"{lname}_load", 1, threads, (image, slots), smem=dynamic_smem(lp))
    module.synchronize()
    want = x[element_ids(lp.dist, lp.warps, lp.target.lanes).reshape(-1)]
    wrong = int(np.count_nonzero(module.to_host(slots) != want))
    return [f"round trip {sname} -> {lname}: {wrong} of {want.size} slots differ"] if wrong else []


def compile_endpoints(items: list[tuple[str, object]], cpu: bool):
    """One module holding the check kernels of every (name, plan), all of one target."""
    if cpu:
        from llgen.runtime.host import compile as compiler
    else:
        from llgen.runtime.compile import compile as compiler
    return compiler("\n".join(emit(p, "kernel", n) for n, p in items), items[0][1].target)


def check_endpoint(plan, *, name: str = "endpoint", runs: int = 1, cpu: bool = True, seed: int | None = None) -> list[str]:
    """Compile and run ``plan``'s check kernels ``runs`` times; the mismatches (an empty list: every byte or slot
    exact). A source that does not compile is one entry."""
    try:
        module = compile_endpoints([(name, plan)], cpu)
    except CompileFailed as e:
        return [f"compile failed: {str(e).strip()[:2000]}"]
    rng = np.random.default_rng(secrets.randbits(62) if seed is None else seed)
    bad: list[str] = []
    for _ in range(runs):
        bad += run_endpoint(module, plan, name, rng)
    return bad


def compared(plan, runs: int) -> dict:
    """What ``runs`` runs of ``plan``'s check compare: a store's shared bytes; a load's slots of D (replicas among
    them) and the elements its store_b writes back."""
    if plan.direction == "store":
        return {"shared_bytes_compared": plan.smem_bytes * runs}
    slots = (plan.warps * plan.target.lanes) << plan.dist.in_bits("register")
    held = 1 << plan.dist.total_out_bits
    return {
        "slots_compared": slots * runs,
        "replica_slots_compared": (slots - held) * runs,
        "elements_compared": held * runs,
    }


def what_was_checked(plan) -> str:
    """The check in words, for the report."""
    if plan.direction == "store":
        padded = plan.buffer.padded
        where = "pad(S^-1(e))" if padded else "S^-1(e)"
        return (
            f"{plan.path}: a random tile loaded into D and stored into S; the whole {plan.smem_bytes}-byte buffer, poisoned "
            f"with {POISON:#04x} first, compared byte for byte with S's own map"
            + (" and padding" if padded else "")
            + f": each element e at byte {where} * {plan.dtype.bytes}, the poison everywhere else."
        )
    return (
        f"{plan.path}: shared memory filled from S's own map with a random tile and loaded into D; every (warp, lane, "
        "register) slot of D, replicas included, compared with its element; then the same load stored back as a "
        "row-major tile (store_b) and every element compared."
    )


def write_endpoint_report(prefix: str, plan, device: dict, date: str, runs: int, bad: list[str]) -> tuple[Path, Path]:
    """PREFIX.md and PREFIX.json of an endpoint's check, as src/llgen/runtime/report.py writes a conversion's: the device and
    date, the plan (its wavefronts against the floor, why above it), what was compared and the mismatches."""
    from llgen.core.files import write_atomic

    prefix_path = Path(prefix)
    md, js = prefix_path.with_name(prefix_path.name + ".md"), prefix_path.with_name(prefix_path.name + ".json")
    plan_json = plan.to_json()
    record = {
        "title": "llgen check",
        "date": date,
        "device": device,
        "ok": not bad,
        "counts": {"runs": runs, **compared(plan, runs), "mismatches": len(bad)},
        "checked": what_was_checked(plan),
        "plan": plan_json,
        "mismatches": bad,
    }
    counted = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in compared(plan, runs).items())
    lines = [
        "# llgen check",
        "",
        (
            f"Device: {device.get('name', 'unknown')} ({device.get('arch', '?')}, {device.get('sms', '?')} SMs), driver "
            f"{device.get('driver', '?')}, {device.get('runtime', '?')}. Date: {date}."
        ),
        "",
        f"**{plan.path} ({plan.side.op}), {plan.dtype.name}: {'ok' if not bad else 'MISMATCH'}; {counted} over {runs} run(s).**",
        "",
        "## Plan",
        "",
        (
            f"{plan.wavefronts} wavefront(s) for the tile, {plan.wavefronts_per_access} per access; the floor is "
            f"{plan.floor}"
            + (f", and the plan is above it: {plan.floor_reason}." if plan.floor_reason else ", and the plan is at it.")
        ),
        "",
        "```",
        plan.explain(),
        "```",
        "",
        "## Checked",
        "",
        what_was_checked(plan),
        "",
    ]
    if bad:
        lines += ["## Mismatches", ""] + [f"- {line}" for line in bad] + [""]
    write_atomic(js, json.dumps(record, indent=1) + "\n", make_dirs=True)
    write_atomic(md, "\n".join(lines), make_dirs=True)
    return md, js


def run_endpoint_check(plan, *, runs: int = 1, cpu: bool = False, report: str | None = None) -> int:
    """The body of `llgen check` for an endpoint: one line of result, the mismatches on stderr, ``report`` (a path
    prefix) written as PREFIX.md and PREFIX.json; exit status 1 on any mismatch."""
    from llgen.runtime.report import now

    if plan.kind == "packed":  # 4-bit: its byte endpoint moves the pairs
        click.echo(plan.bytes_line())
        plan = plan.inner
    if cpu:
        from llgen.runtime.host import cpu_device

        dev = cpu_device(plan.target)
    else:
        from llgen.runtime.compile import device

        dev = device(plan.target)
    date = now()
    click.echo(f"device: {dev.name} ({dev.arch}); {plan.path} {plan.side.op}, {plan.dtype.name}, {runs} run(s)")
    bad = check_endpoint(plan, runs=runs, cpu=cpu)
    what = f"{plan.smem_bytes} shared bytes" if plan.direction == "store" else "every slot of D and the stored tile"
    click.echo(f"{plan.path}: {'ok' if not bad else 'MISMATCH'} ({what}, {runs} run(s))")
    for line in bad:
        click.echo(line, err=True)
    if report is not None:
        md, js = write_endpoint_report(report, plan, dev.to_json(), date, runs, bad)
        click.echo(f"wrote {md} and {js}", err=True)
    return 1 if bad else 0
