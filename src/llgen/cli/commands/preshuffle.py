"""``llgen preshuffle``: the memory layout G in which B's registers load as 16-byte vectors, printed as the references
state theirs (offset bit -> tensor coordinates, by role), with the sector count against its floor, the K permutation
and the plain row-major load beside them; -o writes the loader header, the repack kernel and the NumPy repack."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PreshuffleRequest:
    dst: str
    shape: str
    tile: str | None
    dtype: str
    warps: int | None
    threads_per_warp: str | None
    decode: str
    scale_block: int | None = None  # B's values take e8m0 scales, one per this many elements along K


def plan_of(req: PreshuffleRequest):
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.core.errors import LlgenError
    from llgen.layouts.dot import DotOperand
    from llgen.plan.preshuffle import PreshufflePlan
    from llgen.spec import parse_encoding, parse_layout
    from llgen.spec.pair import parse_shape

    shape = parse_shape(req.shape)
    tile = parse_shape(req.tile) if req.tile else shape
    if len(tile) != len(shape) or any(s % t for s, t in zip(shape, tile, strict=True)):
        raise LlgenError(f"--tile {req.tile} does not tile --shape {req.shape}: each dim must divide the shape's.")
    dt = to_dtype(req.dtype)
    lanes = int(req.threads_per_warp) if req.threads_per_warp else None
    enc = parse_encoding(req.dst, tile, req.warps, lanes)
    k_dim = None
    if isinstance(enc, DotOperand):
        k_dim = len(tile) - 1 if enc.operand_index == 0 else len(tile) - 2
    operand = parse_layout(req.dst, tile, req.warps, lanes)
    if req.scale_block is not None and k_dim is None:
        raise LlgenError("--scale-block needs K: give --dst as a dot operand (#ttg.dot_op<...>).")
    if req.scale_block is not None and shape[k_dim] % req.scale_block:
        raise LlgenError(f"--scale-block {req.scale_block} does not divide K = {shape[k_dim]}.")
    return PreshufflePlan(operand, shape, dt, k_dim, req.decode, req.scale_block)


def explain(plan) -> str:
    """G's bits by role, its traffic, the K permutation's, and the plain load's."""
    lines = [f"B over one {'x'.join(map(str, plan.tile))} tile of the {'x'.join(map(str, plan.shape))} {plan.dtype.name} tensor"]
    lines.append("G, offset bit -> (" + ", ".join(f"dim{d}" for d in range(len(plan.shape))) + "):")
    bases = [list(b) for b in plan.memory.to_dict()["bases"]["offset"]]
    ld = plan.loader
    nv, nl = ld.vector_bits, len([c for c in plan.operand.flat_cols("lane") if c])
    nr = len([c for c in plan.operand.flat_cols("register") if c]) - nv
    nw = len([c for c in plan.operand.flat_cols("warp") if c])
    roles = (("vector", nv), ("lane", nl), ("register", nr), ("warp", nw), ("tile", len(bases) - nv - nl - nr - nw))
    i = 0
    for role, n in roles:
        if n:
            lines.append(f"  {role:<9} {' '.join(str(b) for b in bases[i : i + n])}")
        i += n
    lines.append("  " + _traffic("G", ld))
    if plan.decode == "fast":
        lines.append("  4-bit elements in the order 0,2,4,6,1,3,5,7 within each word: the fast decode")
    if plan.k_loader is not None:
        sigma = plan.k_permutation()
        shown = ",".join(map(str, sigma[:32])) + (",..." if len(sigma) > 32 else "")
        lines.append(
            f"K permutation (no repack: the weight stored K-contiguous, the other operand's K permuted alike): sigma = {shown}"
        )
        lines.append("  " + _traffic("K-contiguous", plan.k_loader))
    row = plan.row_major
    lines.append("  " + (_traffic("row-major", row) if row else "row-major: a thread's element pairs are not adjacent bytes"))
    return "\n".join(lines)


def _traffic(what: str, loader) -> str:
    t = loader.traffic()
    return (
        f"{what}: {t['loads_per_thread']} load{'s' if t['loads_per_thread'] > 1 else ''} of {t['vector_bytes']} B a thread a tile; a warp's load touches "
        f"{t['sectors_per_load']:g} sectors (floor {t['floor_sectors_per_load']:g}), {t['lines_per_load']:g} lines"
    )


def preshuffle_command(req: PreshuffleRequest, as_json: bool, memory: str, out: str | None, force: bool) -> None:
    import click

    from llgen.cli.app import command_line
    from llgen.core.files import write_every
    from llgen.emit import preshuffle as E

    plan = plan_of(req)
    shown = plan.scales or plan  # with --scale-block: the scales' G, B's values beside it in the files
    if as_json:
        click.echo(json.dumps(E.loader_of(shown, memory).memory.to_dict()))
        return
    click.echo(explain(shown))
    if out is None:
        return
    cmd, folder, files = command_line(), Path(out), []
    for p, mem in ((shown, "g"), (plan, memory)) if plan.scales else ((plan, memory),):  # scales in their G
        ns = E.name(p)
        files += [
            (folder / f"{ns}.cuh", E.header(p, ns, mem, cmd)),
            (folder / f"{ns}_repack.cu", E.repack_kernel(p, ns, mem, cmd)),
            (folder / f"{ns}_repack.py", E.repack_numpy(p, ns, mem, cmd)),
        ]
    write_every(files, force=force, make_dirs=True)
    for path, _ in files:
        click.echo(f"wrote {path}")
