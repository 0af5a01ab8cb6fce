"""What the drawing shares and returns: the pair's context, a drawn layout, a pair, a family's entry, and the size limits."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from llgen.core.dtypes import DTYPES as ALL_DTYPES
from llgen.core.layout import LinearLayout

DTYPES = [
    name for name, d in ALL_DTYPES.items() if not d.sub_byte and name != "e8m0"
]  # the value types, i8 to f64 (scales move as i8 does)
PATHS = [None, None, "shared", "shuffle"]  # requested paths of random cases: default twice as often
THREAD_ELEMENTS, THREAD_BYTES = 128, 512  # the most of an ordinary tile one thread may hold (128 32-bit registers)
LARGE_THREAD_ELEMENTS, LARGE_THREAD_BYTES = 256, 1024  # of a large tile (256x256 f32 over 8 warps of 32)
SMALL_ELEMENTS = 8192  # the most elements of an ordinary tile; large tiles (a few percent) go past it
LARGE_ELEMENTS = 65536  # the most elements of a large tile
RANK3_PENDING = ("mma_v2", "mfma", "wmma")  # families whose rank-3 form the constructors may not take yet
RANK3_REFUSALS: Counter[str] = Counter()  # family -> rank-3 draws the constructors refused (see _draw_family)
RANK3_REASONS: dict[str, str] = {}  # family -> the first refusal's message

Make = Callable[[], object]  # builds an encoding (constructors run inside _draw_family's one try)
Drawer = Callable[[random.Random, "Ctx"], "tuple[str, Make] | None"]


class Ctx(NamedTuple):
    """What every layout of a pair shares."""

    shape: tuple[int, ...]
    warps: int
    lanes: int
    dtype_bytes: int
    target: str

    @property
    def rank(self) -> int:
        return len(self.shape)


class Drawn(NamedTuple):
    """One drawn layout: its family name (``slice(mma_v2)``, ``linear(trans mfma)``, ...), the encoding
    object it was built from and the `LinearLayout`."""

    family: str
    encoding: object
    layout: LinearLayout


class Pair(NamedTuple):
    """Two layouts of the same tensor, warp count and dtype, for one target."""

    label: str
    a: LinearLayout
    b: LinearLayout
    dtype: str
    target: str
    family_a: str
    family_b: str


@dataclass(frozen=True)
class Family:
    name: str
    lanes: tuple[int, ...]  # warp sizes it runs on
    ranks: tuple[int, ...]
    weight: float  # how often it is drawn among the families that fit
    draw: Drawer
