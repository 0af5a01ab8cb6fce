"""The defaults a bare or partial spec gets, each a named function: Triton's heuristics where Triton
has one (coalesced_blocked, warps_per_tile, warps_per_tile_v3, ...), else llgen's stated guess."""

from __future__ import annotations

import math
from collections.abc import Sequence

from llgen import layouts as L
from llgen.core.errors import LlgenError


def coalesced_blocked(shape: Sequence[int], num_warps: int, threads_per_warp: int, dtype_bytes: int) -> L.Blocked:
    """What Triton's coalesce pass picks for a contiguous row-major tensor: 16 bytes per thread
    along the last dim (fewer when the tensor has fewer elements than that per thread), then
    lanes and warps spread fastest dim first (BlockedEncodingAttr::get)."""
    rank = len(shape)
    order = list(range(rank - 1, -1, -1))
    per_thread = min(16 // dtype_bytes, shape[-1], max(1, math.prod(shape) // (num_warps * threads_per_warp)))
    spt = [1] * rank
    spt[-1] = per_thread
    tpw, wpc = blocked_threads([s // t for s, t in zip(shape, spt, strict=True)], order, threads_per_warp, num_warps)
    return L.Blocked(tuple(spt), tpw, wpc, tuple(order))


def blocked_threads(extents: Sequence[int], order: Sequence[int], lanes: int, warps: int) -> tuple[tuple, tuple]:
    """(threadsPerWarp, warpsPerCTA) as BlockedEncodingAttr::get hands a warp's lanes and the CTA's warps to the dims,
    fastest first, each dim taking at most its ``extents`` (elements over sizePerThread); the slowest dim takes the
    rest."""
    rank = len(extents)
    tpw, wpc = [1] * rank, [1] * rank
    left_lanes, left_threads, left_warps, prev_lanes, prev_warps = lanes, warps * lanes, warps, 1, 1
    for i in order[:-1]:
        threads = min(max(left_threads, 1), max(1, extents[i]))
        tpw[i] = min(max(threads, 1), left_lanes)
        wpc[i] = min(max(threads // tpw[i], 1), left_warps)
        left_warps //= wpc[i]
        left_lanes //= tpw[i]
        left_threads //= threads
        prev_lanes *= tpw[i]
        prev_warps *= wpc[i]
    tpw[order[-1]] = lanes // prev_lanes
    wpc[order[-1]] = warps // prev_warps
    return tuple(tpw), tuple(wpc)


def warps_per_tile(shape: Sequence[int], num_warps: int, shape_per_warp: Sequence[int]) -> tuple[int, ...]:
    """Triton's warpsPerTile for mma v2 / mfma / wmma: every warp on the batch dim of a rank-3
    (batched) dot; otherwise double the M warps while M has more instruction tiles per warp than
    N has pairs of them, else double the N warps."""
    if len(shape) not in (2, 3):
        raise LlgenError(f"shape {list(shape)} has rank {len(shape)}, but a dot layout needs rank 2 or 3.")
    if len(shape) == 3:
        return (num_warps, 1, 1)
    m, n = shape[-2], shape[-1]
    pm, pn = shape_per_warp
    ret = [1, 1]
    while ret[0] * ret[1] < num_warps:
        if m // pm // ret[0] >= n // (pn * 2) // ret[1]:
            if ret[0] < m // pm:
                ret[0] *= 2
            else:
                ret[1] *= 2
        else:
            ret[1] *= 2
    return tuple(ret)


def warps_per_tile_v3(shape: Sequence[int], num_warps: int, n: int) -> tuple[int, int]:  # noqa: ARG001 - public API; Triton's warpsPerTileV3 also takes the instruction N and never reads it
    """Triton's warpsPerTileV3: a warpgroup of 4 along M, then double M while M is larger than
    the warps' rows, else N."""
    ret = [4, 1]
    while ret[0] * ret[1] < num_warps:
        if shape[0] > 16 * ret[0]:
            ret[0] *= 2
        else:
            ret[1] *= 2
    return tuple(ret)


def default_wgmma_n(shape: Sequence[int]) -> int:
    """The widest wgmma N (at most 256) that the tensor's N holds."""
    return min(256, shape[-1])


def default_wgmma_instr_shape(n: int, dtype_bytes: int) -> list[int]:
    """A wgmma instruction of 16 x ``n`` whose K spans 32 bytes of the element type."""
    return [16, n, 32 // dtype_bytes]


def accumulator_guess(shape: Sequence[int], operand_index: int) -> list[int]:
    """The accumulator shape a default dot parent is chosen for: square in the operand's non-K
    dim (M x M for A, N x N for B), since the operand's shape does not tell the other one."""
    if len(shape) not in (2, 3):
        raise LlgenError(f"shape {list(shape)} has rank {len(shape)}, but a dot operand needs rank 2 or 3.")
    non_k = shape[-2] if operand_index == 0 else shape[-1]
    return list(shape[:-2]) + [non_k, non_k]


def default_mfma_instr_shape(non_k: int, dtype_bytes: int) -> list[int]:
    """An mfma instruction of ``non_k`` x ``non_k`` whose K spans 16 bytes (32x32) or 32 bytes (16x16)
    of the element type."""
    return [non_k, non_k, (8 if non_k == 32 else 16) * 2 // max(1, dtype_bytes)]


def default_wmma_instr_shape(version: int) -> list[int]:
    """Triton's default wmma instrShape is 16x16x16, which gfx1250 (v3) does not have; there the
    16-bit instruction is 16x16x32."""
    return [16, 16, 32] if version == 3 else [16, 16, 16]


def default_mma_k_width(dtype_bytes: int) -> int:
    """Consecutive K elements per 32-bit register: 2 for 16-bit types, 4 for 8-bit, 1 for 32-bit."""
    return max(1, 4 // dtype_bytes)


def default_swizzle_bytes(shape: Sequence[int], dtype_bytes: int) -> int:
    """The widest NVMMA swizzle (128, 64 or 32 bytes) a row of the tensor fills; 0 below 32 bytes."""
    row = shape[-1] * dtype_bytes
    for s in (128, 64, 32):
        if row >= s:
            return s
    return 0


def default_swizzled_vec(dtype_bytes: int) -> int:
    """Swizzled-shared vector width: 16 bytes of the element type."""
    return 16 // dtype_bytes


def default_per_phase(row_elems: int, dtype_bytes: int) -> int:
    """Swizzled-shared rows per phase: as many rows of ``row_elems`` elements as fill 128 bytes, at least 1."""
    return max(1, 128 // (row_elems * dtype_bytes))


def default_max_phase(per_phase: int) -> int:
    """Swizzled-shared phase count: as many phases of ``per_phase`` rows as cover 8 rows, at least 1."""
    return max(1, 8 // per_phase)
