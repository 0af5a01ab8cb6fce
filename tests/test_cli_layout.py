"""`llgen layout`: exact JSON, a readable view, one-line errors with exit status 2, and a cold
start well under 0.3 s."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

import llgen
from llgen.cli import main
from llgen.spec import Where


def invoke(*args):
    return CliRunner().invoke(main, ["layout", *args])


def test_json_is_exactly_the_to_dict_form():
    res = invoke("mma", "--shape", "128x128", "--json")
    assert res.exit_code == 0
    assert res.output == json.dumps(llgen.mma(2, [2, 2], [16, 8], [128, 128]).to_dict()) + "\n"


def test_attribute_spec_with_json():
    spec = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    res = invoke(spec, "--shape", "128x64", "--json")
    assert json.loads(res.output) == llgen.blocked([1, 8], [4, 8], [4, 1], [1, 0], [128, 64]).to_dict()


def test_view_shows_grid_and_labelled_matrix():
    res = invoke("mma:wpc=1x1", "--shape", "16x8", "--warps", "1")
    assert res.exit_code == 0
    assert "T0:0" in res.output and "T4:0" in res.output  # lane 4 holds row 1
    assert "m0 |" in res.output and " r0 " in res.output and " l4" in res.output


def test_shared_view_shows_offsets():
    res = invoke("swizzled:vec=2,per_phase=1,max_phase=4", "--shape", "4x8")
    assert res.exit_code == 0 and "offset" in res.output and " o0 " in res.output


def test_large_tensor_grid_is_elided():
    res = invoke("blocked", "--shape", "256x256")
    assert res.exit_code == 0 and "(showing 64 of 256 rows and 32 of 256 columns)" in res.output


def test_mfma_defaults_to_wave64():
    res = invoke("mfma:32", "--json")
    assert res.exit_code == 0 and len(json.loads(res.output)["bases"]["lane"]) == 6


@pytest.mark.parametrize(
    "args",
    [
        ["blocked", "--shape", "128x96"],  # not a power of two
        ["blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", "--shape", "128x128x2"],  # rank mismatch
        ["blocked:spt=1x8,tpw=4x4,wpc=4x1,order=1x0"],  # lanes != warp size
        ["blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", "--warps", "8"],  # warp count mismatch
        ["dot:op=0,k_width=3"],  # k_width invalid
        ["dot:op=0,k_width=2,parent=(wmma:v=1)"],  # k_width invalid for the parent
        ["nonsense"],  # unknown kind
        ["#ttg.blocked<{sizePerThread = [1, 8] threadsPerWarp = [4, 8]}>"],  # malformed attribute
        ["blocked", "--dtype", "f13"],  # unknown dtype
        ["blocked", "--warps", "3"],  # warps not a power of two
    ],
)
def test_bad_input_is_one_line_and_exit_2(args):
    res = invoke(*args)
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "Traceback" not in res.output


def test_bad_json_file_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"bases": {"register": [[0, 3]]}, "out_dims": {"dim0": 4, "dim1": 2}}')
    res = invoke(f"@{path}", "--shape", "4x2")
    assert res.exit_code == 2 and res.output.startswith("error: ") and len(res.output.strip().splitlines()) == 1


def test_malformed_attribute_names_the_position():
    res = invoke("#ttg.blocked<{sizePerThread = [1, 8] threadsPerWarp = [4, 8]}>")
    assert "character 38" in res.output


def test_cli_path_does_not_import_numpy_or_jinja2():
    code = (
        "import sys; sys.argv = ['llgen', 'layout', 'blocked', '--json']; from llgen.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('numpy' in sys.modules, 'jinja2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "False False"


# ---------------------------------------------------------------------- the bases as #ttg.linear
def linear_line(output: str) -> str:
    (line,) = [x for x in output.splitlines() if x.startswith("linear: ")]
    return line[len("linear: ") :]


def test_view_prints_the_bases_as_ttg_linear_that_read_back():
    res = invoke("mma", "--shape", "32x16")
    assert res.exit_code == 0
    text = linear_line(res.output)
    assert text == (
        "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
        "warp = [[0, 8], [16, 0]], block = []}>"
    )
    back = invoke(text, "--shape", "32x16", "--json")
    assert back.exit_code == 0 and back.output == invoke("mma", "--shape", "32x16", "--json").output


def test_a_linear_spec_is_not_printed_twice():
    text = linear_line(invoke("mma", "--shape", "32x16").output)
    out = invoke(text, "--shape", "32x16").output
    assert out.splitlines()[0] == text and "linear: " not in out and "TTGIR: " not in out


def layouts_of_the_suites_and_random_pairs():
    from llgen.cases.suite import suite
    from llgen.randlayout import random_pairs

    for name in ("core", "regressions", "wide", "warplocal"):
        for case in suite(name):
            yield f"{name}/{case.id}", case.src
            yield f"{name}/{case.id}", case.dst
    cga = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[1, 0]]}>"
    yield "two CTAs", llgen.parse_layout(cga, (64, 32), 4)  # block bases
    for target in ("sm_90", "gfx942"):
        for pair in random_pairs(150, 7, target):
            yield pair.label, pair.a
            yield pair.label, pair.b


def test_every_layout_prints_as_ttg_linear_and_reads_back():
    """The suites' layouts and random real layouts (every family, replicas, wave64, ranks 1-3): the printed text
    parses back to the same layout over the same shape."""
    from llgen.cli.commands.layout import linear_text

    bad = []
    for label, lay in layouts_of_the_suites_and_random_pairs():
        text = linear_text(lay)
        back = llgen.parse_layout(text, lay.shape, lay.in_size("warp"), lay.in_size("lane"))
        if back != lay:
            bad.append(f"{label}: {text}")
    assert not bad, bad[:3]


def test_ttg_linear_text_is_tritons_own():
    """Triton 3.6 prints the same bases as exactly this text (a LinearEncodingAttr in a tensor type)."""
    gl = pytest.importorskip("triton.experimental.gluon.language")
    libtriton = pytest.importorskip("triton._C.libtriton")
    from llgen.cli.commands.layout import linear_text

    ctx = libtriton.ir.context()
    libtriton.ir.load_dialects(ctx)
    builder = libtriton.gluon_ir.GluonOpBuilder(ctx)
    for _label, lay in layouts_of_the_suites_and_random_pairs():
        b = lay.to_dict()["bases"]
        gluon = gl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], b.get("block", []), list(lay.shape))
        ty = str(builder.get_distributed_ty(builder.get_float_ty(), list(lay.shape), gluon._to_ir(builder)))
        assert ty[ty.index("#") : -1] == linear_text(lay)


def test_a_json_layout_prints_its_bases_once(tmp_path):
    path = tmp_path / "lay.json"
    path.write_text(json.dumps(llgen.mma(2, [2, 2], [16, 8], [32, 16]).to_dict()))
    res = invoke(f"@{path}", "--shape", "32x16")
    assert res.exit_code == 0 and linear_line(res.output).startswith("#ttg.linear<{register = [[0, 1], [8, 0]]")
    assert "TTGIR: " not in res.output


# ---------------------------------------------------------------------- --hw: each thread's registers
def hw_rows(output: str) -> dict[tuple[int, ...], list[tuple[int, tuple[int, ...], bool]]]:
    """(warp, lane) -> [(register, element, replica mark)] read back from the hardware view."""
    import re

    rows, key = {}, None
    lines = output.split("\n\n")[1].splitlines()
    assert lines[0].startswith("hardware view: ")
    for line in lines[1:]:
        head = re.match(r"w(\d+) t(\d+):", line)
        if head:
            key = (int(head.group(1)), int(head.group(2)))
            rows[key] = []
        else:
            assert line.startswith(" ")
        for r, coord, star in re.findall(r"r(\d+) \(([\d,]+)\)(\*?)", line):
            rows[key].append((int(r), tuple(int(c) for c in coord.split(",")), star == "*"))
    return rows


@pytest.mark.parametrize(
    "spec,shape,warps",
    [
        ("mma", "32x16", 4),
        ("blocked:spt=1x1,tpw=4x8,wpc=1x1,order=1x0", "2x8", 1),  # lanes 16-31 replicate 0-15
        ("blocked:spt=2x8,tpw=4x8,wpc=2x1,order=1x0", "64x64", 2),  # 32 registers: continuation lines
        ("slice:dim=1,parent=(mma)", "64", 4),  # rank 1, warps broadcast
        ("mfma:32", "32x32", 1),  # wave64
    ],
)
def test_hw_lists_every_threads_registers_in_order_and_marks_replicas(spec, shape, warps):
    from llgen.core.layout import unflatten

    res = invoke(spec, "--shape", shape, "--warps", str(warps), "--hw")
    assert res.exit_code == 0, res.output
    lay = llgen.parse_layout(spec, [int(s) for s in shape.split("x")], warps)
    rows = hw_rows(res.output)
    assert sorted(rows) == [(w, t) for w in range(lay.in_size("warp")) for t in range(lay.in_size("lane"))]
    first = set()
    for (w, t), regs in sorted(rows.items()):
        assert [r for r, _, _ in regs] == list(range(lay.in_size("register")))
        for r, elem, star in regs:
            x = r | t << lay.in_offset("lane") | w << lay.in_offset("warp")
            y = lay.apply_flat(x)
            assert elem == unflatten(y, lay.outs)
            assert star == (y in first)  # in order warp, lane, register: the first holder is unmarked
            first.add(y)
    assert len(first) == 1 << lay.total_out_bits
    assert ("* marks a replica" in res.output) == (lay.total_in_bits > lay.total_out_bits)


def test_hw_of_a_shared_layout_or_with_json_is_an_error():
    for args in (["swizzled", "--shape", "8x8", "--hw"], ["mma", "--hw", "--json"]):
        res = invoke(*args)
        assert res.exit_code == 2 and res.output.startswith("error: ") and len(res.output.strip().splitlines()) == 1


# ---------------------------------------------------------------------- --ttgir FILE: every tensor type's layout
TTGIR_FILES = sorted((__import__("pathlib").Path(__file__).parent / "data" / "ttgir").iterdir())


@pytest.mark.parametrize("path", TTGIR_FILES, ids=lambda p: p.name)
def test_ttgir_file_lists_aliases_and_every_tensor_layout_as_linear(path):
    import re

    from llgen.cli.commands.layout import aliases_text
    from llgen.spec.module import read_ttgir

    res = invoke("--ttgir", str(path))
    assert res.exit_code == 0, res.output
    modules = read_ttgir(str(path))
    module = modules[-1]
    assert aliases_text(module) in res.output  # what it printed before, kept
    lines = path.read_text().splitlines()
    out = res.output.split(f"(module at line {module.line}, ")[1].splitlines()
    entries = [(head, body.strip()) for head, body in zip(out, out[1:], strict=False) if re.match(r"\S.* \(line \d+", head)]
    assert entries
    seen = set()
    for head, body in entries:
        enc, dims, first = re.fullmatch(r"(.+) ([0-9x]+) \(line (\d+)(?:, and \d+ more lines?)?\)", head).groups()
        shape = tuple(int(d) for d in dims.split("x"))
        assert (enc, shape) not in seen
        seen.add((enc, shape))
        assert f"tensor<{dims}x" in lines[int(first) - 1] and enc in lines[int(first) - 1]
        want = llgen.parse_layout(
            enc, shape, module.num_warps, module.threads_per_warp, where=Where(dtype_bytes=4, aliases=module.aliases)
        )
        assert llgen.parse_layout(body, shape, module.num_warps, module.threads_per_warp) == want
    # every tensor type of an alias in a single-module file is among them
    if len(modules) == 1:
        found = {
            (e, tuple(int(d) for d in s[:-1].split("x")))
            for s, e in re.findall(r"tensor<((?:\d+x)+)[^,<>]*, (#\w+)>", path.read_text())
        }
        assert found <= seen


def test_ttgir_file_without_spec_refuses_per_layout_options():
    res = invoke("--ttgir", str(TTGIR_FILES[0]), "--shape", "16x16")
    assert res.exit_code == 2 and "--shape needs a layout SPEC" in res.output
