"""``llgen show``: a layout's thread grid or bank map, its F2 matrix, a conversion or a shared-memory endpoint
(a local_store or local_load), drawn to SVG or PNG
with matplotlib (the ``show`` extra; without it, one sentence saying how to install it)."""

from __future__ import annotations

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


def show_command(
    spec, src, dst, swizzle_name, shape, warps, threads_per_warp, dtype, target, ttgir, path_, matrix, region, access, step,
    output, ops=(),
) -> None:  # fmt: skip
    from llgen.cli.commands.options import tpw, ttgir_module

    if ops:
        draw_ops(spec, shape, ops, warps, tpw(threads_per_warp), dtype, ttgir_module(ttgir), region, output, bool(src or dst))
        return
    draw(
        spec, src, dst, swizzle_name, shape, warps, tpw(threads_per_warp), dtype, target, ttgir_module(ttgir), path_, matrix,
        region, access, step, output,
    )  # fmt: skip


def draw_ops(spec, shape, ops, warps, tpw, dtype, module, region, output, conversion: bool) -> None:
    """``llgen show SPEC --op ...``: SPEC and the layout each shape op makes of it, side by side."""
    need_matplotlib()
    from llgen import show as pictures
    from llgen.cli.commands.layout import op_steps

    pictures.check_output(output)
    if spec is None or conversion:
        raise LlgenError("--op draws one layout SPEC through shape ops: give SPEC, not --src/--dst.")
    rows, _ = op_steps(spec, shape, ops, False, warps, tpw, dtype, module)
    fig = pictures.steps_figure([(label, t.layout) for label, t in rows], pictures.parse_region(region))
    pictures.save(fig, output)


def draw(spec, src, dst, swizzle, shape, warps, tpw, dtype, target, module, path_, matrix, region, access, step, output):
    """Draw what the options ask for to ``output`` (see ``llgen show --help``)."""
    need_matplotlib()
    from llgen import show as pictures
    from llgen.cli.commands.options import option_given
    from llgen.core.dtypes import dtype as to_dtype
    from llgen.core.target import target as to_target
    from llgen.spec import parse_layout
    from llgen.spec.facts import spec_facts
    from llgen.spec.pair import parse_pair, parse_shape
    from llgen.spec.request import resolve

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
        lay = parse_layout(spec, shp, setting.warps, setting.lanes, dt.bytes, aliases)
        if access is not None and not pictures.is_memory(lay):
            raise LlgenError("--access highlights an access into a memory layout, and this is a distributed layout.")
        if matrix:
            fig = pictures.matrix_figure(lay, spec)
        elif pictures.is_memory(lay):
            acc = parse_layout(access, shp, setting.warps, setting.lanes, dt.bytes, aliases) if access else None
            fig = pictures.bank_map_figure(lay, dt.bytes, acc, step, reg, spec, tgt)
        else:
            fig = pictures.layout_figure(lay, reg, spec)
    else:
        stated = dt if option_given("dtype") else None  # not given: the --ttgir dump's ops or a layout may say it
        pair = parse_pair(src, dst, shp, stated, warps=warps, threads_per_warp=tpw, target=target, module=module, shared_ok=True)
        if pair.shared:  # a local_store / local_load: S is given, so there is no swizzle to pick and no --access to add
            for flag, given in (("--swizzle", swizzle), ("--access", access)):
                if given is not None:
                    raise LlgenError(
                        f"{flag} does not apply to a shared-memory endpoint: its picture highlights the plan's own access into --{pair.shared}."
                    )
            p = plan_endpoint(pair, Options.of(path=path_))
            if matrix:
                fig = pictures.matrices_figure([("distributed D", p.dist), ("shared S", p.shared)])
            else:
                fig = pictures.endpoint_figure(p, reg, step)
            pictures.save(fig, output)
            return
        asked_plan = Options(path="shared", swizzle=swizzle, matrix=False, one_sided=False) if swizzle else Options.of(path=path_)
        p = plan_pair(pair, asked_plan)
        if swizzle:
            mem = pictures.memory_from_swizzle(p.detail, p.src.outs)
            if matrix:
                fig = pictures.matrix_figure(mem, f"{p.detail.swizzle.name} swizzle")
            else:
                acc = {"src": p.src, "dst": p.dst, None: None}.get(access, False)
                if acc is False:
                    acc = parse_layout(access, shp, pair.warps, p.target.lanes, dt.bytes, aliases)
                fig = pictures.bank_map_figure(mem, dt.bytes, acc, step, reg, f"{p.detail.swizzle.name} swizzle", p.target)
        elif access is not None:
            raise LlgenError("--access highlights an access into a memory layout: add --swizzle to draw one for --src/--dst.")
        elif matrix:
            fig = pictures.matrices_figure([("source A", p.src), ("destination B", p.dst)])
        else:
            fig = pictures.conversion_figure(p, reg)
    pictures.save(fig, output)
