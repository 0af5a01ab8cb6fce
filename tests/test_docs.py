"""docs/: the CLI reference and the pictures are what `make docs` writes today, and the README
shows every picture it promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from llgen import docs

ROOT = Path(__file__).resolve().parents[1]


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
