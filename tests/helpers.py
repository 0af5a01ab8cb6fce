"""Helpers the test files share: the repository root, the one-sentence error rule, and the command line in-process."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


def one_sentence(err: Exception) -> str:
    """An error message that is one sentence: ends with a period, no newline."""
    msg = str(err)
    assert msg.endswith(".") and "\n" not in msg, msg
    return msg


def invoke(*args):
    """``llgen ARGS`` through click's runner (stdout and stderr apart, as the CLI writes them)."""
    from llgen.cli import main

    return CliRunner().invoke(main, list(args))


# ------------------------------------------------------------------------------------ recorded machine code
# A test that asserts facts of a kernel's machine code (opcode counts, registers, local memory) may read them from a
# committed record instead of compiling: the record holds each text's facts under its sass_key (the text, the arch,
# NVRTC's flags and the pinned releases), so a text that hashes as recorded compiled to those facts with the same
# compiler. Only texts that changed compile; the test module's `python tests/test_x.py` rewrites its record.


def sass_summary(sass) -> dict:
    """What a record keeps of one function's SASS: its opcode counts, stack and local memory."""
    return {"opcodes": dict(sorted(sass.opcodes.items())), "stack": sass.stack, "local": sass.local}


def summary_sass(name: str, summary: dict):
    """The Sass of a summary (no text): every opcode count and the local-memory test read as compiled."""
    from collections import Counter

    from llgen.runtime.toolchain.disasm import Sass

    return Sass(name, name, "", Counter(summary["opcodes"]), 0, summary["stack"], summary["local"], 0)


def recorded_facts(units: dict[str, str], arch: str, known: dict, facts, together: bool = True) -> tuple[dict, dict]:
    """``facts(kernels, name)`` of each unit (name -> CUDA text) compiled for ``arch``, ``kernels`` being the
    disassembly of the unit's source; read from ``known`` (a record: sass_key -> facts) where the unit's text hashes
    as recorded, else compiled: the changed units in one NVRTC source (``together``; each alone where the texts
    cannot share one). Returns (the facts by unit name, the record of today's texts)."""
    import warnings

    from llgen.runtime.toolchain import compile_cuda, disassemble, sass_key

    keys = {name: sass_key(text, arch) for name, text in units.items()}
    stale = [name for name, key in keys.items() if key not in known]
    if stale and known:
        warnings.warn(
            f"{len(stale)} of {len(units)} texts on {arch} changed since their record was written: compiled "
            "(the test module, run as a script, rewrites the record)",
            stacklevel=2,
        )
    groups = [stale] if together and stale else [[name] for name in stale]
    record = {key: known[key] for key in keys.values() if key in known}
    for group in groups:
        kernels = disassemble(compile_cuda("\n".join(units[name] for name in group), arch))
        record.update({keys[name]: facts(kernels, name) for name in group})
    return {name: record[key] for name, key in keys.items()}, record


def write_record(path: Path, record: dict) -> None:
    """A record as the tests read it: sorted keys, one JSON field a line (small diffs), a final newline."""
    import json
    import sys

    path.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n")
    print(path, file=sys.stderr)
