"""The planner decides, the emitter spells: src/llgen/emit/* takes from the planner (llgen.plan) only its data types,
never a function that decides something (docs/design.md; src/llgen/emit/__init__.py)."""

from __future__ import annotations

import ast
import importlib
import inspect

from helpers import ROOT  # noqa: E402 (the shared test helpers)

EMIT = ROOT / "src" / "llgen" / "emit"


def _plan_imports(path) -> list[tuple[str, str]]:
    """(module, name) of every name the module imports from llgen.plan, at the top or inside a function."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 2 and (node.module or "").split(".")[0] == "plan":
            out += [(f"llgen.{node.module}", a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("llgen.plan"):
            out += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 2 and node.module is None:
            assert all(a.name != "plan" for a in node.names), f"{path.name} imports the planner package whole"
    return out


def test_emit_modules_import_only_plan_data_types():
    seen, bad = set(), []
    for path in sorted(EMIT.glob("*.py")):
        for module, name in _plan_imports(path):
            obj = getattr(importlib.import_module(module), name)
            seen.add(name)
            if not inspect.isclass(obj):
                bad.append(f"{path.name}: {module}.{name}")
    assert not bad, f"emit modules import planner functions: {bad}"
    assert {"Barrier", "Assembly", "Affine"} <= seen  # the walk finds the imports it is meant to check


def test_the_walk_catches_a_decision_function(tmp_path):
    """A module that re-runs the planner's word assembly is caught (the check can fail)."""
    bad = tmp_path / "bad.py"
    bad.write_text("from ..plan.shuffle_words import Word, assemble\n\ndef f():\n    from ..plan import plan_conversion\n")
    found = _plan_imports(bad)
    assert found == [
        ("llgen.plan.shuffle_words", "Word"),
        ("llgen.plan.shuffle_words", "assemble"),
        ("llgen.plan", "plan_conversion"),
    ]
    assert [n for m, n in found if not inspect.isclass(getattr(importlib.import_module(m), n))] == ["assemble", "plan_conversion"]
