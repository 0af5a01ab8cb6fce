"""Write the headers tests/consumer/consumer.cu vendors into third_party/, as a user would before building.

    python tests/consumer/generate.py [DIR]     (default: third_party/ beside this file)

Three conversions of one 64x64 f16 tile on 4 warps, from one blocked layout A: a shared-memory plan (B is the
first operand of an mma), a register permutation (A's registers reordered across packed words) and a warp shuffle
(A's lanes rotated); a 128x256 f16 transpose whose 64 KB of scratch is over the 48 KB a static __shared__ array
may hold (kSmemOptIn: dynamic shared memory); and a shared tile (`llgen emit --src A --dst nvmma:128 --then
dot:op=0,k_width=2`): A stored into a 128-byte-swizzled NVMMA tile and loaded as an mma's first operand, planned for
sm_80 so that one header serves both architectures the project builds for (sm_90 adds stmatrix, which sm_80 lacks).
The test suite runs this into a temporary copy and builds it; it is never checked in.
"""

from __future__ import annotations

import sys
from pathlib import Path

from llgen import LinearLayout
from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.plan.endpoint import plan_load, plan_store
from llgen.plan.tile import tile_plan
from llgen.spec import parse_encoding, parse_layout

SHAPE = (64, 64)
BIG = (128, 256)


def plans() -> dict:
    a = parse_layout("blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", SHAPE, 4, 32)
    d = a.to_dict()
    regs = d["bases"]["register"]
    regs[0], regs[2] = regs[2], regs[0]  # element 1 of each 8 trades places with element 4: across packed words
    reordered = LinearLayout.from_dict(d)
    d = a.to_dict()
    d["bases"]["lane"] = d["bases"]["lane"][1:] + d["bases"]["lane"][:1]
    rotated = LinearLayout.from_dict(d)
    dot = parse_layout("dot:op=0,k_width=2", SHAPE, 4, 32)
    rows = parse_layout("blocked:spt=1x8,tpw=2x16,wpc=4x1,order=1x0", BIG, 4, 32)
    cols = parse_layout("blocked:spt=8x1,tpw=16x2,wpc=1x4,order=0x1", BIG, 4, 32)
    return {
        "cvt_shared": plan_conversion(a, dot, "f16", "sm_90"),
        "cvt_regs": plan_conversion(a, reordered, "f16", "sm_90"),
        "cvt_shfl": plan_conversion(a, rotated, "f16", "sm_90"),
        "cvt_big": plan_conversion(rows, cols, "f16", "sm_90"),
    }


def tile():
    """A's tile through a 128-byte-swizzled NVMMA buffer into the registers of an mma's first operand."""
    a = parse_layout("blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", SHAPE, 4, 32)
    s = parse_encoding("nvmma:128", SHAPE, 4, 32)
    dot = parse_layout("dot:op=0,k_width=2", SHAPE, 4, 32)
    return tile_plan(plan_store(a, s, "f16", "sm_80"), plan_load(s, dot, "f16", "sm_80"))


def write(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    command = "python tests/consumer/generate.py"
    for name, plan in plans().items():
        path = out / f"{name}.cuh"
        path.write_text(emit(plan, "header", name, command))
        written.append(path)
    path = out / "tile_a2dot.cuh"
    path.write_text(emit(tile(), "header", "tile_a2dot", command))
    return [*written, path]


if __name__ == "__main__":
    for p in write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "third_party"):
        print(p)
