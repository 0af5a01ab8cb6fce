"""The bench kernels' policy: the LOOP, STREAM and copy kernels of a conversion and its way back
(docs/design.md §10), where the LOOP kernel keeps its two scratch buffers, how many one-warp groups share a
STREAM CTA, and the tile's own `+ 1` between round trips.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import context, scratch_bytes
from .conversion import check_name, environment
from .spelling import RegArray


def emit_bench(fwd, bwd, name: str, unroll: int | None = None) -> str:
    """LOOP, STREAM and copy kernels for a conversion and its way back (docs/design.md §10); ``unroll`` overrides
    how many tiles STREAM and copy load per step (stream_unroll)."""
    check_name(name)
    env = environment()
    cf, cb = context(fwd, f"{name}_fwd"), context(bwd, f"{name}_bwd")
    # the +1 and +s act on packed words ``w`` of the typed registers (pack/unpack around them fold away)
    a, b = RegArray("w", fwd.dtype.bits, fwd.n_in), RegArray("w", fwd.dtype.bits, fwd.n_out)
    ctx = {
        "name": name,
        "fwd": f"{name}_fwd",
        "bwd": f"{name}_bwd",
        "lang": fwd.target.lang,
        "raw": fwd.dtype.raw,
        "dtype": fwd.dtype.name,
        "keep": "v" if fwd.target.lang == "hip" else ("l" if b.ctype == "unsigned long long" else "r"),
        "threads": cf["threads"],
        "tile": cf["tile"],
        "n_a": fwd.n_in,
        "n_b": fwd.n_out,
        "n_aw": a.words,
        "n_bw": b.words,
        "per": a.per,
        "word": a.ctype,
        # STREAM and copy: each one-warp group loads two tiles before converting either, to keep more bytes in flight
        "groups": stream_groups(fwd, bwd),
        "unroll": unroll or stream_unroll(fwd),
        "stream_smem": stream_smem(fwd, bwd),
        # a permutation of registers both ways: carry elements (packed words would repack every step); a noop keeps
        # words, which are already B's
        "elementwise": {fwd.path, bwd.path} <= {"noop", "registers"} and "registers" in {fwd.path, bwd.path},
        "inc_elem": _add_one_elem(fwd.dtype, "b[j]", fwd.target.lang),
        "keep_elem": _keep_elem(fwd.dtype.bits, fwd.target.lang),
        "keep_cast": "static_cast<unsigned>" if fwd.dtype.bits == 8 else "",
        "inc_b": [f"w[{k}] = {_add_one(fwd.dtype.name, b, k, fwd.target.lang)};" for k in range(b.words)],
        "add_b": [f"w[{k}] = {b.add_each(k, 's')};" for k in range(b.words)],
        "add_a": [f"w[{k}] = {a.add_each(k, 's')};" for k in range(a.words)],
        "smem_bytes": max(cf["smem_bytes"], cb["smem_bytes"]),
        "fwd_smem": cf["smem_bytes"],
        "bwd_smem": cb["smem_bytes"],
        "loop_scratch": loop_scratch(fwd, bwd),
        "fwd_source": env.get_template("convert.j2").render(**cf),
        "bwd_source": env.get_template("convert.j2").render(**cb),
    }
    return env.get_template("bench.j2").render(**ctx)


@dataclass(frozen=True)
class LoopScratch:
    """The LOOP kernel's dynamic shared memory: ``bytes`` in all, A -> B's scratch at ``fwd_offset`` (B -> A's at 0)."""

    bytes: int
    fwd_offset: int

    @property
    def two_buffers(self) -> bool:
        return self.fwd_offset > 0


def loop_scratch(fwd, bwd) -> LoopScratch:
    """Where the LOOP kernel's A -> B and B -> A keep their scratch. In one buffer each conversion needs a barrier
    before its stores, since the other may still be reading. In two buffers it does not: the other conversion's
    barrier between its stores and its loads already stands between a buffer's last load and its next store, so
    each conversion saves a barrier. That holds when both use shared memory behind __syncthreads and both fit in
    one CTA's shared memory. A __syncwarp costs next to nothing, so two buffers would only cost registers there:
    warp-synchronous plans keep one. A -> B's buffer goes after B -> A's, on a 128-byte boundary so its banks are
    unchanged: that order compiled to fewer registers than the other. The measurements are in bench/NOTES.md
    (session 4, "One barrier per conversion")."""
    f, b = scratch_bytes(fwd), scratch_bytes(bwd)
    if f and b and _cta_wide(fwd) and _cta_wide(bwd):
        offset = -(-b // 128) * 128
        if offset + f <= fwd.target.smem_per_cta:
            return LoopScratch(offset + f, offset)
    return LoopScratch(max(f, b), 0)


def _cta_wide(plan) -> bool:
    """Whether the plan's shared-memory barrier is __syncthreads (HIP always; CUDA unless warps keep to their own scratch)."""
    return plan.target.lang == "hip" or not plan.detail.warp_sync


def stream_groups(fwd, bwd=None) -> int:
    """How many copies of the layout's CTA one STREAM/copy CTA runs side by side, each on its own tiles and its own
    scratch. An SM holds at most 32 CTAs, so one-warp CTAs fill only half its warp slots unless several share a
    CTA (bench/NOTES.md, probe 1). Only a one-warp CUDA conversion can share its CTA this way: it synchronises with
    __syncwarp, so each warp may stop at its own last tile. HIP's conversions use __syncthreads and keep one group.
    The groups' scratch together must fit one CTA's shared memory."""
    if fwd.warps != 1 or fwd.target.lang != "cuda":
        return 1
    per = max(scratch_bytes(fwd), scratch_bytes(bwd) if bwd is not None else 0)
    groups = 8
    while groups > 1 and groups * per > fwd.target.smem_per_cta:
        groups //= 2
    return groups


def stream_unroll(fwd) -> int:
    """Tiles each STREAM/copy step loads before converting any: two for one-warp groups, else one."""
    return 2 if fwd.warps == 1 else 1


def stream_smem(fwd, bwd) -> int:
    """Dynamic shared memory of the STREAM kernel: every group's scratch (0 when neither way needs any)."""
    return stream_groups(fwd, bwd) * max(scratch_bytes(fwd), scratch_bytes(bwd))


def _add_one(dtype: str, arr: RegArray, k: int, lang: str) -> str:
    """Word k of ``arr`` plus one in the tile's own arithmetic, as Triton's loop computes `y + 1`:
    a packed f16x2 add (one HADD2 per word), a float or double add, or an integer add per element (HIP's f16 too:
    its kernels include no half-precision header; runtime.reference.plus_one expects the same)."""
    w = f"{arr.name}[{k}]"
    if dtype == "f16" and lang == "cuda":
        return f"llgen_add_one_f16x2({w})"
    if dtype == "f32":
        return f"__float_as_uint(__uint_as_float({w}) + 1.0f)"
    if dtype == "f64":
        return f"static_cast<unsigned long long>(__double_as_longlong(__longlong_as_double(static_cast<long long>({w})) + 1.0))"
    return arr.add_each(k, "1u")


def _add_one_elem(dt, x: str, lang: str) -> str:
    """One element ``x`` (its raw bits) plus one in the tile's own arithmetic: an f16 add (HADD2 on one half), a
    float or double add, or an integer add."""
    if dt.name == "f16" and lang == "cuda":
        return f"llgen_add_one_f16({x})"
    if dt.name == "f32":
        return f"__float_as_uint(__uint_as_float({x}) + 1.0f)"
    if dt.name == "f64":
        return f"static_cast<unsigned long long>(__double_as_longlong(__longlong_as_double(static_cast<long long>({x})) + 1.0))"
    return f"static_cast<{dt.raw}>({x} + 1u)"


def _keep_elem(bits: int, lang: str) -> str:
    if lang == "hip":
        return "v"
    return {64: "l", 16: "h"}.get(bits, "r")
