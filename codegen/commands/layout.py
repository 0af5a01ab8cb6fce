"""``llgen layout``: a spec as the TTGIR attribute it resolves to, its Triton bases, a thread grid and its F2
matrix; or, with --ttgir and no spec, the layouts a dump defines."""

from __future__ import annotations


def describe(spec: str, shape: str, warps, threads_per_warp, dtype: str, module, as_json: bool) -> str:
    """The text ``llgen layout SPEC`` prints (``as_json``: Triton's bases form only)."""
    from ..dtypes import dtype as to_dtype
    from ..spec import parse_encoding, parse_layout
    from ..spec.facts import spec_facts
    from ..spec.pair import parse_shape
    from ..spec.request import resolve

    shp, dt = parse_shape(shape), to_dtype(dtype)
    aliases = module.aliases if module is not None else None
    facts = {"SPEC": spec_facts(spec, aliases)}
    setting = resolve(facts, warps=warps, threads_per_warp=threads_per_warp, module=module, need_target=False)
    lay = parse_layout(spec, shp, setting.warps, setting.lanes, dt.bytes, aliases)
    if as_json:
        import json

        return json.dumps(lay.to_dict())
    from ..spec.render import attribute, linear_attribute
    from ..view import layout_text

    if spec.strip().startswith("@"):
        attr = linear_attribute(lay) if "register" in lay.in_names else None
    else:
        attr = attribute(parse_encoding(spec, shp, setting.warps, setting.lanes, dt.bytes, aliases))
    return layout_text(lay, spec if attr is None or attr == spec.strip() else f"{spec}\nTTGIR: {attr}")


def aliases_text(module) -> str:
    """Every alias of a TTGIR module, written out, or why llgen does not read it."""
    from ..spec.render import parsed_text

    return "\n".join(
        f"{name} = {parsed_text(a.attr)}" if a.attr is not None else f"{name}: {a.why}" for name, a in module.aliases.items()
    )
