"""The bench kernels: the LOOP, STREAM and copy kernels of a conversion and its way back (docs/design.md §10), in the
shape the plan decided (plan/benchshape.py), with the tile's own `+ 1` between round trips.
"""

from __future__ import annotations

from llgen.emit.context import context
from llgen.emit.environment import check_name, environment
from llgen.emit.spelling import RegArray
from llgen.plan.benchshape import BenchShape


def emit_bench(fwd, bwd, name: str, shape: BenchShape) -> str:
    """LOOP, STREAM and copy kernels for a conversion and its way back (docs/design.md §10), in the ``shape`` the
    planner gave them (llgen.plan.benchshape.bench_shape)."""
    check_name(name)
    env = environment()
    cf, cb = context(fwd, f"{name}_fwd"), context(bwd, f"{name}_bwd")
    # the +1 and +s act on packed words ``w`` of the typed registers (pack/unpack around them fold away)
    a, b = RegArray("w", fwd.dtype.bits, fwd.n_in), RegArray("w", fwd.dtype.bits, fwd.n_out)
    ctx = {
        "name": name,
        "fwd": f"{name}_fwd",
        "bwd": f"{name}_bwd",
        "hip": fwd.target.is_hip,
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
        "groups": shape.groups,
        "unroll": shape.unroll,
        "stream_smem": shape.stream_smem,
        # a permutation of registers both ways: carry elements (packed words would repack every step); a noop keeps
        # words, which are already B's
        "elementwise": {fwd.path, bwd.path} <= {"noop", "registers"} and "registers" in {fwd.path, bwd.path},
        "inc_elem": _add_one_elem(fwd.dtype, "b[j]", fwd.target.lang),
        "keep_elem": _keep_elem(fwd.dtype.bits, fwd.target.lang),
        "keep_cast": "static_cast<unsigned>" if fwd.dtype.bits == 8 else "",
        "inc_b": [f"w[{k}] = {add_one(fwd.dtype.name, b, k, fwd.target.lang)};" for k in range(b.words)],
        "add_b": [f"w[{k}] = {b.add_each(k, 's')};" for k in range(b.words)],
        "add_a": [f"w[{k}] = {a.add_each(k, 's')};" for k in range(a.words)],
        "smem_bytes": max(cf["smem_bytes"], cb["smem_bytes"]),
        "fwd_smem": cf["smem_bytes"],
        "bwd_smem": cb["smem_bytes"],
        "loop_scratch": shape.loop,
        "fwd_source": env.get_template("convert.j2").render(**cf),
        "bwd_source": env.get_template("convert.j2").render(**cb),
    }
    return env.get_template("bench.j2").render(**ctx)


def add_one(dtype: str, arr: RegArray, k: int, lang: str) -> str:
    """Word k of ``arr`` plus one in the tile's own arithmetic, as Triton's loop computes `y + 1`:
    a packed f16x2 add (one HADD2 per word), a float or double add, or an integer add per element (HIP's f16 too:
    its kernels include no half-precision header; runtime.reference.plus_one expects the same). Two 16-bit elements
    with no f16 add (bf16's raw bits, Triton's int16 add) are one __vadd2 on CUDA: VIADD.16x2 on sm_90, as Triton's
    add.s16x2 compiles, where the SWAR add of add_each takes three integer ops (op_B_bf16_swizzled's one-CTA step:
    235 ns against Triton's 214 with it, its f16 twin 197)."""
    w = f"{arr.name}[{k}]"
    if dtype == "f16" and lang == "cuda":
        return f"llgen_add_one_f16x2({w})"
    if arr.per == 2 and lang == "cuda":
        return f"__vadd2({w}, 0x10001u)"
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
