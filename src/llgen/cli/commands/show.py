"""``llgen show``: a layout's thread grid or bank map, its F2 matrix, a conversion or a shared-memory endpoint
(a store or a load), drawn to SVG or PNG
with matplotlib (the ``show`` extra; without it, one sentence saying how to install it)."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.cli.commands.options import Flags, Reading, flags_asked, said_byte_plan
from llgen.core.errors import LlgenError
from llgen.core.options import Options
from llgen.plan.request import plan_endpoint, plan_pair


def need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise LlgenError(
            "llgen show draws with matplotlib, which is not installed: pip install '.[show]' in llgen's clone "
            "(or pip install matplotlib)."
        ) from None


@dataclass(frozen=True)
class Drawn:
    """What `llgen show` draws: one layout ``spec``, or the conversion ``src`` -> ``dst`` as --path plans it (or
    the shared layout of --swizzle for it); None where not given."""

    spec: str | None = None
    src: str | None = None
    dst: str | None = None
    path: str | None = None
    swizzle: str | None = None


@dataclass(frozen=True)
class Picture:
    """How `llgen show` draws and where to: the F2 matrix instead of the picture (--matrix), the --region drawn,
    the --access highlighted in a memory layout at register --step, and the SVG or PNG file it writes."""

    output: str
    matrix: bool = False
    region: str | None = None
    access: str | None = None
    step: int = 0


def show_command(flags: Flags) -> None:
    from llgen.cli.commands.options import ttgir_module

    drawn = Drawn(flags.spec, flags.src, flags.dst, flags.path_, flags.swizzle_name)
    reading = Reading(flags.shape, flags.dtype, flags_asked(flags), ttgir_module(flags.ttgir))
    picture = Picture(flags.output, flags.matrix, flags.region, flags.access, flags.step)
    if flags.ops:
        draw_ops(drawn, reading, tuple(flags.ops), picture)
        return
    draw(drawn, reading, picture)


def draw_ops(drawn: Drawn, reading: Reading, ops: tuple[str, ...], picture: Picture) -> None:
    """``llgen show SPEC --op ...``: SPEC and the layout each shape op makes of it, side by side."""
    need_matplotlib()
    from llgen import show as pictures
    from llgen.cli.commands.layout import ShapeOps, op_steps

    pictures.check_output(picture.output)
    if drawn.spec is None or drawn.src or drawn.dst:
        raise LlgenError("--op draws one layout SPEC through shape ops: give SPEC, not --src/--dst.")
    rows, _ = op_steps(drawn.spec, reading, ShapeOps(ops))
    fig = pictures.steps_figure([(label, t.layout) for label, t in rows], pictures.parse_region(picture.region))
    pictures.save(fig, picture.output)


def draw(drawn: Drawn, reading: Reading, picture: Picture) -> None:
    """Draw what the options ask for to ``picture.output`` (see ``llgen show --help``)."""
    need_matplotlib()
    from llgen import show as pictures
    from llgen.cli.commands.options import option_given
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.core.target import target as to_target
    from llgen.spec import Where, parse_layout
    from llgen.spec.facts import spec_facts
    from llgen.spec.pair import Stated, parse_pair, parse_shape
    from llgen.spec.request import resolve

    spec, src, dst, path_, swizzle = drawn.spec, drawn.src, drawn.dst, drawn.path, drawn.swizzle
    shape, dtype, module = reading.shape, reading.dtype, reading.module
    warps, tpw, target = reading.asked.warps, reading.asked.threads_per_warp, reading.asked.target
    matrix, region, access, step, output = picture.matrix, picture.region, picture.access, picture.step, picture.output
    pictures.check_output(output)
    if (spec is None) == (src is None or dst is None) or (spec is not None and (src or dst)):
        raise LlgenError("give either one layout SPEC or both --src and --dst.")
    if swizzle and spec is not None:
        raise LlgenError("--swizzle needs a conversion: give --src and --dst instead of SPEC.")
    shp, dt = parse_shape(shape), to_dtype(dtype)
    reg = pictures.parse_region(region)
    aliases = module.aliases if module is not None else None
    if spec is not None:
        facts = {"SPEC": spec_facts(spec, aliases)}
        if access is not None:
            facts["--access"] = spec_facts(access, aliases)
        setting = resolve(facts, warps=warps, threads_per_warp=tpw, target=target, module=module, need_target=False)
        tgt = to_target(setting.target or "sm_90")
        lay = parse_layout(spec, shp, setting.warps, setting.lanes, where=Where(dt.bytes, aliases))
        if access is not None and not pictures.is_memory(lay):
            raise LlgenError("--access highlights an access into a memory layout, and this is a distributed layout.")
        if matrix:
            fig = pictures.matrix_figure(lay, spec)
        elif pictures.is_memory(lay):
            acc = parse_layout(access, shp, setting.warps, setting.lanes, where=Where(dt.bytes, aliases)) if access else None
            lit = pictures.WarpAccess(acc, step, tgt) if acc is not None else None
            fig = pictures.bank_map_figure(lay, dt.bytes, lit, reg, spec)
        else:
            fig = pictures.layout_figure(lay, reg, spec)
    else:
        stated = dt if option_given("dtype") else None  # not given: the --ttgir dump's ops or a layout may say it
        pair = parse_pair(src, dst, shp, Stated(stated, warps, tpw, target, module), shared_ok=True)
        if pair.shared:  # an endpoint (a store or a load): S is given, so there is no swizzle to pick and no --access to add
            for flag, given in (("--swizzle", swizzle), ("--access", access)):
                if given is not None:
                    raise LlgenError(
                        f"{flag} does not apply to a shared-memory endpoint: its picture highlights the plan's own access into --{pair.shared}."
                    )
            p = said_byte_plan(plan_endpoint(pair, Options.of(path=path_)))
            if matrix:
                fig = pictures.matrices_figure([("distributed D", p.dist), ("shared S", p.shared)])
            else:
                fig = pictures.endpoint_figure(p, reg, step)
            pictures.save(fig, output)
            return
        asked_plan = Options(path="shared", swizzle=swizzle, matrix=False, one_sided=False) if swizzle else Options.of(path=path_)
        p = said_byte_plan(plan_pair(pair, asked_plan))
        if swizzle:
            mem = pictures.memory_from_swizzle(p.detail, p.src.outs)
            if matrix:
                fig = pictures.matrix_figure(mem, f"{p.detail.swizzle.name} swizzle")
            else:
                acc = {"src": p.src, "dst": p.dst, None: None}.get(access, False)
                if acc is False:
                    acc = parse_layout(access, shp, pair.warps, p.target.lanes, where=Where(dt.unit_bytes, aliases))
                lit = pictures.WarpAccess(acc, step, p.target) if acc is not None else None
                fig = pictures.bank_map_figure(mem, p.dtype.bytes, lit, reg, f"{p.detail.swizzle.name} swizzle")
        elif access is not None:
            raise LlgenError("--access highlights an access into a memory layout: add --swizzle to draw one for --src/--dst.")
        elif matrix:
            fig = pictures.matrices_figure([("source A", p.src), ("destination B", p.dst)])
        else:
            fig = pictures.conversion_figure(p, reg)
    pictures.save(fig, output)
