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
