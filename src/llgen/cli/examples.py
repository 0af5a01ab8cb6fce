"""`make examples`: the core suite's kernels and headers in both languages, into kernels_out/, and the hashes of
every text the suites emit (tests/data/emitted-hashes.json), so a restructuring proves it prints the same bytes.

    python -m llgen.cli.examples kernels_out
"""

from __future__ import annotations

import sys
from pathlib import Path

from llgen.cases.suite import core
from llgen.emit import emit, file_names
from llgen.plan import plan_conversion

TARGETS = {"cuda": "sm_90", "hip": "gfx942"}


def example_files() -> dict[str, str]:
    """Relative path -> source text for every suite case, language and form."""
    out = {}
    for lang, tgt in TARGETS.items():
        for case in core():
            src, dst = case.src, case.dst
            if lang == "hip":  # wave64: the same tensor bits, one more lane bit taken from the registers
                src, dst = _wave64(src), _wave64(dst)
                if src is None or dst is None:
                    continue
            plan = plan_conversion(src, dst, case.dtype, tgt)
            names = file_names(plan, case.id)
            command = f"python -m llgen.cli.examples (the core suite's case {case.id}, {tgt})"
            out[f"{lang}/{names['header']}"] = emit(plan, "header", case.id, command)
            out[f"{lang}/{names['kernel']}"] = emit(plan, "kernel", case.id, command, header_file=names["header"])
    return out


def emitted_hashes() -> dict[str, str]:
    """SHA-256 of every text the suites emit: each core and regressions case by every variant gpu-check runs, as
    a kernel and a header, for sm_80, sm_90 and gfx942, and the bench source of each core case's variants."""
    import hashlib

    from llgen.cases.suite import core as core_cases
    from llgen.emit import emit_bench
    from llgen.plan.benchshape import bench_shape
    from llgen.plan.variants import variants
    from llgen.runtime.cases import suite_jobs

    def digest(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    out = {}
    for suite in ("core", "regressions"):
        for tgt in ("sm_80", "sm_90", "gfx942"):
            for job in suite_jobs(suite, tgt)[0]:
                for form in ("kernel", "header"):
                    out[f"{tgt}/{job.label}/{form}"] = digest(emit(job.plan, form, job.name))
    for case in core_cases():
        for v in variants(case, "sm_90"):
            out[f"bench/{case.id}/{v.name}"] = digest(emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd)))
    return out


def _wave64(layout):
    """A wave64 version of a 32-lane layout: its highest non-zero register bit becomes lane bit 5."""
    from llgen.core.layout import LinearLayout

    d = layout.to_dict()
    regs = d["bases"].get("register", [])
    idx = [i for i, v in enumerate(regs) if any(v)]
    if not idx:
        return None
    moved = regs.pop(idx[-1])
    d["bases"]["lane"] = d["bases"].get("lane", []) + [moved]
    return LinearLayout.from_dict(d)


def write(root: Path) -> list[Path]:
    written = []
    for rel, text in sorted(example_files().items()):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
        written.append(p)
    return written


HASHES = Path(__file__).resolve().parents[3] / "tests" / "data" / "emitted-hashes.json"  # the checkout's, beside src/


if __name__ == "__main__":
    import json

    for p in write(Path(sys.argv[1] if len(sys.argv) > 1 else "kernels_out")):
        print(p)
    HASHES.parent.mkdir(parents=True, exist_ok=True)
    HASHES.write_text(json.dumps(emitted_hashes(), indent=1, sort_keys=True) + "\n")
    print(HASHES)
