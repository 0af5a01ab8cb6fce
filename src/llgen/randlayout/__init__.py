"""Random real layouts and random conversion plans, for property tests and `llgen check --random`.

A random layout is one a Triton 3.6 kernel can hold: a layout family with random valid parameters,
built with the constructors in `llgen.layouts`. The families, each drawn by its own ``draw_*``
function (in ``families`` and ``draw``):

* ``blocked``: what the coalesce pass picks, or random size_per_thread / threads_per_warp /
  warps_per_cta / order;
* ``mma_v2``, ``mma_v3``: NVIDIA mma.sync and wgmma accumulators; ``mma_v2_dot`` (operand 0 or 1)
  and ``mma_v3_dot`` (operand 0, also over a rank-3 wgmma parent) their register operands, k_width
  from the dtype;
* ``mfma`` (wave64) and ``mfma_dot``; ``wmma`` (wave32, v1/v2/v3) and ``wmma_dot``;
* ``slice(P)``: a slice of any of the above (the result of a reduction);
* ``linear``: explicit bases with broadcast (zero) columns, and the linear layouts Triton makes
  from the others: ``linear(trans P)`` (tt.trans) and ``linear(reshape P)`` (tt.reshape, join, split).

A pair shares the tensor shape (rank 1 to 3; from one element to several times a layout's
coverage, so lanes and warps broadcast on small tiles and registers repeat on large ones), the
warp count (1 to 8) and the dtype. Same seed, same pairs: the seed's `random.Random` deals one
sub-seed per pair index, so pair ``i`` does not depend on how pairs before it were drawn, and
``draw_pair(seed, i, target)`` redraws the pair a label names.

Rank 3 of mma v2, mfma and wmma (and their operands and slices) is drawn with Triton's parameters
([1, 16, 8] for mma v2); where a constructor still refuses one, `_draw_family` (the one place)
counts the refusal in `RANK3_REFUSALS` and draws another family.

Modules, one idea each: ``ctx`` (what a draw shares and returns, size limits), ``bits`` (the drawers' helpers),
``families`` (blocked and the matrix-instruction families), ``draw`` (the family table, drawing one layout, slice
and linear), ``pairs`` (shapes and pairs from a seed), ``sweep`` (random plans) and ``stats``.
"""

from llgen.randlayout.bits import has_replicas
from llgen.randlayout.ctx import (
    DTYPES,
    LARGE_ELEMENTS,
    LARGE_THREAD_BYTES,
    LARGE_THREAD_ELEMENTS,
    PATHS,
    RANK3_PENDING,
    RANK3_REASONS,
    RANK3_REFUSALS,
    SMALL_ELEMENTS,
    THREAD_BYTES,
    THREAD_ELEMENTS,
    Ctx,
    Drawer,
    Drawn,
    Family,
    Make,
    Pair,
)
from llgen.randlayout.draw import FAMILIES, draw_layout, draw_linear, draw_slice, families_for, random_layout
from llgen.randlayout.families import (
    MFMA_K_BASE,
    draw_blocked,
    draw_mfma,
    draw_mfma_dot,
    draw_mma_v2,
    draw_mma_v2_dot,
    draw_mma_v3,
    draw_mma_v3_dot,
    draw_wmma,
    draw_wmma_dot,
)
from llgen.randlayout.pairs import draw_context, draw_pair, draw_shape, random_pairs
from llgen.randlayout.stats import pair_stats, tile_bytes, top_family
from llgen.randlayout.sweep import random_cases, random_plans

__all__ = [
    "Ctx",
    "DTYPES",
    "Drawer",
    "Drawn",
    "FAMILIES",
    "Family",
    "LARGE_ELEMENTS",
    "LARGE_THREAD_BYTES",
    "LARGE_THREAD_ELEMENTS",
    "MFMA_K_BASE",
    "Make",
    "PATHS",
    "Pair",
    "RANK3_PENDING",
    "RANK3_REASONS",
    "RANK3_REFUSALS",
    "SMALL_ELEMENTS",
    "THREAD_BYTES",
    "THREAD_ELEMENTS",
    "draw_blocked",
    "draw_context",
    "draw_layout",
    "draw_linear",
    "draw_mfma",
    "draw_mfma_dot",
    "draw_mma_v2",
    "draw_mma_v2_dot",
    "draw_mma_v3",
    "draw_mma_v3_dot",
    "draw_pair",
    "draw_shape",
    "draw_slice",
    "draw_wmma",
    "draw_wmma_dot",
    "families_for",
    "has_replicas",
    "pair_stats",
    "random_cases",
    "random_layout",
    "random_pairs",
    "random_plans",
    "tile_bytes",
    "top_family",
]
