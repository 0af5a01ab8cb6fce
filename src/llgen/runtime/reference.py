"""NumPy references computed from the layouts alone, and bitwise comparison.

Data moves as raw bits, so every dtype (8-bit floats included) is generated, stored and compared as the
unsigned integer of its width: a NaN payload must arrive unchanged and -0 is not +0. Inputs are fresh random
bits for every run with no zero element and no poison element; outputs start poisoned (all ones), so a slot
the kernel never writes cannot pass by accident.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llgen.core.dtypes import DType
from llgen.core.dtypes import dtype as to_dtype
from llgen.verify.simulate import element_ids

RAW = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def raw_dtype(dt: str | DType) -> np.dtype:
    """The unsigned NumPy type of the element's width: what the generated kernels move."""
    return np.dtype(RAW[to_dtype(dt).bits])


def poison_value(raw) -> int:
    """All ones: never produced by `random_input`."""
    return int(np.iinfo(np.dtype(raw)).max)


def random_input(raw, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random raw elements in [1, max - 1]: never zero, never the poison."""
    raw = np.dtype(raw)
    return rng.integers(1, np.iinfo(raw).max, size=n, dtype=raw)  # high is exclusive


def poisoned(raw, n: int) -> np.ndarray:
    return np.full(n, poison_value(raw), dtype=np.dtype(raw))


FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def loop_input(dtype: str, raw, n: int, rng) -> np.ndarray:
    """Random tile data for LOOP: finite values for float types (their +1 is checked in NumPy),
    random non-zero bits otherwise."""
    if dtype in FLOATS:
        return rng.uniform(-64, 64, size=n).astype(FLOATS[dtype]).view(raw)
    return rng.integers(1, np.iinfo(raw).max, size=n, dtype=raw, endpoint=True)


def plus_one(dtype: str, x: np.ndarray, k: int, lang: str = "cuda") -> np.ndarray:
    """x after k round trips of the LOOP kernel: +1 k times in the tile's own arithmetic. HIP's kernels add 1 to an
    f16 element's raw bits (an integer add: they use no half-precision header), llgen.emit.bench says so too."""
    if dtype in FLOATS and not (
        dtype == "f16" and lang == "hip"
    ):  # NumPy adds float16 in float16, rounding each step as the kernel does
        v = x.view(FLOATS[dtype])
        for _ in range(k):
            v = v + FLOATS[dtype](1)
        return v.view(x.dtype)
    return (x + x.dtype.type(k)).astype(x.dtype)


def tile_elems(plan) -> int:
    return 1 << plan.src.total_out_bits


def slot_ids(plan) -> np.ndarray:
    """Flat tensor index held by each slot of B, in the debug kernel's order: slot = thread * n_out + register,
    thread = warp * lanes + lane."""
    return element_ids(plan.dst, plan.warps, plan.lanes).reshape(-1)


def expected_slots(plan, x: np.ndarray) -> np.ndarray:
    """What every (warp, lane, register) slot of B holds after converting one tile ``x`` (row-major)."""
    return x[slot_ids(plan)]


def expected_output(plan, xs: np.ndarray, num_tiles: int) -> np.ndarray:
    """The output tensor of the tile kernel: each tile is stored from B's slots, so every element B holds is
    written with its value; an element B does not hold would keep the poison."""
    tile = tile_elems(plan)
    ids = np.unique(slot_ids(plan))
    out = poisoned(xs.dtype, tile * num_tiles).reshape(num_tiles, tile)
    out[:, ids] = xs.reshape(num_tiles, tile)[:, ids]
    return out.reshape(-1)


def bits(a: np.ndarray) -> np.ndarray:
    """The same memory as unsigned integers of the element width (float16, float32, uint8 codes of fp8...)."""
    a = np.asarray(a)
    return a.view(RAW[a.dtype.itemsize * 8])


def mismatches(expected: np.ndarray, got: np.ndarray) -> np.ndarray:
    """Flat indices where the bits differ."""
    e, g = bits(expected).reshape(-1), bits(got).reshape(-1)
    if e.shape != g.shape:
        raise ValueError(f"compared arrays differ in size: {e.size} vs {g.size} elements")
    if e.dtype != g.dtype:
        raise ValueError(f"compared arrays differ in element width: {e.dtype} vs {g.dtype}")
    return np.flatnonzero(e != g)


@dataclass(frozen=True)
class BadSlot:
    """The first slot of B that differs: where it is, which element it should hold, and both bit patterns."""

    warp: int
    lane: int
    register: int
    element: int  # flat index in the tile
    coords: tuple[int, ...]
    expected: int
    got: int
    width: int  # bits

    def __str__(self) -> str:
        w = self.width // 4
        poison = " (never written: still the poison)" if self.got == (1 << self.width) - 1 else ""
        return (
            f"warp {self.warp}, lane {self.lane}, register {self.register} (element {self.element} at "
            f"{tuple(self.coords)}): expected 0x{self.expected:0{w}x}, got 0x{self.got:0{w}x}{poison}"
        )

    def to_json(self) -> dict:
        return {
            "warp": self.warp,
            "lane": self.lane,
            "register": self.register,
            "element": self.element,
            "coords": list(self.coords),
            "expected": self.expected,
            "got": self.got,
        }


def coords_of(plan, flat: int) -> tuple[int, ...]:
    shape = plan.src.shape
    out = []
    for s in reversed(shape):
        out.append(flat % s)
        flat //= s
    return tuple(reversed(out))


def first_bad_slot(plan, expected: np.ndarray, got: np.ndarray) -> BadSlot | None:
    bad = mismatches(expected, got)
    if not len(bad):
        return None
    i = int(bad[0])
    thread, reg = divmod(i, plan.n_out)
    warp, lane = divmod(thread, plan.lanes)
    elem = int(slot_ids(plan)[i])
    return BadSlot(
        warp,
        lane,
        reg,
        elem,
        coords_of(plan, elem),
        int(bits(expected).reshape(-1)[i]),
        int(bits(got).reshape(-1)[i]),
        plan.dtype.bits,
    )
