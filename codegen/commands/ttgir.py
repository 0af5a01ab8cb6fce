"""Every ``ttg.convert_layout`` of a TTGIR dump (``--ttgir FILE`` without --src/--dst): each op planned in its
module's setting, or left out with one sentence why (a sub-byte or pointer element type, a layout llgen does
not read, a plan that cannot work); ops that repeat an earlier conversion point at it. ``llgen plan`` lists
them, ``llgen emit`` writes one header per distinct conversion and index.txt, ``llgen check`` and ``llgen
bench`` run them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import click

from ..errors import LlgenError
from ..spec.module import ConvertOp, Module, read_ttgir

INDEX = "index.txt"


@dataclass(frozen=True)
class Item:
    module: Module
    op: ConvertOp
    name: str  # the header's name, from the op's function and source location
    plan: object | None = None
    kinds: tuple[str, str] = ("", "")
    why: str = ""  # why the op is not planned
    same_as: int | None = None  # the index of an earlier item with the same conversion


def collect(
    path: str, warps=None, threads_per_warp=None, target=None, path_=None, smem_budget=None
) -> tuple[list[Module], list[Item]]:
    """The modules of ``path`` and an Item for each of their convert_layout ops, in file order."""
    from ..dtypes import from_mlir
    from ..names import identifier
    from ..spec.pair import parse_pair

    modules = read_ttgir(path)
    items: list[Item] = []
    seen: dict[str, int] = {}
    used: set[str] = set()
    for module in modules:
        for op in module.ops:
            name = _unique(identifier(_base_name(op)), used)
            if op.problem:
                items.append(Item(module, op, name, why=f"the op's {op.problem}"))
                continue
            try:
                dt = from_mlir(op.element)
                pair = parse_pair(
                    op.src, op.dst, op.shape, dt, warps=warps, threads_per_warp=threads_per_warp, target=target, module=module
                )
                plan = pair.plan(path_, smem_budget)
            except LlgenError as e:
                items.append(Item(module, op, name, why=str(e)))
                continue
            key = json.dumps([pair.src.to_dict(), pair.dst.to_dict(), dt.name, plan.target.name, plan.path], sort_keys=True)
            items.append(Item(module, op, name, plan, pair.kinds, same_as=seen.get(key)))
            seen.setdefault(key, len(items) - 1)
    return modules, items


def _base_name(op: ConvertOp) -> str:
    """``<function>[_<name>]_l<line>c<col>`` from the op's source location, else ``<function>_ir<line in the dump>``."""
    loc = op.location
    parts = [op.func or "kernel", *([loc.name] if loc.name else [])]
    parts.append(f"l{loc.line}c{loc.col}" if loc.line is not None else f"ir{op.line}")
    return "_".join(parts)


def _unique(name: str, used: set[str]) -> str:
    out, k = name, 2
    while out in used:
        out, k = f"{name}_{k}", k + 1
    used.add(out)
    return out


def _tensor(op: ConvertOp) -> str:
    return f"{'x'.join(map(str, op.shape))}x{op.element}" if op.shape else op.element or "?"


def plan_file(path: str, as_json: bool, warps=None, threads_per_warp=None, target=None, path_=None, smem_budget=None) -> str:
    """``llgen plan --ttgir FILE``: each module's setting, then every op with its plan (or why none)."""
    modules, items = collect(path, warps, threads_per_warp, target, path_, smem_budget)
    if as_json:
        return json.dumps([_json(it, items) for it in items])
    out = []
    for m in modules:
        funcs = ", ".join(f"@{f}" for f in m.funcs) or "no function"
        out.append(
            f"{path} (module at line {m.line}, {funcs}): ttg.num-warps {m.num_warps}, ttg.threads-per-warp "
            f"{m.threads_per_warp}, ttg.target {m.target}; {len(m.ops)} ttg.convert_layout"
        )
    for it in items:
        op = it.op
        out += ["", f"{op.where()} in @{op.func or '?'}: tensor<{_tensor(op)}>, {op.src or '?'} -> {op.dst or '?'}"]
        if it.why:
            out.append(f"  not planned: {it.why}")
        elif it.same_as is not None:
            out.append(f"  the same conversion as {items[it.same_as].op.where()} (path {it.plan.path}).")
        else:
            out += [f"  {line}" if line else "" for line in it.plan.explain().splitlines()]
    return "\n".join(out)


def _json(it: Item, items: list[Item]) -> dict:
    op, m = it.op, it.module
    return {
        "line": op.line,
        "location": op.location.short() or None,
        "loc_name": op.location.name,
        "func": op.func,
        "shape": list(op.shape),
        "element": op.element,
        "src": op.src,
        "dst": op.dst,
        "num_warps": m.num_warps,
        "threads_per_warp": m.threads_per_warp,
        "target": m.target,
        "name": it.name,
        "plan": it.plan.to_json() if it.plan is not None and it.same_as is None else None,
        "same_as_line": items[it.same_as].op.line if it.same_as is not None else None,
        "not_planned": it.why or None,
    }


def emit_file(path, output, form, force, command, warps=None, threads_per_warp=None, target=None, path_=None, smem_budget=None):
    """``llgen emit --ttgir FILE -o DIR/``: one ``form`` file per distinct conversion, then DIR/index.txt."""
    from ..emit import file_names
    from ..version import llgen_version
    from .emit import sources, write_all

    if output is None:
        raise LlgenError("emit --ttgir writes one header per conversion: give a folder with -o DIR/.")
    out = Path(output)
    if out.is_file():
        raise LlgenError(f"-o '{output}' is a file; emit --ttgir writes a folder of headers.")
    _, items = collect(path, warps, threads_per_warp, target, path_, smem_budget)
    forms = ["kernel", "header"] if form == "both" else [form]
    files, written = [], {}
    for i, it in enumerate(items):
        if it.plan is None or it.same_as is not None:
            continue
        names, texts = file_names(it.plan, it.name), sources(it.plan, forms, it.name, command)
        written[i] = [names[f] for f in forms]
        files += [(out / names[f], texts[f]) for f in forms]
    lines = [
        f"Generated by llgen {llgen_version()}: {command}",
        f"One {form} per distinct ttg.convert_layout of {path}.",
        "",
    ]
    for i, it in enumerate(items):
        where = f"{it.op.where()}: tensor<{_tensor(it.op)}>, {it.op.src} -> {it.op.dst}"
        if it.why:
            lines.append(f"not written  {where}: {it.why}")
        else:
            first = it.same_as if it.same_as is not None else i
            lines.append(f"{', '.join(written[first])}  {where}, path {it.plan.path}")
    files.append((out / INDEX, "\n".join(lines) + "\n"))
    write_all(files, force, make_dirs=True)
    click.echo(f"{len(written)} conversion(s) of {len(items)} ttg.convert_layout written to {out}", err=True)


def planned(path: str, warps=None, threads_per_warp=None, target=None, path_=None, smem_budget=None) -> list[Item]:
    """The distinct conversions of ``path`` llgen plans; none is an error."""
    _, items = collect(path, warps, threads_per_warp, target, path_, smem_budget)
    out = [it for it in items if it.plan is not None and it.same_as is None]
    if not out:
        raise LlgenError(f"'{path}' has no ttg.convert_layout that llgen plans (see llgen plan --ttgir {path}).")
    return out


def check_plans(path: str, warps=None, threads_per_warp=None, target=None, path_=None, smem_budget=None):
    """(name, plan) of every distinct conversion of ``path``, for ``llgen check``."""
    return [(it.name, it.plan) for it in planned(path, warps, threads_per_warp, target, path_, smem_budget)]


def bench_cases(path: str, warps=None, threads_per_warp=None, target=None, smem_budget=None):
    """(suite cases, target) of every distinct conversion of ``path``, for ``llgen bench`` (one target)."""
    from ..suite import Case

    items = planned(path, warps, threads_per_warp, target, None, smem_budget)
    targets = sorted({it.plan.target.name for it in items})
    if len(targets) > 1:
        raise LlgenError(f"'{path}' holds kernels for {' and '.join(targets)}: pass --target to bench one of them.")
    cases = [Case(it.name, it.plan.dtype.name, it.plan.src.shape, it.plan.warps, it.plan.src, it.plan.dst) for it in items]
    return cases, targets[0]
