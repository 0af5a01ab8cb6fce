"""Global-memory access of a tile in a distributed layout, for the standalone kernels.

Tiles are stored row-major and contiguous; the kernel's tensor is a stack of tiles. Each
thread moves its registers in vectors as wide as the layout's contiguity allows (16 bytes at
most), as whole register words where a vector holds some, else element by element; replicas of a
broadcast layout are loaded by every holder but stored once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from llgen.core.dtypes import DType
from llgen.core.f2 import span, units
from llgen.core.layout import LinearLayout
from llgen.core.target import Target
from llgen.plan.affine import Affine
from llgen.plan.hw import Hw
from llgen.plan.shared import Instr, split_const


@dataclass(frozen=True)
class GlobalIO:
    width: int  # elements per vector access
    words: int  # register words (32-bit, 64-bit for 64-bit elements) a vector moves whole; 0: it is narrower, elements by shifts
    thread_offset: Affine  # element offset of the thread's part (lane bits, then warp bits)
    instrs: tuple[Instr, ...]
    skip_lane_mask: int  # a store runs only where (lane & skip_lane_mask) == 0 ...
    skip_warp_mask: int  # ... and (warp & skip_warp_mask) == 0: one replica writes


# Every plan of a pair (each path, swizzle and access width a test or bench compares) reads A and writes B alike: the
# accesses depend on nothing but the arguments, all immutable, so they are built once.
@lru_cache(maxsize=16)
def global_io(layout: LinearLayout, dt: DType, tgt: Target) -> GlobalIO:
    hw = Hw.of(layout)
    width = min(layout.num_consecutive(), tgt.max_access_bytes // dt.bytes)
    words = width * dt.bytes // max(4, dt.bytes)  # registers pack 8- and 16-bit elements into 32-bit words
    vbits = width.bit_length() - 1
    thread_cols = tuple(hw.lane) + tuple(hw.warp)
    live = [i for i, c in enumerate(hw.reg) if c and i >= vbits]
    # access o's first register and its element, for o = 0, 1, ... (f2.span lists both in that order)
    bases, consts = span(units(live)), span(hw.reg[i] for i in live)
    instrs = []
    for base, const in zip(bases, consts, strict=True):
        regs = tuple(base | t for t in range(width))
        x, a = split_const(const, thread_cols)
        instrs.append(Instr(regs, x, a, 0))
    lane_mask = sum(1 << i for i, c in enumerate(hw.lane) if not c)
    return GlobalIO(width, words, Affine(0, thread_cols), tuple(instrs), lane_mask, hw.warp_broadcast_mask)
