"""`llgen layout` shows the TTGIR attribute a spec resolves to, exactly as Triton 3.6 prints it: every family's
encoding (the random cases of tests/test_layouts_triton.py, and the shared layouts) renders to Triton's own
text, and that text parses back to the same encoding."""

from __future__ import annotations

import random

import pytest

import llgen.layouts as L
from llgen.spec import Context
from llgen.spec.render import attribute, linear_attribute
from llgen.spec.ttgir import AttrParser, encoding_from_attr

triton_cases = pytest.importorskip("test_layouts_triton")  # skipped with it where Triton is not installed


@pytest.mark.parametrize("family", sorted(triton_cases.FAMILIES))
def test_rendering_is_tritons_text(family):
    make, count = triton_cases.FAMILIES[family]
    diffs = []
    for _name, gluon_layout, ours, shape in make(random.Random(f"render-{family}"), count // 4):
        want = triton_cases.ttgir_attr(gluon_layout, shape)
        if attribute(ours) != want:
            diffs.append(f"{attribute(ours)} != {want}")
        ctx = Context(tuple(shape), 4, None, 2)
        assert encoding_from_attr(AttrParser(want).parse_attr_all(), ctx) == ours
    assert not diffs, diffs[:3]


def test_shared_layouts_render_as_triton_prints_them():
    gl = triton_cases.gl
    builder = triton_cases._BUILDER
    cases = [
        (gl.SwizzledSharedLayout(2, 1, 4, [1, 0]), L.SwizzledShared(2, 1, 4, (1, 0))),
        (gl.SwizzledSharedLayout(8, 2, 4, [0, 1], cga_layout=[[1, 0]]), L.SwizzledShared(8, 2, 4, (0, 1), ((1, 0),))),
        (gl.NVMMASharedLayout(128, 16), L.NvmmaShared(128, 16)),
        (gl.NVMMASharedLayout(64, 8, transposed=True, cga_layout=[[0, 1]]), L.NvmmaShared(64, 8, True, 2, ((0, 1),))),
    ]
    for gluon_layout, ours in cases:
        ty = str(builder.get_shared_mem_desc_ty(builder.get_half_ty(), [64, 64], gluon_layout._to_ir(builder), [64, 64]))
        assert attribute(ours) in ty, (attribute(ours), ty)


def test_a_json_layout_renders_as_linear():
    import llgen

    lay = llgen.blocked([1, 4], [8, 4], [2, 1], [1, 0], [32, 16])
    text = linear_attribute(lay)
    assert (
        text
        == "#ttg.linear<{register = [[0, 1], [0, 2], [16, 0]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0]], block = []}>"
    )
    assert llgen.parse_layout(text, [32, 16], 2) == lay
