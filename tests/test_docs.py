"""docs/: the CLI reference and the pictures are what `make docs` writes today, and the README
shows every picture it promises."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("matplotlib")

from helpers import ROOT  # noqa: E402 (the shared test helpers)

from llgen.cli import docs


def test_cli_reference_is_current():
    want = docs.cli_markdown()
    got = (ROOT / "docs" / "cli.md").read_text()
    assert got == want, "docs/cli.md is stale: run `make docs`"


@pytest.mark.parametrize("name", sorted(docs.PICTURES))
def test_picture_is_current(tmp_path, name):
    fresh = docs.draw(name, tmp_path).read_bytes()
    kept = ROOT / "docs" / "img" / name
    assert kept.exists() and kept.read_bytes() == fresh, f"docs/img/{name} is stale: run `make docs`"


def test_no_stray_pictures():
    assert sorted(p.name for p in (ROOT / "docs" / "img").iterdir()) == sorted(docs.PICTURES)


def test_readme_shows_the_bank_maps_and_a_blocked_layout():
    readme = (ROOT / "README.md").read_text()
    shown = set(re.findall(r"\]\((docs/img/[^)]+)\)", readme))
    for name in ("t16x32-unswizzled.svg", "t16x32-classic.svg", "t16x32-optimal.svg", "blocked-32x16.svg"):
        assert f"docs/img/{name}" in shown
    for path in shown:
        assert (ROOT / path).exists(), path


def test_docs_link_to_files_that_exist():
    for md in (ROOT / "docs").glob("*.md"):
        for target in re.findall(r"\]\(([^)#:]+)\)", md.read_text()):
            assert (md.parent / target).exists(), f"{md.name} links to missing {target}"


def test_readme_snippets_are_real_output(monkeypatch):
    """Each README block marked `<!-- output of: llgen ... -->` is that command's whole output, and each marked
    `<!-- lines of: llgen ... -->` holds only lines of it (`...` stands for lines left out); the commands may use
    the README's $A and $B, and paths relative to the repository."""
    monkeypatch.chdir(ROOT)
    import re
    import shlex

    from click.testing import CliRunner

    from llgen.cli import main

    text = (ROOT / "README.md").read_text()
    env = dict(re.findall(r"^([AB])='(.+)'$", text, re.MULTILINE))
    blocks = re.findall(r"<!-- (output|lines) of: llgen (.+?) -->\n```\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 5
    for kind, cmd, body in blocks:
        args = [a.replace("$A", env["A"]).replace("$B", env["B"]) for a in shlex.split(cmd)]
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0, (cmd, r.output)
        if kind == "output":
            assert r.output == body, f"README block for `llgen {cmd}` is not its output"
        else:
            real = set(r.output.splitlines())
            stale = [line for line in body.splitlines() if line.strip() != "..." and line not in real]
            assert not stale, f"README lines not in `llgen {cmd}`'s output: {stale}"
