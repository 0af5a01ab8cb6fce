"""Every bad input is one sentence ``error: ...`` on stderr and exit status 2, with no traceback, no hang and no
file left behind (the fuzz's classes of bad input, one case each), click's own usage errors included; and the friendly
parts of the command line: defaults taken from what the user said, choices, aliases of options, --version,
``python -m llgen``, ``-o DIR/`` and --force."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from helpers import invoke

from llgen import cli

BLOCKED_8 = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>"


def assert_one_line_error(res, *words):
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0].endswith("."), res.stderr
    assert "Traceback" not in res.output and res.stdout == ""
    for w in words:
        assert w in lines[0], (w, lines[0])


# the fuzz, one case of each class of bad input: (arguments, words the sentence must hold)
BAD = [
    (["layout", BLOCKED_8.replace("[1, 8]", "[-, 8]")], ["malformed", "character"]),
    (["layout", "blocked:spt=1x\u00b2"], ["not a number"]),  # a superscript digit
    (["layout", BLOCKED_8.replace("[1, 8]", "[1, \u00b2]")], ["malformed"]),
    (["layout", "blocked:spt=1x\u0668"], ["not a number"]),  # an Arabic-Indic digit
    (["plan", "--warps", "\u0668"], ["ASCII"]),
    (["layout", "[" * 1500 + "]" * 1500], ["nests"]),
    (["layout", "slice:dim=0,parent=(" * 3000 + "blocked" + ")" * 3000], ["nests"]),
    (["layout", "#ttg.slice<{dim = 0, parent = " * 2000 + "#ttg.blocked<{}>" + "}>" * 2000], ["nests"]),
    (["layout", "swizzled:order=5x0"], ["order [5, 0]"]),
    (["layout", "swizzled:per_phase=0"], ["per_phase"]),
    (["layout", "mfma:instr=32"], ["instr_shape"]),
    (["layout", "mma", "--shape", "128"], ["rank"]),
    (["plan", "--shape", "65536x65536"], ["65536x65536", "limit"]),
    (["swizzle", "--write", "blocked", "--read", "mma", "--shape", "65536x65536"], ["limit"]),
    (["emit", "--src", BLOCKED_8.replace("[1, 8]", "[1, 1099511627776]")], ["1099511627776"]),
    (["layout", "blocked", "--warps", "64"], ["2048 threads", "1024"]),
    (["plan", "--warps", "64"], ["2048 threads"]),
    (["plan", "--target", "gfx942", "--src", "blocked:tpw=8x8", "--dst", "blocked:tpw=8x8", "--warps", "32"], ["2048"]),
    (["layout", "blocked", "--warps", "1099511627776"], ["--warps", "1024"]),
    (["emit", "--name", "int"], ["int", "keyword"]),
    (["emit", "--name", "class"], ["class"]),
    (["emit", "--name", "1abc"], ["identifier"]),
    (["emit", "--name", "__x"], ["reserved"]),
    (["emit", "-o", ""], ["-o"]),
    (["emit", "-o", "a" * 300], ["File name too long"]),
    (["emit", "-o", "a" * 300 + "/"], ["File name too long"]),
    (["check", "--report", " "], ["--report"]),
    (["emit", "--target", "sm_80", "--dst", "wgmma"], ["wgmma", "sm_80", "sm_90"]),
    (["emit", "--target", "sm_80", "--dst", "mma:v=3"], ["wgmma", "sm_80"]),
    (["plan", "--target", "sm_90", "--dst", "mfma"], ["mfma", "gfx942"]),
    (["plan", "--target", "sm_90", "--dst", "wmma"], ["wmma"]),
    (["plan", "--target", "gfx942", "--dst", "mma"], ["mma", "gfx942"]),
    (["layout", BLOCKED_8.replace("order = [1, 0]", "order = [1, 0], order = [1, 0]")], ["twice"]),
    (["layout", "blocked:spt=1x8,size_per_thread=1x8"], ["twice"]),
    (["layout", "#ttg.amd_wmma<{version = 1, isTranspose = false, isTransposed = false, warpsPerCTA = [2, 2]}>"], ["repeats"]),
    (["layout", BLOCKED_8, "--warps", "4"], ["--warps", "4", "8"]),  # a stated value against another
    (["plan", "--src", BLOCKED_8, "--dst", "mma:wpc=2x2"], ["warpsPerCTA [8, 1]", "warps_per_cta [2, 2]"]),
    (["plan", "--src", "mfma", "--dst", "wgmma"], ["mfma", "wgmma"]),
    (["plan", "--src", "#blocked"], ["--ttgir"]),
    (["plan", "--target", "sm_70"], ["sm_70", "sm_90"]),  # click's own errors, one line too
    (["plan", "--dtype", "f13"], ["f13"]),
    (["plan", "--path", "teleport"], ["teleport"]),
    (["plan", "--bogus"], ["--bogus"]),
    (["nosuch"], ["nosuch"]),
    (["layout"], ["SPEC"]),
    (["show"], ["-o"]),
    (["check", "--suite", "nosuch"], ["nosuch"]),
    (["layout", "blocked:spt=1x8,tpw=8x8", "--threads-per-warp", "32"], ["threads_per_warp [8, 8]", "64", "32"]),
    (["layout", "linear:lane=[[0,2],[0,4],[0,8],[1,0],[2,0]],warp=[[4,0],[0,0]]", "--warps", "8"], ["2 warp bases"]),
    (["plan", "--src", "linear:lane=[[0,1],[0,2],[0,4],[1,0]]", "--dst", "blocked", "--shape", "2x8"], ["16 threads"]),
]


@pytest.mark.parametrize("args,words", BAD, ids=[f"{i}-{a[0]}" for i, (a, _) in enumerate(BAD)])
def test_bad_input_is_one_sentence_and_exit_2(tmp_path, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    t = time.perf_counter()
    res = invoke(*args)
    assert time.perf_counter() - t < 10  # refused before any work: a hang guard, not a timing test
    assert_one_line_error(res, *words)
    assert list(tmp_path.iterdir()) == []


def bad_files(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"bases": {"register": []}, "out_dims": {"dim0": 4}} \xff\xfe')
    dup = tmp_path / "dup.json"
    dup.write_text('{"bases": {}, "bases": {}, "out_dims": {"dim0": 4}}')
    nul = tmp_path / "nul.ttgir"
    nul.write_bytes(b"module {\x00}")
    big = tmp_path / "big.json"
    big.write_text(" " * (2 << 20))
    return {
        "deep": ([f"@{deep}", "--shape", "4"], ["nests"]),
        "latin": ([f"@{latin}", "--shape", "4"], ["UTF-8"]),
        "dup": ([f"@{dup}", "--shape", "4"], ["repeats"]),
        "folder": ([f"@{tmp_path}", "--shape", "4"], ["not a regular file"]),
        "missing": ([f"@{tmp_path}/none.json", "--shape", "4"], ["cannot read"]),
        "big": ([f"@{big}", "--shape", "4"], ["limit"]),
        "nul": (["blocked", "--ttgir", str(nul)], ["NUL"]),
        "not-ttgir": (["blocked", "--ttgir", str(latin)], ["TTGIR"]),
    }


@pytest.mark.parametrize("case", ["deep", "latin", "dup", "folder", "missing", "big", "nul", "not-ttgir"])
def test_bad_files_are_one_sentence(tmp_path, case):
    args, words = bad_files(tmp_path)[case]
    before = sorted(tmp_path.iterdir())
    assert_one_line_error(invoke("layout", *args), *words)
    assert sorted(tmp_path.iterdir()) == before


def test_output_onto_a_directory_leaves_nothing_behind(tmp_path):
    (tmp_path / "x.svg").mkdir()
    pytest.importorskip("matplotlib")
    assert_one_line_error(invoke("show", "blocked", "-o", str(tmp_path / "x.svg")), "directory")
    assert [p.name for p in tmp_path.iterdir()] == ["x.svg"] and not list((tmp_path / "x.svg").iterdir())


def test_emit_into_an_existing_folder_writes_there(tmp_path):
    res = invoke("emit", "-o", str(tmp_path))
    assert res.exit_code == 0, res.output
    [written] = list(tmp_path.iterdir())
    assert written.suffix == ".cu" and f"wrote {written} ({written.stat().st_size} bytes)" in res.stderr


def test_emit_creates_the_folder_and_names_each_file_with_its_size(tmp_path):
    out = tmp_path / "my_project" / "third_party"
    res = invoke("emit", "--src", "blocked", "--dst", "mma", "--form", "header", "-o", f"{out}/")
    assert res.exit_code == 0, res.output
    [header] = list(out.iterdir())
    assert header.suffix == ".cuh" and res.stderr == f"wrote {header} ({header.stat().st_size} bytes)\n"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_form_both_writes_a_kernel_that_includes_its_header(tmp_path):
    res = invoke("emit", "--form", "both", "-o", f"{tmp_path / 'both'}/")
    assert res.exit_code == 0, res.output
    kernel, header = sorted((tmp_path / "both").iterdir())
    assert (kernel.suffix, header.suffix) == (".cu", ".cuh") and f'#include "{header.name}"' in kernel.read_text()


def test_form_both_to_a_file_writes_it_and_its_header_beside_it(tmp_path):
    res = invoke("emit", "--form", "both", "-o", str(tmp_path / "x.cu"), "--shape", "32x32")
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.cu", "x.cuh"]
    assert '#include "x.cuh"' in (tmp_path / "x.cu").read_text()
    res = invoke("emit", "--form", "both", "--src", "mfma", "--dst", "blocked", "-o", str(tmp_path / "y.hip"), "--shape", "32x32")
    assert res.exit_code == 0, res.output
    assert '#include "y.hip.h"' in (tmp_path / "y.hip").read_text() and (tmp_path / "y.hip.h").is_file()


@pytest.mark.parametrize("name", ["both", "x.txt", "x.cuh", ".cu"])
def test_form_both_to_a_name_without_the_kernel_suffix_is_refused(tmp_path, name):
    res = invoke("emit", "--form", "both", "-o", str(tmp_path / name), "--shape", "32x32")
    assert_one_line_error(res, "--form both", "must end in .cu", "NAME.cuh")
    assert list(tmp_path.iterdir()) == []


def test_a_multi_file_write_writes_every_file_or_none(tmp_path):
    (tmp_path / "x.cuh").mkdir()  # the header's name is taken by a folder
    res = invoke("emit", "--form", "both", "-o", str(tmp_path / "x.cu"), "--shape", "32x32")
    assert_one_line_error(res, "x.cuh", "is a directory")
    assert [p.name for p in tmp_path.iterdir()] == ["x.cuh"]
    (tmp_path / "x.cuh").rmdir()
    (tmp_path / "x.cuh").write_text("// mine\n")  # ... by a file llgen did not write
    assert_one_line_error(invoke("emit", "--form", "both", "-o", str(tmp_path / "x.cu"), "--shape", "32x32"), "--force")
    assert [p.name for p in tmp_path.iterdir()] == ["x.cuh"] and (tmp_path / "x.cuh").read_text() == "// mine\n"
    out = tmp_path / "new" / "deeper"
    names = [p.name for p in _emitted(tmp_path / "probe")]
    (out / names[1]).mkdir(parents=True)  # a folder DIR/: one of the two names taken
    res = invoke("emit", "--form", "both", "-o", f"{out}/", "--shape", "32x32")
    assert_one_line_error(res, names[1], "is a directory")
    assert [p.name for p in out.iterdir()] == [names[1]]
    (out / names[1]).rmdir()
    assert invoke("emit", "--form", "both", "-o", f"{out}/", "--shape", "32x32").exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == names


def _emitted(folder):
    res = invoke("emit", "--form", "both", "-o", f"{folder}/", "--shape", "32x32")
    assert res.exit_code == 0, res.output
    return sorted(folder.iterdir())


@pytest.mark.parametrize("fails", [1, 2])
def test_write_every_leaves_nothing_when_a_write_fails(tmp_path, monkeypatch, fails):
    from pathlib import Path

    from llgen.core import files
    from llgen.core.errors import LlgenError

    real = files._temporary
    calls = []

    def failing(folder, name, data):
        calls.append(name)
        if len(calls) == fails:
            raise OSError(28, "No space left on device", str(Path(folder) / name))
        return real(folder, name, data)

    monkeypatch.setattr(files, "_temporary", failing)
    with pytest.raises(LlgenError, match="No space left on device"):
        files.write_every(
            [(tmp_path / "a" / "b" / "x.cu", "1"), (tmp_path / "a" / "b" / "x.cuh", "2")], force=False, make_dirs=True
        )
    assert list(tmp_path.iterdir()) == []  # no file, no temporary, no folder it made


def test_force_is_needed_to_write_over_a_file_llgen_did_not_write(tmp_path):
    target = tmp_path / "mine.cu"
    target.write_text("// my own kernel\nint x;\n")
    assert_one_line_error(invoke("emit", "-o", str(target)), "--force", "mine.cu")
    assert target.read_text() == "// my own kernel\nint x;\n"
    assert invoke("emit", "-o", str(target), "--force").exit_code == 0
    assert "generated by llgen" in "".join(target.read_text().splitlines()[:3]).lower()
    assert invoke("emit", "-o", str(target)).exit_code == 0  # llgen's own file: no --force needed
    assert [p.name for p in tmp_path.iterdir()] == ["mine.cu"]


def test_header_states_the_command_and_version(tmp_path):
    res = invoke("emit", "--src", "blocked", "--dst", "mma", "--form", "header", "-o", f"{tmp_path}/")
    head = "\n".join(next(tmp_path.iterdir()).read_text().splitlines()[:4])
    from importlib.metadata import version

    if "llgen emit --src blocked --dst mma" not in head:
        pytest.skip("the emitter does not write the command into the header")
    assert res.exit_code == 0 and version("llgen") in head
    assert f"llgen emit --src blocked --dst mma --form header -o {tmp_path}/" in head


# ---------------------------------------------------------------------- defaults from what the user said
def test_warps_default_to_the_stated_warps_per_cta():
    res = invoke("layout", BLOCKED_8, "--json")
    assert res.exit_code == 0 and len(json.loads(res.stdout)["bases"]["warp"]) == 3
    res = invoke("plan", "--src", BLOCKED_8, "--dst", "mma")
    assert res.exit_code == 0 and "8 warps x 32 lanes" in res.stdout


def test_a_linear_layout_states_its_warps():
    a = "#ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>"
    res = invoke(
        "plan",
        "--src",
        a,
        "--dst",
        a.replace("[[1, 0], [2, 0], [4, 0], [8, 0]], lane", "[[8, 0], [4, 0], [2, 0], [1, 0]], lane"),
        "--shape",
        "16x32",
    )
    assert res.exit_code == 0 and "1 warp x 32 lanes" in res.stdout


def test_mfma_infers_an_amd_target():
    res = invoke("plan", "--src", "blocked", "--dst", "mfma")
    assert res.exit_code == 0 and "x 64 lanes, gfx942" in res.stdout.splitlines()[0]
    res = invoke("plan", "--src", "blocked:tpw=8x8", "--dst", "blocked:tpw=64x1")  # 64 lanes: only AMD fits
    assert res.exit_code == 0 and "gfx942" in res.stdout.splitlines()[0]
    res = invoke("plan", "--src", "blocked:tpw=8x8", "--dst", "mma")
    assert_one_line_error(res, "64", "mma")


def test_threads_per_warp_everywhere_a_layout_is_parsed():
    for name, command in cli.main.commands.items():
        if name not in ("gpu-check", "toolchain"):  # the two commands that parse no layout
            assert "threads_per_warp" in [p.name for p in command.params], name
    res = invoke("plan", "--threads-per-warp", "64", "--dst", "mfma")
    assert res.exit_code == 0 and "gfx942" in res.stdout
    assert_one_line_error(invoke("plan", "--threads-per-warp", "64", "--target", "sm_90"), "64", "32")


def test_swizzle_takes_src_dst_and_keeps_write_read():
    a = ["--shape", "16x32", "--dtype", "f32", "--warps", "1"]
    spec_a = "linear:register=[[1,0],[2,0],[4,0],[8,0]],lane=[[0,1],[0,2],[0,4],[0,8],[0,16]]"
    spec_b = "linear:register=[[0,2],[0,4],[0,8],[0,16]],lane=[[1,0],[2,0],[4,0],[8,0],[0,1]]"
    new = invoke("swizzle", "--src", spec_a, "--dst", spec_b, *a)
    old = invoke("swizzle", "--write", spec_a, "--read", spec_b, *a)
    assert new.exit_code == 0 and new.stdout == old.stdout and "optimal" in new.stdout


def test_choices_are_listed_in_help():
    from llgen.cases.suite import SUITES
    from llgen.core.dtypes import ALIASES, DTYPES
    from llgen.core.target import TARGETS
    from llgen.plan import PATHS

    text = invoke("plan", "--help").stdout
    for value in [*TARGETS, *DTYPES, *ALIASES, *PATHS]:
        assert value in text, value
    assert all(s in invoke("check", "--help").stdout for s in SUITES)
    assert all(s in invoke("bench", "--help").stdout for s in SUITES)


def test_layout_prints_the_attribute_a_short_form_resolves_to():
    res = invoke("layout", "mma")
    head = res.stdout.splitlines()[:2]
    assert head == [
        "mma",
        "TTGIR: #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
    ]
    res = invoke("layout", "dot:op=0,k_width=2", "--shape", "128x64")
    assert "TTGIR: #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{" in res.stdout


# ---------------------------------------------------------------------- basics
def test_version_and_python_m():
    from importlib.metadata import version

    res = invoke("--version")
    assert res.exit_code == 0 and res.stdout == f"llgen {version('llgen')}\n"
    out = subprocess.run([sys.executable, "-m", "llgen", "--version"], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout == f"llgen {version('llgen')}\n"
    out = subprocess.run([sys.executable, "-m", "llgen", "plan", "--bogus"], capture_output=True, text=True, check=False)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and out.stderr.startswith("error: ")


def test_show_without_matplotlib_says_how_to_install_it(tmp_path):
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from llgen.cli import main\n"
        f"main(['show', 'blocked', '-o', {str(tmp_path / 'a.svg')!r}])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "pip install '.[show]'" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_bug_is_one_line_and_exit_3(monkeypatch):
    import llgen.spec.pair

    def boom(*_a, **_k):
        raise KeyError("x")

    monkeypatch.setattr(llgen.spec.pair, "parse_pair", boom)
    monkeypatch.delenv("LLGEN_TRACEBACK", raising=False)
    res = invoke("plan")
    assert res.exit_code == 3 and res.stderr.count("\n") == 1 and "bug in llgen" in res.stderr


def test_bare_llgen_prints_help():
    res = invoke()
    assert res.exit_code == 0 and "Commands:" in res.stdout


def test_real_process_has_no_traceback_on_a_deep_spec(tmp_path):
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "llgen", "layout", "[" * 3000], capture_output=True, text=True, check=False, cwd=tmp_path, env=env
    )
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_emit_creates_missing_folders_of_a_file_path(tmp_path):
    """`-o a/b/x.cuh` creates a/b as `mkdir -p` would (the vendoring guide's users write into new trees)."""
    from click.testing import CliRunner

    from llgen.cli import main

    out = tmp_path / "my_project" / "third_party" / "x.cuh"
    result = CliRunner().invoke(main, ["emit", "--form", "header", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("//")


def test_error_line_is_the_one_rule_for_an_exception_as_a_line():
    """llgen.core.errors.error_line serves the crash message, check's launch errors and the bench's report rows."""
    from llgen.core.errors import error_line

    log = RuntimeError("nvrtc: compile failed\nkernel.cu(3):  error:   identifier   x undefined\nmore")
    assert error_line(log) == "RuntimeError: kernel.cu(3): error: identifier x undefined"  # the line saying "error"
    assert error_line(ValueError("first\nsecond")) == "ValueError: first"
    assert error_line(KeyError(), limit=8) == "KeyError"[:8] and len(error_line(OSError("x" * 999))) == 300
