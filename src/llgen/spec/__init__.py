"""Parse a layout spec into a `LinearLayout`: the entry points, the checks of shape, warp count and
warp size, and ``@path.json`` files (parse.py, with `Context` and `Where` in context.py); this module only
re-exports them.

A spec is a short form ``kind[:key=value,...]`` (short.py), a Triton TTGIR attribute exactly as
Triton prints it (ttgir.py), or ``@path.json``, a layout in `LinearLayout.to_dict` form. Bare names
take the defaults of defaults.py, re-exported here. Every error is an `LlgenError` with one sentence
naming the bad value.
"""

from __future__ import annotations

from llgen.spec.context import Context, Where
from llgen.spec.defaults import (
    accumulator_guess,
    coalesced_blocked,
    default_max_phase,
    default_mfma_instr_shape,
    default_mma_k_width,
    default_per_phase,
    default_swizzle_bytes,
    default_swizzled_vec,
    default_wgmma_instr_shape,
    default_wgmma_n,
    default_wmma_instr_shape,
    warps_per_tile,
    warps_per_tile_v3,
)
from llgen.spec.parse import parse_encoding, parse_layout

__all__ = [
    "Context",
    "Where",
    "accumulator_guess",
    "coalesced_blocked",
    "default_max_phase",
    "default_mfma_instr_shape",
    "default_mma_k_width",
    "default_per_phase",
    "default_swizzle_bytes",
    "default_swizzled_vec",
    "default_wgmma_instr_shape",
    "default_wgmma_n",
    "default_wmma_instr_shape",
    "parse_encoding",
    "parse_layout",
    "warps_per_tile",
    "warps_per_tile_v3",
]
