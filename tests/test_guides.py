"""README.md and docs/vendoring.md work as printed: their commands run and their code builds, in an empty folder.

The rule for a fenced block, by the line just above its opening fence and its info string:
- `<!-- not run: WHY -->`: left alone (WHY says why, e.g. `make test` is what runs this test);
- `<!-- file: PATH -->` / `<!-- append: PATH -->`: its text is written to / appended to PATH, in document order;
- info string `sh`: a shell block, run with bash (-e, -u, pipefail); each block sees the variables the blocks
  before it assign (`A='...'`), and every `-o PATH` it names must exist afterwards;
- any other block is text (output, a folder tree), and may not hold a command line or C++ or CMake: those are
  tagged `sh` or written to a file, so that nothing the docs tell a user to run goes untested.
Output shown under `<!-- output of: -->` / `<!-- lines of: -->` markers is checked by tests/test_docs.py.

The folder holds what a clone holds that the commands read: `.venv` (this test's environment, so `.venv/bin/llgen`
is the llgen under test) and `tests/data`. The environment is what `llgen toolchain --env` prints for a user
(llgen.cli.commands.toolchain): PATH has the environment's bin folder (`llgen`) and nvcc's (pip's nvidia-cuda-nvcc, see
llgen.runtime.toolchain.nvcc); LIBRARY_PATH has pip's CUDA libraries, so CMake's check of its CUDA compiler links.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

from llgen.cli.commands.toolchain import find_toolchain
from llgen.core.errors import LlgenError

GUIDES = ["README.md", "docs/vendoring.md"]
COMMANDS = ("llgen", ".venv/bin/", "nvcc", "cmake", "make", "pip", "python", "mkdir", "cd", "cp")
CODE = ("cpp", "c++", "cuda", "cu", "cmake")


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    info: str  # the fence's info string: "sh", "cpp", ""
    marker: str  # the HTML comment on the line above, without <!-- -->, or ""
    text: str

    @property
    def where(self) -> str:
        return f"line {self.line}"


def blocks(text: str) -> list[Block]:
    """Every ```-fenced block of a Markdown text, in order."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        above = lines[i - 1].strip() if i else ""
        m = re.fullmatch(r"<!--\s*(.*?)\s*-->", above)
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        out.append(Block(i + 1, lines[i][3:].strip(), m.group(1) if m else "", "\n".join(lines[i + 1 : end]) + "\n"))
        i = end + 1
    return out


def kind(block: Block) -> str:
    """not run, file, append, sh, or text (see the module's rule)."""
    for k in ("not run", "file", "append"):
        if block.marker.startswith(f"{k}:"):
            return k
    return "sh" if block.info == "sh" else "text"


def _looks_like_a_command(line: str) -> bool:
    return any(line.startswith(c) and (c.endswith("/") or line[len(c) : len(c) + 1] in (" ", "")) for c in COMMANDS)


@pytest.mark.parametrize("guide", GUIDES)
def test_every_command_and_code_block_is_run_or_says_why(guide):
    found = blocks((ROOT / guide).read_text())
    assert any(kind(b) == "sh" for b in found)
    for b in found:
        k = kind(b)
        if k == "not run":
            assert b.marker.removeprefix("not run:").strip(), f"{guide} {b.where}: say why it is not run"
        if k == "text":
            assert b.info not in CODE, f"{guide} {b.where}: {b.info} code must be a <!-- file: PATH --> the test builds"
            commands = [line for line in b.text.splitlines() if _looks_like_a_command(line)]
            assert not commands, f"{guide} {b.where}: commands in a block that is not run (tag it sh): {commands}"


def _environment() -> dict[str, str]:
    """os.environ with what `llgen toolchain --env` exports, which the README tells a user to eval."""
    try:
        toolchain = find_toolchain()
    except LlgenError as e:
        pytest.skip(str(e))
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed (docs/vendoring.md builds with it)")
    return toolchain.env(dict(os.environ))


def test_toolchain_env_exports_what_the_guides_run_with(tmp_path):
    """`llgen toolchain --env`, evaluated by bash, gives the PATH and LIBRARY_PATH the guides' test runs with: this
    environment's llgen and pip's nvcc first, then what the shell had."""
    try:
        toolchain = find_toolchain()
    except LlgenError as e:
        pytest.skip(str(e))
    r = subprocess.run([sys.executable, "-m", "llgen", "toolchain", "--env"], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and r.stdout.startswith("export PATH="), r.stderr
    script = r.stdout + 'command -v llgen nvcc; echo "$LIBRARY_PATH"'
    env = {"PATH": "/usr/bin:/bin", "LIBRARY_PATH": "/x", "HOME": str(tmp_path)}
    found = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=True).stdout.split()
    assert found == [
        str(toolchain.llgen_bin / "llgen"),
        str(toolchain.nvcc),
        ":".join([*toolchain.library_path, "/x"]),
    ]
    assert toolchain.env(env)["PATH"] == ":".join([*toolchain.path, "/usr/bin:/bin"])


def run_guide(guide: str, folder: Path, env: dict[str, str]) -> None:
    """Run `guide`'s blocks in order in `folder`, as the module's rule says."""
    (folder / ".venv").symlink_to(Path(sys.executable).parent.parent, target_is_directory=True)
    (folder / "tests").mkdir()
    (folder / "tests" / "data").symlink_to(ROOT / "tests" / "data", target_is_directory=True)
    assignments: list[str] = []
    for b in blocks((ROOT / guide).read_text()):
        k = kind(b)
        if k in ("file", "append"):
            path = folder / b.marker.split(":", 1)[1].strip()
            assert k == "file" or path.exists(), f"{guide} {b.where} appends to {path.name} before it is written"
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w" if k == "file" else "a") as f:
                f.write(b.text if k == "file" else "\n" + b.text)
        elif k == "sh":
            script = "\n".join([*assignments, b.text])
            r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=folder, env=env, capture_output=True, text=True)
            assert r.returncode == 0, f"{guide} {b.where} exits {r.returncode}:\n{b.text}\n{r.stdout}\n{r.stderr}"
            assignments += [line for line in b.text.splitlines() if re.match(r"[A-Za-z_]\w*=", line)]
            for out in re.findall(r"(?:^|\s)-o\s+(\S+)", b.text):
                path = folder / shlex.split(out)[0]
                assert path.exists() and (path.is_file() or any(path.iterdir())), f"{guide} {b.where} wrote no {out}"


def test_readme_runs_as_printed(tmp_path):
    run_guide("README.md", tmp_path, _environment())


def test_vendoring_guide_runs_as_printed_and_its_code_builds_for_a_plan_over_48_kb(tmp_path):
    """The guide's code builds against its header, then against a 64 KB plan under the same name: the dynamic
    shared memory and the opt-in the guide shows are what a plan over 48 KB needs, where a static array fails."""
    env = _environment()
    run_guide("docs/vendoring.md", tmp_path, env)
    big = "blocked:spt=1x8,tpw=2x16,wpc=4x1,order=1x0", "blocked:spt=8x1,tpw=16x2,wpc=1x4,order=0x1"
    cmd = ["llgen", "emit", "--src", big[0], "--dst", big[1], "--shape", "128x256", "--dtype", "f16", "--target", "sm_90"]
    cmd += ["--form", "header", "--name", "b2dotA_f16", "-o", "my_project/third_party/"]
    # the scratch rule's example converts there and back: the way back of the 64 KB plan under its name too
    back = [*cmd[:2], "--src", big[1], "--dst", big[0], *cmd[6:-4], "--name", "dotA2b_f16", "-o", "my_project/third_party/"]
    for step in (cmd, back, ["cmake", "--build", "build"]):
        r = subprocess.run(step, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
        assert r.returncode == 0, f"{shlex.join(step)}:\n{r.stdout}\n{r.stderr}"
        if step is cmd:
            header = (tmp_path / "my_project" / "third_party" / "b2dotA_f16.cuh").read_text()
            assert "inline constexpr bool kSmemOptIn = true;" in header
