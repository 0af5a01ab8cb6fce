"""A 4-bit plan (llgen.plan.packed) spelled as its byte plan's text, with the packing said in the opening comment and,
for a conversion, ``convert_packed``: the conversion on packed registers (element 2i in the low nibble of byte i).
Pairs are the byte plan as it is; nibbles widen, convert and pack. The check kernel of nibbles moves a byte's low and
high nibbles as two 4-bit conversions, so the unchanged check compares every bit."""

from __future__ import annotations

import hashlib
import json
import re

from llgen.emit import conversion, endpoint, gather

_BYTES = {"conversion": conversion, "endpoint": endpoint, "gather": gather}


def name(plan, kinds: tuple[str, str] | None = None) -> str:
    """``cvt_`` (a conversion), ``st_`` or ``ld_`` (an endpoint), then ``<kinds or path>_<dtype>_<shape>_<hash>`` as
    the byte plans' names, the hash over both 4-bit layouts, an endpoint's padding, the dtype, the target and the warps."""
    padding = [list(p) for p in plan.inner.buffer.intervals] if plan.endpoint else []  # S's padding is not in its map
    key = json.dumps(
        [plan.src.to_dict(), plan.dst.to_dict(), padding, plan.dtype.name, plan.target.name, plan.warps, plan.inner.kind],
        sort_keys=True,
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    what = "2".join(re.sub(r"[^A-Za-z0-9]", "", k) or "x" for k in kinds) if kinds else plan.path
    prefix = "gather" if plan.gather else "cvt" if not plan.endpoint else ("st" if plan.inner.direction == "store" else "ld")
    return f"{prefix}_{what}_{plan.dtype.name}_{'x'.join(map(str, plan.src.shape))}_{digest}"


def packing(plan) -> dict:
    """What the templates say and build of the packing."""
    return {
        "dtype": plan.dtype.name,
        "line": plan.bytes_line(),
        "nibbles": plan.form == "nibbles",
        "pair": None if plan.pair is None else plan.pair.describe(plan.src),
        "in_elems": plan.n_in,
        "out_elems": plan.n_out,
        # the registers a conversion or a load ends in, to f16/bf16 (CUDA's or HIP's half types)
        "upcast": not plan.gather and (not plan.endpoint or plan.inner.direction == "load"),
    }


def render(plan, form: str, kernel_name: str, command: str | None = None, header_file: str | None = None) -> str:
    return _BYTES[plan.inner.kind].render(plan.inner, form, kernel_name, command, header_file, packing(plan))


def dynamic_smem(plan) -> int:
    return _BYTES[plan.inner.kind].dynamic_smem(plan.inner)
