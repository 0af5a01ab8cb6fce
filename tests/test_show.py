"""`llgen show`: every kind of picture renders, its SVG parses and holds exactly the cells and
labels the layout implies, every text is 7 to 12 points and lies inside the canvas (titles of any
length wrap, large tiles are an overview and a labelled window), PNGs have the promised size and
are not blank, and bad input is one sentence with exit status 2 and no file."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("matplotlib")

from click.testing import CliRunner

import llgen
from llgen import show
from llgen.cli import main
from llgen.plan import plan_conversion
from llgen.spec import Where, parse_layout

L = llgen.LinearLayout
SVG = "{http://www.w3.org/2000/svg}"
A16 = (
    "#ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "
    "warp = [], block = []}>"
)
B16 = (
    "#ttg.linear<{register = [[0, 2], [0, 4], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], "
    "warp = [], block = []}>"
)


def transpose_pair():
    return parse_layout(A16, (16, 32), 1, 32, where=Where(dtype_bytes=4)), parse_layout(
        B16, (16, 32), 1, 32, where=Where(dtype_bytes=4)
    )


def svg_of(fig, tmp_path, name="x.svg") -> ET.Element:
    path = tmp_path / name
    show.save(fig, path)
    return ET.parse(path).getroot()


# Drawings several tests inspect, each drawn and saved once for the module (the `drawn` fixture): name -> its figure.
DRAWINGS = {
    "16x32": lambda: show.layout_figure(transpose_pair()[0], name=A16),  # 16x32 with its spec as the title
    "256x256": lambda: show.layout_figure(parse_layout("blocked", (256, 256), 4), name="blocked"),
    "long-title": lambda: show.layout_figure(parse_layout("mma:wpc=1x1", (16, 8), 1), name=LONG_NAME),  # narrow, long title
    **{
        f"bank-{name}": lambda name=name: show.bank_map_figure(
            swizzle_memory(name)[0], 4, show.WarpAccess(transpose_pair()[1]), name=name
        )
        for name in ("unswizzled", "classic", "optimal")
    },
    "bank-256x256": lambda: large_bank_map(),
    "matrix-rank3": lambda: show.matrix_figure(parse_layout("blocked", (8, 4, 16), 2), name=LONG_NAME),
    "conversion": lambda: show.conversion_figure(plan_conversion(*transpose_pair(), "f32", "sm_90")),
    "bank-region-2x2": lambda: show.bank_map_figure(
        swizzle_memory("optimal")[0], 4, show.WarpAccess(transpose_pair()[1]), region=(0, 2, 0, 2)
    ),
    "endpoint": lambda: show.endpoint_figure(endpoint_plan("store", "mma", "nvmma:64")),
    "endpoint-two-step": lambda: show.endpoint_figure(endpoint_plan("load", "wgmma", "nvmma:0", shape=(64, 64), warps=4)),
    **{
        f"padded-load-{step}": lambda step=step: show.endpoint_figure(
            endpoint_plan("load", COLUMNS32, PADDED32, form="direct"), step=step
        )
        for step in (0, 5, 31)
    },
}


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """name -> the path of DRAWINGS[name] saved as SVG, drawn on first use."""
    folder = tmp_path_factory.mktemp("drawn")
    paths = {}

    def get(name: str):
        if name not in paths:
            show.save(DRAWINGS[name](), folder / f"{name}.svg")
            paths[name] = folder / f"{name}.svg"
        return paths[name]

    return get


def drawing(drawn, name: str) -> ET.Element:
    return ET.parse(drawn(name)).getroot()


def groups(root: ET.Element, prefix: str) -> dict[str, ET.Element]:
    """Elements whose id starts with ``prefix`` (the ids show.py puts on its artists)."""
    return {e.get("id"): e for e in root.iter() if (e.get("id") or "").startswith(prefix)}


def text_of(elem: ET.Element) -> str:
    return "\n".join(t.text or "" for t in elem.iter(f"{SVG}text"))


def cell_count(root: ET.Element) -> int:
    return sum(len(list(g.iter(f"{SVG}path"))) for g in groups(root, "cells").values() if g.get("id") == "cells")


def expected_owner_labels(lay: L) -> dict[tuple[int, int], str]:
    """(row, col) -> T<lane>:R<reg> of the lowest slot, computed by brute force apart from show.py."""
    cols = lay.shape[-1]
    copies = {}
    first = {}
    for x in range(1 << lay.total_in_bits):
        y = lay.apply_flat(x)
        copies[y] = copies.get(y, 0) + 1
        first.setdefault(y, x)
    out = {}
    for y, x in first.items():
        reg = x & ((1 << lay.in_bits("register")) - 1)
        lane = (x >> lay.in_bits("register")) & ((1 << lay.in_bits("lane")) - 1)
        label = f"T{lane}:R{reg}" + (f" +{copies[y] - 1}" if copies[y] > 1 else "")
        out[divmod(y, cols)] = label
    return out


# ---------------------------------------------------------------------- distributed layouts
@pytest.mark.parametrize(
    "spec,shape,warps",
    [
        ("blocked:spt=1x2,tpw=4x8,wpc=1x1,order=1x0", (16, 32), 1),
        ("mma:wpc=1x1", (16, 8), 1),
        ("blocked:spt=1x1,tpw=4x8,wpc=1x1,order=1x0", (2, 8), 1),  # broadcast: lanes 16..31 replicate 0..15
        ("mfma:32", (32, 32), 1),  # wave64
    ],
)
def test_grid_has_one_cell_and_one_owner_label_per_element(tmp_path, spec, shape, warps):
    lay = parse_layout(spec, shape, warps)
    root = svg_of(show.layout_figure(lay, name=spec), tmp_path)
    labels = groups(root, "lbl-")
    assert cell_count(root) == len(labels) == shape[0] * shape[1]
    want = expected_owner_labels(lay)
    got = {tuple(int(v) for v in k.split("-")[1:]): text_of(e) for k, e in labels.items()}
    assert got == want


def test_broadcast_cells_say_how_many_replicas(tmp_path):
    lay = parse_layout("blocked:spt=1x1,tpw=4x8,wpc=1x1,order=1x0", (2, 8), 1)
    labels = groups(svg_of(show.layout_figure(lay), tmp_path), "lbl-")
    assert labels and all(text_of(e).endswith(" +1") for e in labels.values())


def test_wave64_lanes_reach_63(tmp_path):
    lay = parse_layout("mfma:32", (32, 32), 1)
    assert lay.in_size("lane") == 64
    texts = [text_of(e) for e in groups(svg_of(show.layout_figure(lay), tmp_path), "lbl-").values()]
    lanes = {int(re.match(r"T(\d+):", t).group(1)) for t in texts}
    assert lanes == set(range(64))


def test_warps_are_named_on_a_second_line(tmp_path):
    lay = parse_layout("blocked:spt=1x4,tpw=8x4,wpc=2x1,order=1x0", (32, 16), 2)
    texts = [text_of(e) for e in groups(svg_of(show.layout_figure(lay), tmp_path), "lbl-").values()]
    assert len(texts) == 512 and {t.split("\n")[1] for t in texts} == {"W0", "W1"}


def test_a_large_tile_is_an_overview_and_a_labelled_window(drawn):
    lay = parse_layout("blocked", (256, 256), 4)
    root = drawing(drawn, "256x256")
    assert groups(root, "cells-image") and groups(root, "window")  # the whole tile, the window boxed on it
    labels = groups(root, "lbl-")
    want = {k: v + "\nW" for k, v in expected_owner_labels(lay).items() if k[0] < 16 and k[1] < 32}
    got = {tuple(int(v) for v in k.split("-")[1:]): text_of(e).rsplit("\n", 1)[0] + "\nW" for k, e in labels.items()}
    assert got == want and cell_count(root) == 16 * 32
    assert "labelled: rows 0:16, columns 0:32" in title_of(root)


def test_region_draws_part_of_a_large_tensor(tmp_path):
    lay = parse_layout("blocked", (256, 256), 4)
    root = svg_of(show.layout_figure(lay, region=(8, 16, 32, 64)), tmp_path)
    labels = groups(root, "lbl-")
    assert cell_count(root) == len(labels) == 8 * 32
    assert {tuple(int(v) for v in k.split("-")[1:]) for k in labels} == {(r, c) for r in range(8, 16) for c in range(32, 64)}


# ---------------------------------------------------------------------- readable text
def title_of(root: ET.Element) -> str:
    return " ".join(t.text or "" for t in groups(root, "title")["title"].iter(f"{SVG}text"))


@functools.cache
def outline_width(text: str, size: float, family: str) -> float:
    """The width in points of ``text``'s glyph outlines at ``size``, as matplotlib's ``TextPath(...).get_extents()``
    measures it, apart from show.py's estimates: the same glyphs at the same places (matplotlib's own layout, kerning
    included), each glyph's outline extents computed once (a string is the union of its glyphs' boxes)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.path import Path
    from matplotlib.textpath import text_to_path

    font = text_to_path._get_font(FontProperties(family=family))  # what TextPath lays the text out with
    placed, new, _ = text_to_path.get_glyphs_with_font(font, text, glyph_map=_GLYPH_PATHS, return_new_glyphs_only=True)
    for glyph, (verts, codes) in new.items():
        box = Path(verts, codes).get_extents()
        _GLYPH_SPANS[glyph] = (box.x0, box.x1) if len(verts) else None
    _GLYPH_PATHS.update(new)
    spans = [(x + _GLYPH_SPANS[g][0], x + _GLYPH_SPANS[g][1]) for g, x, _y, _scale in placed if _GLYPH_SPANS[g]]
    lo = min((a for a, _ in spans), default=float("inf"))  # no outline at all: TextPath's empty box, -inf wide
    hi = max((b for _, b in spans), default=float("-inf"))
    return (hi - lo) * size / text_to_path.FONT_SCALE


_GLYPH_PATHS: dict = {}  # glyph -> (vertices, codes) of its outline, in matplotlib's text_to_path units
_GLYPH_SPANS: dict = {}  # glyph -> (left, right) of its outline there, None for a glyph without one (a space)


def texts(root: ET.Element) -> list[tuple[float, float, float, float, float, bool, str]]:
    """(font size, left, right, top, bottom, rotated, text) of every text of an SVG, in its points: the width
    measured with matplotlib's own font outlines (`outline_width`, checked against ``TextPath`` on the longest
    text), apart from show.py's estimates."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    out = []
    for t in root.iter(f"{SVG}text"):
        style = dict(kv.split(": ", 1) for kv in t.get("style").split("; "))
        size = float(style["font-size"].removesuffix("px"))
        family = style["font-family"].split(",")[0].strip("'")
        width = outline_width(t.text or "", size, family)
        transform = t.get("transform", "")
        if t.get("x") is not None:
            x, y, rotated = float(t.get("x")), float(t.get("y")), "rotate(-0 " not in transform
        else:  # a line of a multi-line text: translate(x y), then maybe rotate(...)
            x, y = (float(v) for v in re.match(r"translate\(([-\d.e]+) ([-\d.e]+)\)", transform).groups())
            rotated = "rotate(" in transform
        left = {"start": x, "middle": x - width / 2, "end": x - width}[style.get("text-anchor", "start")]
        out.append((size, left, left + width, y - size, y, rotated, t.text or "", family))
    if out:
        size, left, right, *_, text, family = max(out, key=lambda t: len(t[6]))
        whole = TextPath((0, 0), text, size=size, prop=FontProperties(family=family)).get_extents().width
        assert abs(whole - (right - left)) < 1e-6, (text, whole, right - left)
    return [t[:7] for t in out]


def assert_readable(root: ET.Element) -> None:
    """Every text 7 to 12 points, and every unrotated one inside the canvas."""
    width, height = (float(v) for v in root.get("viewBox").split()[2:])
    found = texts(root)
    assert found
    for size, left, right, top, bottom, rotated, text in found:
        assert 7 <= size <= 12, (size, text)
        if not rotated:
            assert 0 <= left and right <= width and 0 <= top and bottom <= height, (text, left, right, width, top, height)


LONG_NAME = A16 + " over " + B16 + " and " + A16


@pytest.mark.parametrize(
    "name",
    [
        "16x32",
        "256x256",
        "long-title",
        "bank-unswizzled",
        "bank-256x256",
        "matrix-rank3",
        "conversion",
        "bank-region-2x2",
        "endpoint",
        "endpoint-two-step",
    ],
)
def test_text_is_readable_and_inside_the_canvas(drawn, name):
    assert_readable(drawing(drawn, name))


def test_a_long_title_wraps_whole(drawn):
    root = drawing(drawn, "long-title")
    lines = [t.text for t in groups(root, "title")["title"].iter(f"{SVG}text")]
    assert len(lines) > 2 and " ".join(lines) == f"{LONG_NAME}: 16x8 (register 4, lane 32)"


def large_bank_layouts():
    """A 256x256 f16 swizzled layout (1024 segments) and the mma layout whose register 0 reads it."""
    return parse_layout("swizzled:vec=8,per_phase=1,max_phase=8", (256, 256), 4), parse_layout("mma", (256, 256), 4)


def large_bank_map():
    mem, acc = large_bank_layouts()
    return show.bank_map_figure(mem, 2, show.WarpAccess(acc), name="swizzled")


def test_a_large_bank_map_labels_the_segments_the_access_touches(drawn):
    mem, acc = large_bank_layouts()
    root = drawing(drawn, "bank-256x256")
    step = show.access_step(mem, acc, 0, 2)
    touched = sorted({o * 2 // 128 for o in step.offsets})
    labels = groups(root, "lbl-")
    assert sorted({int(k.split("-")[1]) for k in labels}) == touched
    lanes = sorted(int(text_of(e).split("\nT")[1]) for e in labels.values() if "\nT" in text_of(e))
    assert lanes == list(range(32))  # every lane of the access highlighted, each once
    assert groups(root, "cells-image") and len(groups(root, "hits-")) == 32
    assert f"labelled: the {len(touched)} segments the access touches" in title_of(root)


# ---------------------------------------------------------------------- the matrix
@pytest.mark.parametrize(
    "spec,shape", [("mma:wpc=1x1", (16, 8)), ("swizzled:vec=2,per_phase=1,max_phase=4", (4, 8)), ("mfma:32", (32, 32))]
)
def test_matrix_has_one_cell_per_set_bit_and_labelled_bits(tmp_path, spec, shape):
    lay = parse_layout(spec, shape, 1)
    root = svg_of(show.matrix_figure(lay), tmp_path)
    ones = groups(root, "ones")["ones"]
    assert len(list(ones.iter(f"{SVG}path"))) == sum(c.bit_count() for c in lay.cols)
    from llgen.core.view import hardware_bit_names, logical_bit_names

    assert set(groups(root, "row-")) == {f"row-{n}" for n in logical_bit_names(lay)}
    assert set(groups(root, "col-")) == {f"col-{n}" for n in hardware_bit_names(lay)}


def test_transpose_matrix_rows_are_n_then_m(tmp_path):
    a, _ = transpose_pair()
    root = svg_of(show.matrix_figure(a), tmp_path)
    assert {k[4:] for k in groups(root, "row-")} == {"n0", "n1", "n2", "n3", "n4", "m0", "m1", "m2", "m3"}


# ---------------------------------------------------------------------- bank maps
def swizzle_memory(name: str):
    a, b = transpose_pair()
    p = plan_conversion(a, b, "f32", "sm_90", path="shared", swizzle=name, matrix=False, one_sided=False)
    return show.memory_from_swizzle(p.detail, a.outs), a, b


@pytest.mark.parametrize(
    "name,hits,wavefronts",
    [
        ("unswizzled", {0: 16, 1: 16}, 16),
        ("classic", {b: 2 for b in range(16)}, 2),
        ("optimal", {b: 1 for b in range(32)}, 1),
    ],
)
def test_transpose_bank_maps_show_16_2_1(drawn, name, hits, wavefronts):
    mem, a, b = swizzle_memory(name)
    for step in range(b.in_size("register")):
        acc = show.access_step(mem, b, step, 4)
        assert acc.wavefronts == wavefronts and sorted(acc.banks.values()) == sorted(hits.values())
    root = drawing(drawn, f"bank-{name}")
    labels = groups(root, "lbl-")
    assert cell_count(root) == len(labels) == 512
    # every cell names its logical coordinate, which sits at the offset the memory layout gives it
    for key, e in labels.items():
        seg, k = (int(v) for v in key.split("-")[1:])
        m, n = (int(v) for v in text_of(e).split("\n")[0].split(","))
        assert mem.apply_flat(seg * 32 + k) == m * 32 + n
    counts = {int(k.split("-")[1]): int(text_of(e)) for k, e in groups(root, "hitcount-").items()}
    assert counts == {bk: hits.get(bk, 0) for bk in range(32)}
    assert len(groups(root, "hits-")) == 32
    assert sum("\nT" in text_of(e) for e in labels.values()) == 32  # the 32 lanes of the access
    # the store (A, rows) is conflict-free under all three
    assert show.access_step(mem, a, 0, 4).wavefronts == 1


def test_conflicting_banks_are_red(drawn):
    root = drawing(drawn, "bank-classic")
    styles = {k: ET.tostring(e).decode() for k, e in groups(root, "hits-").items()}
    assert all("#d62728" in styles[f"hits-{bk}"] for bk in range(16))


def test_memory_layout_spec_and_sub_word_elements(tmp_path):
    lay = parse_layout("swizzled:vec=2,per_phase=1,max_phase=4", (4, 8), 4)
    root = svg_of(show.bank_map_figure(lay, 2), tmp_path)
    assert cell_count(root) == len(groups(root, "lbl-")) == 32  # 32 f16 elements, two per bank word
    lay8 = parse_layout("swizzled:vec=1,per_phase=1,max_phase=1", (4, 8), 4, None, where=Where(dtype_bytes=8))
    root = svg_of(show.bank_map_figure(lay8, 8), tmp_path, "y.svg")
    assert cell_count(root) == len(groups(root, "lbl-")) == 32  # f64: each spans two banks


def test_bank_map_of_a_distributed_layout_is_refused():
    a, _ = transpose_pair()
    with pytest.raises(llgen.LlgenError, match="memory layout"):
        show.bank_map_figure(a, 4)


# ---------------------------------------------------------------------- conversions
def test_shared_conversion_shows_both_grids_and_the_bank_map(drawn):
    root = drawing(drawn, "conversion")
    for side in ("src-", "dst-", "smem-"):
        assert len(groups(root, side + "lbl-")) == 512
        assert len(list(groups(root, side + "cells")[side + "cells"].iter(f"{SVG}path"))) == 512
    assert "path: shared" in text_of(groups(root, "path")["path"])
    assert len(groups(root, "smem-hits-")) == 32


def test_shuffle_conversion_lists_its_rounds(tmp_path):
    a = L.from_bases({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": []}, {"dim0": 8, "dim1": 8})
    b = L.from_bases({"register": [[4, 0]], "lane": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], "warp": []}, {"dim0": 8, "dim1": 8})
    p = plan_conversion(a, b, "f32", "sm_90")
    assert p.path == "shuffle"
    root = svg_of(show.conversion_figure(p), tmp_path)
    assert set(groups(root, "round-")) == {f"round-{i}" for i in range(p.detail.num_rounds)}
    assert len(groups(root, "src-lbl-")) == len(groups(root, "dst-lbl-")) == 64


# ---------------------------------------------------------------------- shared-memory endpoints
PADDED32 = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [32, 32]}>"
COLUMNS32 = "blocked:spt=4x1,tpw=8x4,wpc=1x1,order=0x1"


def endpoint_plan(direction: str, dist: str, shared: str, dtype: str = "f16", shape=(32, 32), warps: int = 1, form=None):
    from llgen.plan.endpoint import plan_load, plan_store
    from llgen.spec import parse_encoding

    d = parse_layout(dist, shape, warps, 32)
    s = parse_encoding(shared, shape, warps, 32)
    return plan_store(d, s, dtype, "sm_90", form) if direction == "store" else plan_load(s, d, dtype, "sm_90", form)


def phase_wavefronts(root: ET.Element) -> list[int]:
    return [int(re.search(r"-> (\d+) wavefront", text_of(e))[1]) for e in groups(root, "phase-").values()]


def test_endpoint_store_shows_d_the_stmatrix_tile_and_its_phases(drawn):
    """An mma accumulator into nvmma:64 by stmatrix.x4: D's grid, S's bank map with instruction 0's four 8x8 matrices
    lit (32 rows of 16 bytes, 8 lanes a phase, one wavefront each), and the plan's own counts in words."""
    p = endpoint_plan("store", "mma", "nvmma:64")
    assert p.side.op == "stmatrix" and p.side.matrices == 4
    root = drawing(drawn, "endpoint")
    assert len(groups(root, "dist-lbl-")) == len(groups(root, "smem-lbl-")) == 1024
    lit = [e for e in groups(root, "smem-lbl-").values() if re.search(r"\nT\d+$", text_of(e))]
    assert len(lit) == 4 * 8 * 8  # 4 matrices x 8 rows x 8 elements
    assert "stmatrix.x4" in text_of(groups(root, "instruction")["instruction"])
    assert text_of(groups(root, "wavefronts")["wavefronts"]) == (
        f"wavefronts: {p.wavefronts_per_access} per access, {p.wavefronts} for the tile; floor {p.floor} (at the floor)"
    )
    assert [text_of(e).split(",")[0].strip() for e in groups(root, "phase-").values()] == [
        f"phase {m}: lanes {8 * m}-{8 * m + 7}" for m in range(4)
    ]
    assert phase_wavefronts(root) == [1, 1, 1, 1]
    assert {text_of(e) for e in groups(root, "smem-hitcount-").values()} == {"4"}  # 32 rows x 4 banks over 32 banks


@pytest.mark.parametrize("step", [0, 5, 31])
def test_endpoint_phases_count_what_the_planner_counts(drawn, step):
    """A transposing load from a padded S: every instruction's phases add up to the planner's brute-force count over
    the padded addresses, and the map draws the buffer with its padding."""
    p = endpoint_plan("load", COLUMNS32, PADDED32, form="direct")  # one element a lane, every access transposing
    root = drawing(drawn, f"padded-load-{step}")
    assert sum(phase_wavefronts(root)) == p.instr_wavefronts[step]
    labels = [text_of(e) for e in groups(root, "smem-lbl-").values()]
    assert "pad" in labels and sum(1 for t in labels if re.search(r"\nT\d+$", t)) == 32  # one element a lane


def test_endpoint_two_step_draws_the_staging_layout(drawn):
    p = endpoint_plan("load", "wgmma", "nvmma:0", shape=(64, 64), warps=4)
    assert p.staging is not None
    root = drawing(drawn, "endpoint-two-step")
    assert groups(root, "staging-cells") and groups(root, "dist-cells")
    assert f"by {p.convert.path}" in text_of(groups(root, "staging")["staging"])


def test_endpoint_svg_is_deterministic(tmp_path, drawn):
    """A second plan and drawing of the same endpoint, made afresh, is the module's drawing byte for byte."""
    show.save(show.endpoint_figure(endpoint_plan("load", COLUMNS32, PADDED32, form="direct"), step=5), tmp_path / "2.svg")
    assert drawn("padded-load-5").read_bytes() == (tmp_path / "2.svg").read_bytes()


# ---------------------------------------------------------------------- PNG, determinism
@pytest.mark.parametrize(
    "make",
    [
        lambda: show.layout_figure(parse_layout("mfma:32", (32, 32), 1)),
        lambda: show.bank_map_figure(swizzle_memory("optimal")[0], 4, show.WarpAccess(swizzle_memory("optimal")[2])),
        lambda: show.matrix_figure(transpose_pair()[0]),
        lambda: show.layout_figure(parse_layout("blocked", (128, 128), 4)),
    ],
)
def test_png_has_the_promised_size_and_is_not_blank(tmp_path, make):
    from matplotlib.image import imread

    fig = make()
    path = tmp_path / "x.png"
    show.save(fig, path)
    img = imread(path)
    assert (img.shape[1], img.shape[0]) == show.figure_size_px(fig)
    rgb = img[..., :3].reshape(-1, 3)
    assert (rgb < 0.95).any(axis=1).mean() > 0.05
    assert len({tuple(x) for x in (rgb * 255).astype(int)[::7].tolist()}) > 10


def test_svg_is_deterministic(tmp_path, drawn):
    """The same bank map drawn again is the module's drawing of it byte for byte."""
    mem, _, b = swizzle_memory("optimal")
    show.save(show.bank_map_figure(mem, 4, show.WarpAccess(b), name="optimal"), tmp_path / "2.svg")
    assert drawn("bank-optimal").read_bytes() == (tmp_path / "2.svg").read_bytes()


# ---------------------------------------------------------------------- the command
def invoke(*args):
    return CliRunner().invoke(main, ["show", *args])


@pytest.mark.parametrize(
    "args",
    [
        ["blocked:spt=1x1,tpw=4x8,wpc=1x1,order=1x0", "--shape", "2x8", "--warps", "1"],
        ["mfma:32", "--shape", "32x32", "--warps", "1"],
        ["mfma:32", "--shape", "32x32", "--warps", "1", "--matrix"],
        ["swizzled:vec=2,per_phase=1,max_phase=4", "--shape", "4x8"],
        ["--src", A16, "--dst", B16, "--shape", "16x32", "--dtype", "f32", "--warps", "1"],
        ["--src", A16, "--dst", B16, "--shape", "16x32", "--dtype", "f32", "--warps", "1", "--matrix"],
        [
            "--src",
            A16,
            "--dst",
            B16,
            "--shape",
            "16x32",
            "--dtype",
            "f32",
            "--warps",
            "1",
            "--swizzle",
            "classic",
            "--access",
            "dst",
            "--step",
            "3",
        ],
        ["--src", A16, "--dst", B16, "--shape", "16x32", "--dtype", "f32", "--warps", "1", "--swizzle", "optimal", "--matrix"],
        ["blocked", "--shape", "256x256", "--region", "0:16,0:32"],
        ["--src", "mma", "--dst", "nvmma:64", "--shape", "32x32", "--warps", "1"],
        ["--src", PADDED32, "--dst", COLUMNS32, "--shape", "32x32", "--warps", "1", "--step", "7"],
        ["--src", "mma", "--dst", "nvmma:64", "--shape", "32x32", "--warps", "1", "--matrix"],
    ],
)
@pytest.mark.parametrize("ext", ["svg", "png"])
def test_command_draws_every_kind(tmp_path, args, ext):
    out = tmp_path / f"pic.{ext}"
    res = invoke(*args, "-o", str(out))
    assert res.exit_code == 0, res.output
    assert out.stat().st_size > 1000
    if ext == "svg":
        ET.parse(out)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary left behind


@pytest.mark.parametrize(
    "args,words",
    [
        (["blocked", "--shape", "2048x1024"], "--region"),
        (["blocked", "--shape", "16x16", "--warps", "1"], ".svg or .png"),
        (["blocked", "--shape", "32x32", "--access", "blocked"], "distributed layout"),
        (["--src", A16, "--dst", B16, "--shape", "16x32", "--warps", "1", "--dtype", "f32", "--access", "dst"], "--swizzle"),
        (["blocked", "--src", "blocked", "--dst", "mma"], "either"),
        (["blocked", "--region", "0:9999,0:8"], "outside"),
        (["blocked", "--region", "rows"], "r0:r1,c0:c1"),
        (
            [
                "swizzled:vec=2,per_phase=1,max_phase=4",
                "--shape",
                "4x8",
                "--access",
                "blocked:spt=1x1,tpw=4x8,wpc=1x1",
                "--warps",
                "1",
                "--step",
                "9",
            ],
            "--step",
        ),
        (["--src", "mma", "--dst", "nvmma:64", "--shape", "32x32", "--warps", "1", "--step", "4"], "instruction(s)"),
        (["--src", "mma", "--dst", "nvmma:64", "--shape", "32x32", "--warps", "1", "--swizzle", "optimal"], "endpoint"),
        (["--src", "nvmma:64", "--dst", "mma", "--shape", "32x32", "--warps", "1", "--access", "mma"], "endpoint"),
        (["--src", "nvmma:128", "--dst", "mma", "--shape", "32x32", "--warps", "1"], "128-byte swizzle"),
    ],
)
def test_bad_input_is_one_sentence_exit_2_and_no_file(tmp_path, args, words):
    ext = "jpg" if words == ".svg or .png" else "svg"
    out = tmp_path / f"pic.{ext}"
    res = invoke(*args, "-o", str(out))
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: ") and res.output.count("\n") == 1 and words in res.output
    assert list(tmp_path.iterdir()) == []


def test_the_cli_does_not_import_matplotlib():
    r = subprocess.run(
        [sys.executable, "-c", "import sys, llgen.cli; print('matplotlib' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout.strip() == "False"


@pytest.mark.parametrize("tgt,lanes", [("sm_90", 32), ("gfx942", 64)])
@pytest.mark.parametrize("dtype", ["f32", "f64", "i8"])
def test_bank_map_counts_wavefronts_as_the_planner_does(tgt, lanes, dtype):
    """One hardware model: the wavefronts `llgen show --access` reports for one register step of a scalar access
    are the planner's prediction for that load instruction (phases and banks from llgen.core.target)."""
    from llgen import plan_conversion
    from llgen.core.target import target
    from llgen.layouts import blocked

    a = blocked([1, 4], [lanes // 8, 8], [1, 1], [1, 0], (64, 32))
    b = blocked([4, 1], [8, lanes // 8], [1, 1], [0, 1], (64, 32))
    p = plan_conversion(a, b, dtype, tgt, path="shared", swizzle="unswizzled", scalar=True)
    mem = show.memory_from_swizzle(p.detail, a.outs)
    for ins in p.detail.load.instrs:
        (reg,) = ins.regs
        assert show.access_step(mem, b, reg, p.dtype.bytes, target(tgt)).wavefronts == p.detail.load.wavefronts_per_instr


# ---------------------------------------------------------------------- shape ops
def test_show_op_draws_the_input_beside_each_ops_result(tmp_path):
    """`llgen show SPEC --op trans=1,0` draws the 16x32 input and its 32x16 transpose side by side, every cell of
    both labelled; --op with a conversion is one error sentence."""
    out = tmp_path / "ops.svg"
    r = invoke("blocked:spt=1x4,tpw=4x8,wpc=1x1,order=1x0", "--shape", "16x32", "--op", "trans=1,0", "-o", str(out))
    assert r.exit_code == 0, r.output
    root = ET.parse(out).getroot()
    assert len(groups(root, "step0-lbl-")) == len(groups(root, "step1-lbl-")) == 512
    titles = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "input: 16x32" in titles and "trans=1,0: 32x16" in titles
    r = invoke("--src", "blocked", "--dst", "mma", "--op", "trans=1,0", "-o", str(out))
    assert r.exit_code == 2 and "give SPEC, not --src/--dst" in r.output
