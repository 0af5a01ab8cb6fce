"""``llgen layout``: a spec as the TTGIR attribute it resolves to, its bases as ``#ttg.linear``, its longest vector
per thread, a thread grid (or, with --hw, each thread's registers) and its F2 matrix; with --op, the layout each
shape op leaves, as Triton infers it (llgen.shapeops), forward or, with --backward, from a wanted result back to the
input; or, with --ttgir and no spec, every layout of a dump: its aliases and each distinct (layout, shape) of its
tensor types as ``#ttg.linear``."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.cli.commands.options import Flags, Reading

LINEAR_INS = ("register", "lane", "warp", "block")  # the in-dims of a #ttg.linear, in Triton's order


def linear_text(lay) -> str | None:
    """A distributed layout's ``#ttg.linear`` text, exactly as Triton 3.6 prints a LinearEncodingAttr; None for a
    layout with other in-dims (a shared memory layout's offsets)."""
    from llgen.spec.render import linear_attribute

    return linear_attribute(lay) if set(lay.in_names) <= set(LINEAR_INS) else None


@dataclass(frozen=True)
class View:
    """How `llgen layout` prints a layout: Triton's bases form only (--json), or each thread's registers in place of
    the grid (--hw)."""

    as_json: bool = False
    hw: bool = False


@dataclass(frozen=True)
class ShapeOps:
    """The --op shape ops in the order they run, and whether SPEC is their wanted result (--backward) rather than
    their input."""

    ops: tuple[str, ...]
    backward: bool = False


def describe(spec: str, reading: Reading, view: View = View()) -> str:
    """The text ``llgen layout SPEC`` prints; the layout needs no target, so ``reading.asked.target`` is not read."""
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.core.errors import LlgenError
    from llgen.spec import Where, parse_encoding, parse_layout
    from llgen.spec.facts import spec_facts
    from llgen.spec.pair import parse_shape
    from llgen.spec.request import resolve

    if view.as_json and view.hw:
        raise LlgenError("--json prints the bases only: leave out --hw.")
    shp, dt = parse_shape(reading.shape), to_dtype(reading.dtype)
    module, asked = reading.module, reading.asked
    aliases = module.aliases if module is not None else None
    facts = {"SPEC": spec_facts(spec, aliases)}
    setting = resolve(facts, warps=asked.warps, threads_per_warp=asked.threads_per_warp, module=module, need_target=False)
    lay = parse_layout(spec, shp, setting.warps, setting.lanes, where=Where(dt.unit_bytes, aliases))
    if view.as_json:
        import json

        return json.dumps(lay.to_dict())
    from llgen.core.view import layout_text
    from llgen.spec.render import attribute

    enc = (
        None
        if spec.strip().startswith("@")
        else parse_encoding(spec, shp, setting.warps, setting.lanes, where=Where(dt.unit_bytes, aliases))
    )
    head, shown = [spec], {spec.strip()}
    for label, text in (("TTGIR", enc and attribute(enc)), ("linear", linear_text(lay))):
        if text and text not in shown:
            head.append(f"{label}: {text}")
            shown.add(text)
    first, sep, rest = layout_text(lay, "\n".join(head), view.hw).partition("\n\n")
    if "offset" not in lay.in_names:  # a distributed layout: its vector width (the paper's §5.1)
        first += f"\n{vector_line(lay)}"
    return first + sep + rest


def vector_line(lay) -> str:
    """The layout's longest vector: the largest u with L^-1(i) = i for i < u, i.e. how many consecutive row-major
    elements (running on into the next dim where a dim is held whole) one thread holds in consecutive registers."""
    n = lay.num_consecutive()
    return f"vector: {n} element{'s' if n != 1 else ''} (consecutive in row-major order, in consecutive registers of one thread)"


def op_steps(spec: str, reading: Reading, ops: ShapeOps) -> tuple[list, object]:
    """SPEC over --shape through the shape ops (llgen.shapeops): ``([(label, TensorLayout)], last)``, the rows in
    the order the ops run (with --backward, from the wanted result back to the input, which is ``last``); like
    describe, it does not read ``reading.asked.target``."""
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.core.errors import LlgenError
    from llgen.shapeops import TensorLayout, parse_op, result_shapes, source_of
    from llgen.spec import Where, parse_encoding, parse_layout
    from llgen.spec.facts import spec_facts
    from llgen.spec.pair import parse_shape
    from llgen.spec.request import resolve

    parsed = [parse_op(o) for o in ops.ops]
    shp, dt = parse_shape(reading.shape), to_dtype(reading.dtype)
    at = result_shapes(shp, parsed)[-1] if ops.backward else shp  # the shape SPEC is over
    module, asked = reading.module, reading.asked
    aliases = module.aliases if module is not None else None
    setting = resolve(
        {"SPEC": spec_facts(spec, aliases)},
        warps=asked.warps,
        threads_per_warp=asked.threads_per_warp,
        module=module,
        need_target=False,
    )
    if spec.strip().startswith("@"):
        given = TensorLayout.of(parse_layout(spec, at, setting.warps, setting.lanes, where=Where(dt.unit_bytes, aliases)))
    else:
        given = TensorLayout(parse_encoding(spec, at, setting.warps, setting.lanes, where=Where(dt.unit_bytes, aliases)), at)
    if ops.backward:
        try:
            steps = source_of(given, parsed, shp)
        except LlgenError as e:
            raise LlgenError(f"--op (backward): {e}") from None
        rows = [("wanted", steps[-1])] + [(f"<- {parsed[k]}", steps[k]) for k in range(len(parsed) - 1, -1, -1)]
        return rows, steps[0]
    steps = [given]
    for op in parsed:
        try:
            steps.append(steps[-1].apply(op))
        except LlgenError as e:
            raise LlgenError(f"--op {op}: {e}") from None
    return list(zip(["input", *map(str, parsed)], steps, strict=True)), steps[-1]


def ops_text(spec: str, reading: Reading, ops: ShapeOps, view: View) -> str:
    """``llgen layout SPEC --op ...``: every step's shape, vector and layout as Triton prints it, then the last
    layout (with --backward: the input's) as ``llgen layout RESULT --shape RESULT_SHAPE`` prints it."""
    from llgen.core.errors import LlgenError

    if view.as_json and view.hw:
        raise LlgenError("--json prints the bases only: leave out --hw.")
    rows, last = op_steps(spec, reading, ops)
    dims = "x".join(map(str, last.shape))
    described = describe(last.text, Reading(dims, reading.dtype), view)
    if view.as_json:
        return described
    w = max(len(label) for label, _ in rows)
    wd = max(len("x".join(map(str, t.shape))) for _, t in rows)
    table = [f"{label:<{w}}  {'x'.join(map(str, t.shape)):<{wd}}  vector {t.vector:<3} {t.text}" for label, t in rows]
    what = "backward (Triton's inferSrcEncoding, last op first)" if ops.backward else "shape ops (the layouts Triton 3.6 infers)"
    return "\n".join([f"{what}:", *table, "", described])


def aliases_text(module) -> str:
    """Every alias of a TTGIR module, written out, or why llgen does not read it."""
    from llgen.spec.render import parsed_text

    return "\n".join(
        f"{name} = {parsed_text(a.attr)}" if a.attr is not None else f"{name}: {a.why}" for name, a in module.aliases.items()
    )


def file_text(path: str, warps, threads_per_warp) -> str:
    """``llgen layout --ttgir FILE``: per module its setting and aliases, then every distinct (encoding, shape) of
    its tensor types in order of first appearance, each as ``#ttg.linear`` (or one sentence why not)."""
    from llgen.core.errors import LlgenError
    from llgen.core.files import read_text
    from llgen.core.limits import MAX_TTGIR_BYTES
    from llgen.spec import Where, parse_layout
    from llgen.spec.facts import spec_facts
    from llgen.spec.module import read_ttgir
    from llgen.spec.request import resolve

    modules = read_ttgir(path)
    lines = read_text(path, MAX_TTGIR_BYTES, "TTGIR file").splitlines()
    out = []
    for m in modules:
        funcs = ", ".join(f"@{f}" for f in m.funcs) or "no function"
        out += [
            *([""] if out else []),
            f"{path} (module at line {m.line}, {funcs}): ttg.num-warps {m.num_warps}, ttg.threads-per-warp "
            f"{m.threads_per_warp}, ttg.target {m.target}",
            aliases_text(m),
        ]
        seen: dict[tuple[str, tuple[int, ...]], list[int]] = {}  # (encoding, shape) -> the lines it is on
        for number in range(m.line, _module_end(lines, m.line) + 1):
            for shape, encoding in tensor_types(lines[number - 1]):
                on = seen.setdefault((encoding, shape), [])
                if number not in on:
                    on.append(number)
        out += ["", f"{len(seen)} tensor layout{'s' if len(seen) != 1 else ''} (encoding, shape; the line it first appears on):"]
        for (encoding, shape), on in seen.items():
            dims = "x".join(map(str, shape))
            more = f", and {len(on) - 1} more line{'s' if len(on) > 2 else ''}" if len(on) > 1 else ""
            out.append(f"{encoding} {dims} (line {on[0]}{more})")
            try:
                setting = resolve(
                    {encoding: spec_facts(encoding, m.aliases)},
                    warps=warps,
                    threads_per_warp=threads_per_warp,
                    module=m,
                    need_target=False,
                )
                # a TTGIR attribute states every parameter: the element size feeds only short-form defaults
                lay = parse_layout(encoding, shape, setting.warps, setting.lanes, where=Where(dtype_bytes=4, aliases=m.aliases))
                out.append(f"  {linear_text(lay) or 'a shared memory layout: no #ttg.linear'}")
            except LlgenError as e:
                out.append(f"  not read: {e}")
    return "\n".join(out)


def tensor_types(line: str) -> list[tuple[tuple[int, ...], str]]:
    """(shape, encoding) of every ``tensor<128x64xf16, #enc>`` on a line that has an encoding and fixed sizes."""
    import re

    out, at = [], 0
    while (at := line.find("tensor<", at)) >= 0:
        depth, i = 0, at + len("tensor")
        while i < len(line):
            depth += {"<": 1, ">": -1}.get(line[i], 0)
            i += 1
            if depth == 0:
                break
        dims, _, encoding = line[at + len("tensor<") : i - 1].partition(",")
        m = re.match(r"((?:[0-9]{1,9}x)+)", dims.strip())
        if m and encoding.strip():
            out.append((tuple(int(d) for d in m.group(1)[:-1].split("x")), encoding.strip()))
        at = i
    return out


def _module_end(lines: list[str], first: int) -> int:
    """The last line (1-based) of the module section that starts at line ``first``: up to the next
    MLIR_ENABLE_DUMP header or ``// -----`` separator, else the end of the file."""
    for i in range(first, len(lines)):  # lines[first] is the line after the section's first
        if lines[i].startswith("// -----"):
            return i
    return len(lines)


def layout_command(flags: Flags) -> None:
    """``llgen layout``: print SPEC described over --shape (with --op: through the shape ops), or with --ttgir and
    no SPEC every layout of the file."""
    import click

    from llgen.cli.commands.options import Asked, given, tpw, ttgir_module
    from llgen.core.errors import LlgenError

    if flags.backward and not flags.ops:
        raise LlgenError("--backward needs the ops to go back through: give at least one --op.")
    if flags.spec is None:
        if flags.ttgir is None:
            raise LlgenError("give a layout SPEC, or --ttgir FILE to list the layouts it defines.")
        params = {"shape": "shape", "dtype": "dtype", "json": "as_json", "hw": "hw", "op": "ops"}
        named = [f"--{flag}" for flag, param in params.items() if given(param)]
        if named:
            raise LlgenError(f"{named[0]} needs a layout SPEC; --ttgir alone lists every tensor type with its own shape.")
        click.echo(file_text(flags.ttgir, flags.warps, tpw(flags.threads_per_warp)))
    else:
        reading = Reading(flags.shape, flags.dtype, Asked(flags.warps, tpw(flags.threads_per_warp)), ttgir_module(flags.ttgir))
        if flags.ops:
            click.echo(ops_text(flags.spec, reading, ShapeOps(tuple(flags.ops), flags.backward), View(flags.as_json, flags.hw)))
        else:
            click.echo(describe(flags.spec, reading, View(flags.as_json, flags.hw)))
