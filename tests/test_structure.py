"""The package's folders are the pipeline's floors: each imports only from the floors below it (or its own), so no
two folders import each other. ``python tests/test_structure.py`` prints the folder-level drawing docs/design.md
shows."""

from __future__ import annotations

import ast
import collections
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "src" / "llgen"

# lowest first; a folder may import its own floor's folders listed before it, and every lower floor
FLOORS = (
    ("core",),
    ("layouts", "spec", "shapeops"),
    ("plan",),
    ("verify", "emit", "randlayout", "cases"),
    ("runtime",),
    ("show", "cli"),
)
ORDER = [f for floor in FLOORS for f in floor]
TOP = "(package)"  # __init__.py (the public API) and __main__.py


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ORDER else TOP


def folder_imports() -> dict[str, dict[str, set[str]]]:
    """folder -> folder it imports -> the files that do, over every import of llgen in the package (lazy ones too)."""
    out: dict[str, dict[str, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        here = _folder(".".join(rel.parts)) if path.parent != PACKAGE else TOP
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "llgen":
                names = [f"llgen.{a.name}" for a in node.names] if node.module == "llgen" else [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.split(".")[0] == "llgen"]
            else:
                continue
            for name in names:
                there = _folder(name)
                if there not in (here, TOP):
                    out[here][there].add(str(path.relative_to(PACKAGE)))
    return out


def test_every_folder_is_a_floor_and_imports_only_downwards():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders - {"templates"} == set(ORDER), "a folder without a floor, or a floor without a folder"
    up = {
        (here, there): sorted(files)
        for here, targets in folder_imports().items()
        if here != TOP
        for there, files in targets.items()
        if ORDER.index(there) > ORDER.index(here)
    }
    assert not up, f"imports that run up a floor (or across to a later folder of one): {up}"


def test_the_package_root_holds_only_the_api_and_the_entry_point():
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py"]


def drawing() -> str:
    """The floors from the top down, each folder with the folders it imports."""
    graph = folder_imports()
    lines = []
    for floor in reversed(FLOORS):
        for f in floor:
            targets = sorted(graph.get(f, {}), key=ORDER.index, reverse=True)
            lines.append(f"{f:<11}-> {', '.join(targets) if targets else '(nothing of llgen)'}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(drawing(), end="")


# the functions that keep more than 6 parameters, and why: each mirrors an interface it does not own
WIDE_SIGNATURES = {
    ("layouts/amd.py", "amd_mfma"): "Gluon's AMDMFMALayout, field for field",
    ("layouts/amd.py", "amd_wmma"): "Gluon's AMDWMMALayout, field for field",
}


def test_no_function_takes_more_than_6_parameters():
    """Options travel as one value (Options, a command's Flags, a request), not as long parameter lists. Outside the
    click commands (their options are click's) and Gluon kernels (each constexpr is named), only WIDE_SIGNATURES."""
    wide = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if any(d.startswith(("click.", "main.", "bench.", "gluon.jit")) or ".command" in d for d in decorators):
                continue
            a = node.args
            names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
            if len(names) + bool(a.vararg) > 6:
                wide.append((str(path.relative_to(PACKAGE)), node.name))
    assert sorted(wide) == sorted(WIDE_SIGNATURES)
