"""The LOOP step of every suite case with a free-pairing variant, in SASS, beside the natural picks and Triton's:
instructions a step (the longest loop: `Sass.loop`), of them PRMT, and the shared-memory instructions. CPU only
(NVRTC 13.0 for llgen, Triton 3.6's own compiler for its Gluon LOOP, both for sm_90):

    python bench/probes/pairing_sass.py > bench/probes/pairing_sass.txt

What it shows is the instruction count the GPU runs a step, not time: the GPU runs decide (bench/NOTES.md).
"""

from __future__ import annotations

import sys
from collections import Counter

from llgen.cases.suite import suite
from llgen.emit import emit_bench
from llgen.plan.benchshape import bench_shape
from llgen.plan.variants import variant_table
from llgen.runtime.toolchain import disassemble
from llgen.runtime.toolchain.cuda import Cubin, compile_cuda

MEMORY = ("STS", "LDS", "STSM", "LDSM", "SHFL")


def step(loop: Counter) -> tuple[int, int, str]:
    """(instructions, PRMT, the memory and shuffle instructions) of one LOOP step."""
    ops = Counter()
    for op, n in loop.items():
        ops[op.split(".")[0]] += n
    total = sum(n for op, n in ops.items() if op != "NOP")
    mem = " ".join(f"{op} {ops[op]}" for op in MEMORY if ops[op])
    return total, ops["PRMT"], mem


def llgen_step(v) -> tuple[int, int, str]:
    src = emit_bench(v.fwd, v.bwd, "b", bench_shape(v.fwd, v.bwd))
    sass = disassemble(compile_cuda(src, "sm_90"))
    return step(next(s for name, s in sass.items() if name.endswith("loop")).loop())


def triton_step(case) -> tuple[int, int, str] | str:
    try:
        from llgen.runtime.gluon import compile_offline

        k = compile_offline("loop", case)
        s = next(iter(disassemble(Cubin("sm_90", k.asm["cubin"], "", 0.0, {})).values()))
        return step(s.loop())
    except Exception as e:  # noqa: BLE001 - a case Triton cannot compile is a line, not the end of the table
        return f"({type(e).__name__})"


def main(suites: list[str]) -> None:
    print("| suite | case | dtype | variant | paths | instructions a step | PRMT | memory |")
    print("|---|---|---|---|---|---|---|---|")
    for name in suites:
        for case in suite(name):
            vs, _ = variant_table(case, "sm_90", baselines=False)
            free = [v for v in vs if v.name.endswith("_free")]
            if not free:
                continue
            for v in [*(x for x in vs if x.is_pick), *free]:
                n, prmt, mem = llgen_step(v)
                print(f"| {name} | {case.id} | {case.dtype} | {v.name} | {v.fwd.path}/{v.bwd.path} | {n} | {prmt} | {mem} |")
            t = triton_step(case)
            row = f"| {t[0]} | {t[1]} | {t[2]} |" if isinstance(t, tuple) else f"| {t} | | |"
            print(f"| {name} | {case.id} | {case.dtype} | triton | convert_layout {row}")
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:] or ["warplocal", "core", "wide"])
