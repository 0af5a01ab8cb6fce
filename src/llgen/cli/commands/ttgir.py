"""Every ``ttg.convert_layout`` of a TTGIR dump (``--ttgir FILE`` without --src/--dst): each op planned in its
module's setting, or left out with one sentence why (a sub-byte or pointer element type, a layout llgen does
not read, a plan that cannot work); ops that repeat an earlier conversion point at it. ``llgen plan`` lists
them, ``llgen swizzle`` gives each its table of shared layouts, ``llgen emit`` writes one header per distinct
conversion and index.txt, ``llgen check`` and ``llgen bench`` run them. The local ops that move a tensor to or from
shared memory (local_alloc of a value, local_store, local_load) are planned as endpoints (llgen.plan.endpoint) by
plan, emit and check; bench and swizzle take convert_layout only, and bench lists the local ops as skipped. An op
left out is a skip: listed on stderr, exit status 1, unless --allow-skips accepts it (a command that did less than
it was asked to says so)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import click

from llgen.cli.commands.options import NOTHING_ASKED, Asked
from llgen.core.errors import LlgenError
from llgen.core.options import DEFAULTS, Options
from llgen.plan.request import plan_endpoint, plan_pair
from llgen.spec.module import ConvertOp, Module, read_ttgir

INDEX = "index.txt"


@dataclass(frozen=True)
class Item:
    module: Module
    op: ConvertOp
    name: str  # the header's name, from the op's function and source location
    plan: object | None = None
    pair: object | None = None  # the op's two layouts, dtype and target (llgen.spec.pair.Pair)
    why: str = ""  # why the op is not planned
    same_as: int | None = None  # the index of an earlier item with the same conversion


def collect(
    path: str, asked: Asked = NOTHING_ASKED, options: Options = DEFAULTS, *, local: bool = True, shape_checks: list | None = None
) -> tuple[list[Module], list[Item]]:
    """The modules of ``path`` and an Item for each of their convert_layout ops, shape ops whose result is not the
    no-op layout (a conversion from it, llgen.shapeops.ttgir) and (``local``) local ops, in file order. ``options``
    (--path, --smem-budget, --objective) choose a convert_layout's path; a local op's shared layout fixes its own. ``shape_checks``, a list, receives every shape op's check (llgen.shapeops.ttgir.Checked)."""
    from llgen.core.dtypes import from_mlir
    from llgen.core.names import identifier
    from llgen.shapeops.ttgir import MOVES, as_conversion, check_module
    from llgen.spec.pair import Stated, parse_pair
    from llgen.spec.request import resolve

    modules = read_ttgir(path)
    items: list[Item] = []
    seen: dict[str, int] = {}
    used: set[str] = set()
    for module in modules:
        # options that contradict the module (--warps 2 in a ttg.num-warps 4 file) are bad input, not a skip of each op
        setting = resolve({}, warps=asked.warps, threads_per_warp=asked.threads_per_warp, target=asked.target, module=module)
        checks = check_module(module, setting.warps, setting.lanes)
        if shape_checks is not None:
            shape_checks += checks
        moved = [as_conversion(c) for c in checks if c.status == MOVES]
        for op in sorted([*(module.all_ops() if local else module.ops), *moved], key=lambda o: o.line):
            name = _unique(identifier(_base_name(op)), used)
            if op.problem:
                items.append(Item(module, op, name, why=op.problem))
                continue
            try:
                dt = from_mlir(op.element)
                pair = parse_pair(
                    op.src,
                    op.dst,
                    op.shape,
                    Stated(
                        dt,
                        warps=asked.warps,
                        threads_per_warp=asked.threads_per_warp,
                        target=asked.target,
                        module=module,
                        dtype_source=f"the op's tensor<{op.tensor}>",
                    ),
                    shared_ok=op.local,
                )
                if op.local:
                    _check_sides(op, pair.shared)
                plan = plan_endpoint(pair) if op.local else plan_pair(pair, options)
            except LlgenError as e:
                items.append(Item(module, op, name, why=str(e)))
                continue
            shared = repr(pair.encoding) if op.local else None  # a padded layout's padding is not in its map
            key = json.dumps(
                [pair.src.to_dict(), pair.dst.to_dict(), shared, dt.name, plan.target.name, plan.path], sort_keys=True
            )
            items.append(Item(module, op, name, plan, pair, same_as=seen.get(key)))
            seen.setdefault(key, len(items) - 1)
    return modules, items


def _check_sides(op: ConvertOp, shared: str | None) -> None:
    """An error unless the memdesc's encoding is the pair's shared side (parse_pair refuses two shared sides)."""
    load = op.path == "local_load"
    if shared != ("src" if load else "dst"):
        raise LlgenError(f"the op's !ttg.memdesc encoding {op.src if load else op.dst} is not a shared-memory layout.")


def _base_name(op: ConvertOp) -> str:
    """The op's name as `llgen emit --ttgir` names its header, less the digest emit adds (names.ttgir_name)."""
    from llgen.core.names import ttgir_name

    return ttgir_name(op.func, op.location, op.line)


def _unique(name: str, used: set[str]) -> str:
    out, k = name, 2
    while out in used:
        out, k = f"{name}_{k}", k + 1
    used.add(out)
    return out


def _header(op: ConvertOp) -> str:
    """``line 124 (kernel.py:85:55) in @attention_fwd: tensor<128x64xf16>, #mma -> #blocked``; a local op named:
    ``line 53 (...) in @matmul: ttg.local_alloc tensor<128x64xf16, #blocked> -> !ttg.memdesc<...>``."""
    named = op.local or not op.name.endswith(".convert_layout")  # a local op, or a shape op that moves data
    return f"{op.where()} in @{op.func or '?'}: {op.name + ' ' if named else ''}{op.types()}"


def noun(items: list[Item]) -> str:
    """What the items are, for counts: ``ttg.convert_layout``, with local ops among them ``ttg layout ops``."""
    return "ttg layout ops" if any(it.op.local for it in items) else "ttg.convert_layout"


def skip_status(items: list[Item], allow_skips: bool, listed: bool = False) -> int:
    """On stderr, each op llgen skipped with its sentence (unless the output ``listed`` them already) and a count;
    the exit status: 1 when an op was skipped and --allow-skips was not given, else 0."""
    skipped = [it for it in items if it.why]
    if not skipped:
        return 0
    if not listed:
        for it in skipped:
            click.echo(f"skipped {_header(it.op)}: {it.why}", err=True)
    accept = "accepted by --allow-skips" if allow_skips else "pass --allow-skips to accept that"
    click.echo(f"{len(skipped)} of {len(items)} {noun(items)} skipped ({accept}).", err=True)
    return 0 if allow_skips else 1


def warn_registers(items: list[Item]) -> None:
    """One ``warning: ...`` line on stderr for each distinct conversion that needs more registers than a thread has."""
    from llgen.plan.explain import registers_warning

    for it in items:
        distinct = it.plan is not None and it.same_as is None and not it.op.local
        warning = registers_warning(it.plan) if distinct else None
        if warning:
            click.echo(f"warning: {it.op.where()}: {warning.removeprefix('warning: ')}", err=True)


def plan_file(path: str, as_json: bool, allow_skips: bool, asked: Asked, options: Options) -> int:
    """``llgen plan --ttgir FILE``: each module's setting, then every op with its plan (or why none); the exit status."""
    checks: list = []
    modules, items = collect(path, asked, options, shape_checks=checks)
    if as_json:
        click.echo(json.dumps([_json(it, items) for it in items]))
    else:
        shape_lines = ["", f"{len(checks)} shape ops, each result against the layout Triton infers for it:"] if checks else []
        shape_lines += [c.line() for c in checks]
        click.echo(
            "\n".join([*_settings(path, modules), *shape_lines, *_each(items, lambda i: items[i].plan.explain().splitlines())])
        )
    warn_registers(items)
    return skip_status(items, allow_skips, listed=not as_json)


def swizzle_file(path: str, allow_skips: bool, asked: Asked) -> int:
    """``llgen swizzle --ttgir FILE``: each module's setting, then every op with its swizzle table (or why none)."""
    from llgen.cli.commands.swizzle_table import table

    modules, items = collect(path, asked, local=False)
    tables: dict[int, list[str]] = {}
    for i, it in enumerate(items):
        if it.plan is not None and it.same_as is None:
            try:
                tables[i] = table(it.pair).splitlines()
            except LlgenError as e:  # no shared-memory plan for this op: it is skipped, and so are its repeats
                items[i] = replace(it, plan=None, why=str(e))
        elif it.same_as is not None and items[it.same_as].why:
            items[i] = replace(it, plan=None, why=items[it.same_as].why, same_as=None)
    click.echo("\n".join([*_settings(path, modules, local=False), *_each(items, tables.__getitem__)]))
    return skip_status(items, allow_skips, listed=True)


def _settings(path: str, modules: list[Module], local: bool = True) -> list[str]:
    """A line per module: where it starts, its functions, ttg.num-warps, threads per warp, target, op counts
    (``local``: the local ops' too)."""
    out = []
    for m in modules:
        funcs = ", ".join(f"@{f}" for f in m.funcs) or "no function"
        out.append(
            f"{path} (module at line {m.line}, {funcs}): ttg.num-warps {m.num_warps}, ttg.threads-per-warp "
            f"{m.threads_per_warp}, ttg.target {m.target}; {len(m.ops)} ttg.convert_layout"
            + (f", {len(m.local_ops)} local_alloc/local_store/local_load" if m.local_ops and local else "")
        )
    return out


def _each(items: list[Item], body) -> list[str]:
    """A header line per op, then ``body(index)``'s lines indented, why it is not planned, or the op it repeats."""
    out = []
    for i, it in enumerate(items):
        out += ["", _header(it.op)]
        if it.why:
            out.append(f"  not planned: {it.why}")
        elif it.same_as is not None:
            out.append(f"  the same conversion as {items[it.same_as].op.where()} (path {it.plan.path}).")
        else:
            out += [f"  {line}" if line else "" for line in body(i)]
    return out


def _json(it: Item, items: list[Item]) -> dict:
    op, m = it.op, it.module
    return {
        "line": op.line,
        "location": op.location.short() or None,
        "loc_name": op.location.name,
        "func": op.func,
        "shape": list(op.shape),
        "element": op.element,
        "op": op.name,
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


def planned(path: str, asked: Asked, options: Options) -> list[Item]:
    """Every op of ``path``, planned or with why not; an error when none is planned."""
    _, items = collect(path, asked, options)
    if not any(it.plan is not None for it in items):
        raise LlgenError(f"'{path}' has no ttg.convert_layout that llgen plans (see llgen plan --ttgir {path}).")
    return items


def check_plans(path: str, allow_skips: bool, asked: Asked, options: Options):
    """(name, plan) of every distinct conversion of ``path``, for ``llgen check``, and the skips' exit status."""
    items = planned(path, asked, options)
    return [(it.name, it.plan) for it in _distinct(items)], skip_status(items, allow_skips)


def bench_cases(path: str, allow_skips: bool, asked: Asked = NOTHING_ASKED, options: Options = DEFAULTS):
    """(suite cases, target) of every distinct conversion of ``path``, for ``llgen bench`` (one target), and the
    skips' exit status."""
    from llgen.cases.suite import Case

    _, items = collect(path, asked, replace(options, path=None))  # bench measures every path
    why = "llgen bench times ttg.convert_layout only; a local op's plan is checked by llgen check."
    items = [replace(it, plan=None, same_as=None, why=why) if it.op.local and not it.why else it for it in items]
    if not any(it.plan is not None for it in items):
        raise LlgenError(f"'{path}' has no ttg.convert_layout that llgen benches (see llgen plan --ttgir {path}).")
    distinct = _distinct(items)
    targets = sorted({it.plan.target.name for it in distinct})
    if len(targets) > 1:
        raise LlgenError(f"'{path}' holds kernels for {' and '.join(targets)}: pass --target to bench one of them.")
    cases = [Case(it.name, it.plan.dtype.name, it.plan.src.shape, it.plan.warps, it.plan.src, it.plan.dst) for it in distinct]
    return cases, targets[0], skip_status(items, allow_skips)


def _distinct(items: list[Item]) -> list[Item]:
    return [it for it in items if it.plan is not None and it.same_as is None]
