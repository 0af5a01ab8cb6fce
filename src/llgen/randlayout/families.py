"""The families drawn from their own random parameters: blocked and the matrix-instruction layouts (mma, wgmma,
mfma, wmma) with their dot operands."""

from __future__ import annotations

import random

from llgen import layouts as L
from llgen.layouts.amd import WMMA_K_WIDTHS
from llgen.randlayout.bits import _dot_sized, _fill, _log2, _matrix_warps, _room, _row_major, _split, _tiles_per_warp
from llgen.randlayout.ctx import Ctx, Make
from llgen.spec.defaults import default_mma_k_width


def draw_blocked(rng: random.Random, ctx: Ctx) -> tuple[str, Make]:
    """Triton's BlockedEncoding. A third of the time what the coalesce pass picks for a row-major
    tensor (16 bytes per thread along the fastest dim, lanes then warps fastest dim first); else
    random: order row-major or shuffled, size_per_thread up to the 16-byte vector along the fastest
    dim and up to 4 elsewhere, lanes and warps split at random over the dims, mostly where the
    tensor has room for them."""
    rank, vec = ctx.rank, 16 // ctx.dtype_bytes
    if rng.random() < 0.35:
        order = _row_major(rank)
        spt = [1] * rank
        spt[order[0]] = min(vec, ctx.shape[order[0]])
        tpw = _fill(_log2(ctx.lanes), [_log2(s // p) for s, p in zip(ctx.shape, spt, strict=True)], order)
        wpc = _fill(_log2(ctx.warps), [_log2(max(1, s // (p * t))) for s, p, t in zip(ctx.shape, spt, tpw, strict=True)], order)
    else:
        order = _row_major(rank)
        if rng.random() < 0.4:
            rng.shuffle(order)
        spt = [rng.choice((1, 1, 1, 2, 4)) for _ in range(rank)]
        spt[order[0]] = rng.choice((1, 2, 4, vec, vec))
        fitted = rng.random() < 0.75
        tpw = _split(rng, _log2(ctx.lanes), _room(ctx.shape, spt) if fitted else rank)
        wpc = _split(rng, _log2(ctx.warps), _room(ctx.shape, spt, tpw) if fitted else rank)
    return "blocked", lambda: L.Blocked(
        size_per_thread=tuple(spt), threads_per_warp=tuple(tpw), warps_per_cta=tuple(wpc), order=tuple(order)
    )


def _mma_v2_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """NvidiaMma v2 parameters: instr [16, 8] ([1, 16, 8] with a batch dim, as Triton 3.6 wants)."""
    if ctx.lanes != 32 or ctx.rank not in (2, 3) or not _dot_sized(ctx.shape):
        return None
    instr = (16, 8) if ctx.rank == 2 else (1, 16, 8)
    return {"version": 2, "warps_per_cta": _matrix_warps(rng, ctx, (16, 8)), "instr_shape": instr}


def draw_mma_v2(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The mma v2 (mma.sync) accumulator: instr [16, 8], warps as Triton's warpsPerTile picks them
    or split at random; rank 2, or 3 with a leading batch dim."""
    p = _mma_v2_params(rng, ctx)
    return None if p is None else ("mma_v2", lambda: L.NvidiaMma(**p))


def _wgmma_n(rng: random.Random, n_size: int, warps_n: int) -> int:
    """wgmma's N: the widest power of two in 8..256 that one warp's share of N holds (as Triton
    picks it) most of the time, else any of them."""
    if rng.random() < 0.6:
        return min(256, max(8, n_size // warps_n))
    return 1 << rng.randint(3, 8)


def _mma_v3_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """NvidiaMma v3 parameters: a warpgroup (4 warps) along M, the rest along M or N; instr
    [16, N, K] with K 32 bytes of the dtype. Rank 3 (a batched operand A's parent only: Triton
    builds no batched wgmma accumulator) puts the warps on the batch dim, as Gluon's convert
    tests do, or a warpgroup on M and the rest on the batch dim."""
    if ctx.lanes != 32 or ctx.rank not in (2, 3) or ctx.warps < 4 or not _dot_sized(ctx.shape):
        return None
    if ctx.rank == 3:
        wpc = rng.choice(((ctx.warps, 1, 1), (ctx.warps // 4, 4, 1)))
    else:
        wpc = (4, 1) if ctx.warps == 4 else rng.choice(((8, 1), (4, 2)))
    n = _wgmma_n(rng, ctx.shape[-1], wpc[-1])
    return {"version": 3, "warps_per_cta": wpc, "instr_shape": (16, n, max(4, 32 // ctx.dtype_bytes))}


def draw_mma_v3(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The wgmma (mma v3) accumulator, rank 2, 4 or 8 warps."""
    p = _mma_v3_params(rng, ctx) if ctx.rank == 2 else None
    return None if p is None else ("mma_v3", lambda: L.NvidiaMma(**p))


def draw_mma_v2_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A (0) or B (1) of an mma v2 dot in registers; k_width 32 bits of the dtype, or twice
    that (the upcast operands of mixed-precision dots)."""
    p = _mma_v2_params(rng, ctx)
    if p is None:
        return None
    op = rng.choice((0, 1))
    kw = default_mma_k_width(ctx.dtype_bytes) * rng.choice((1, 1, 2))
    return "mma_v2_dot", lambda: L.DotOperand(operand_index=op, parent=L.NvidiaMma(**p), k_width=kw)


def draw_mma_v3_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A of a wgmma in registers (the only operand wgmma reads from registers); rank 2, or
    3 with a batch dim."""
    p = _mma_v3_params(rng, ctx)
    if p is None:
        return None
    kw = default_mma_k_width(ctx.dtype_bytes)
    return "mma_v3_dot", lambda: L.DotOperand(operand_index=0, parent=L.NvidiaMma(**p), k_width=kw)


MFMA_K_BASE = {1: 8, 2: 4, 4: 1, 8: 1}  # K elements one lane holds per mfma, by element bytes


def _mfma_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """AmdMfma parameters for the dtype: 16x16 or 32x32 (16x16 and a 64-bit accumulator for 8-byte
    types), K from the dtype, transposed or not, tiles_per_warp; version 2 on gfx90a, else 3."""
    if ctx.lanes != 64 or ctx.rank not in (2, 3) or not _dot_sized(ctx.shape):
        return None
    non_k = 16 if ctx.dtype_bytes == 8 else rng.choice((16, 32))
    return {
        "warps_per_cta": _matrix_warps(rng, ctx, (non_k, non_k)),
        "tiles_per_warp": _tiles_per_warp(rng, ctx.rank),
        "cga_layout": (),
        "instr_shape": (non_k, non_k, MFMA_K_BASE[ctx.dtype_bytes] * 64 // non_k),
        "transposed": rng.random() < 0.5,
        "element_bitwidth": 64 if ctx.dtype_bytes == 8 else 32,
        "version": 2 if ctx.target == "gfx90a" else 3,
    }


def draw_mfma(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The mfma accumulator (wave64)."""
    p = _mfma_params(rng, ctx)
    return None if p is None else ("mfma", lambda: L.AmdMfma(**p))


def draw_mfma_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A or B of an mfma dot: k_width the K one lane holds per instruction, or twice that (kpack 2)."""
    p = _mfma_params(rng, ctx)
    if p is None:
        return None
    op = rng.choice((0, 1))
    kw = MFMA_K_BASE[ctx.dtype_bytes] * rng.choice((1, 1, 2))
    return "mfma_dot", lambda: L.DotOperand(operand_index=op, parent=L.AmdMfma(**p), k_width=kw)


def _wmma_params(rng: random.Random, ctx: Ctx) -> dict | None:
    """AmdWmma parameters: version 1 (RDNA3), 2 (RDNA4) or 3 (gfx1250, instr K 32 or 64),
    transposed or not, tiles_per_warp."""
    if ctx.lanes != 32 or ctx.rank not in (2, 3) or not _dot_sized(ctx.shape):
        return None
    version = rng.choice((1, 2, 3))
    instr = (16, 16, 16) if version < 3 else (16, 16, rng.choice((32, 64)))
    return {
        "warps_per_cta": _matrix_warps(rng, ctx, (16, 16)),
        "tiles_per_warp": _tiles_per_warp(rng, ctx.rank),
        "cga_layout": (),
        "version": version,
        "transposed": rng.random() < 0.5,
        "instr_shape": instr,
    }


def draw_wmma(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """The wmma accumulator (wave32)."""
    p = _wmma_params(rng, ctx)
    return None if p is None else ("wmma", lambda: L.AmdWmma(**p))


def draw_wmma_dot(rng: random.Random, ctx: Ctx) -> tuple[str, Make] | None:
    """Operand A or B of a wmma dot, k_width one of those Triton 3.6 accepts for the version."""
    p = _wmma_params(rng, ctx)
    if p is None:
        return None
    op = rng.choice((0, 1))
    kw = rng.choice(WMMA_K_WIDTHS[p["version"]])
    return "wmma_dot", lambda: L.DotOperand(operand_index=op, parent=L.AmdWmma(**p), k_width=kw)
