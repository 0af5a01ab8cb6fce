"""``@path.json``: a layout in `LinearLayout.to_dict` form, read with llgen's caps and checked before it is built."""

from __future__ import annotations

import json

from llgen.core.errors import LlgenError
from llgen.core.files import read_text
from llgen.core.layout import LinearLayout
from llgen.core.limits import MAX_JSON_BYTES, MAX_NUMBER, MAX_SLOT_BITS, check_depth

_INS = ({"register", "lane", "warp", "block"}, {"offset", "block"})


def read_json_layout(path: str, shape) -> LinearLayout:
    """The layout of ``path`` over ``shape`` (which must be the file's own)."""
    lay = LinearLayout.from_dict(_load(path))
    if lay.shape != tuple(shape):
        raise LlgenError(f"layout file '{path}' covers shape {list(lay.shape)}, not the requested {list(shape)}.")
    return lay


def json_counts(path: str) -> tuple[int, int]:
    """(warps, lanes) of the layout in ``path``: 2**(number of warp bases), 2**(number of lane bases)."""
    bases = _load(path)["bases"]
    return 1 << len(bases.get("warp", [])), 1 << len(bases.get("lane", []))


def _load(path: str) -> dict:
    """The checked to_dict form in ``path``."""
    text = read_text(path, MAX_JSON_BYTES, "layout file")
    check_depth(text, f"layout file '{path}'")
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise LlgenError(f"layout file '{path}' is not JSON ({e.msg} at line {e.lineno} column {e.colno}).") from None
    except RecursionError:
        raise LlgenError(f"layout file '{path}' nests too deep.") from None
    _check_dict(data, path)
    return data


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise LlgenError(f"a layout file repeats the key '{k}'.")
    return dict(pairs)


def _no_constant(name):
    raise LlgenError(f"a layout file may not hold {name}.")


def _check_dict(d, path: str) -> None:
    """The shape of a to_dict form: in-dims of one kind, ints of the right count and size, sizes powers of two."""
    if not isinstance(d, dict) or not isinstance(d.get("bases"), dict) or not isinstance(d.get("out_dims"), dict):
        raise LlgenError(f"layout file '{path}' must be an object with 'bases' and 'out_dims' objects.")
    if set(d) - {"bases", "out_dims"}:
        raise LlgenError(
            f"layout file '{path}' has keys other than 'bases' and 'out_dims': {sorted(set(d) - {'bases', 'out_dims'})}."
        )
    outs = d["out_dims"]
    if list(outs) != [f"dim{i}" for i in range(len(outs))] or not outs:
        raise LlgenError(f"layout file '{path}' must name its out_dims dim0, dim1, ... in order.")
    for name, size in outs.items():
        if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_NUMBER or size & (size - 1):
            raise LlgenError(f"layout file '{path}' gives {name} the size {size}, not a power of two up to {MAX_NUMBER}.")
    ins = set(d["bases"])
    if not any(ins <= allowed for allowed in _INS):
        raise LlgenError(f"layout file '{path}' has in-dims {sorted(ins)}: use register, lane, warp, block or offset, block.")
    total = 0
    for name, vecs in d["bases"].items():
        if not isinstance(vecs, list):
            raise LlgenError(f"layout file '{path}': bases of '{name}' must be a list.")
        total += len(vecs)
        if total > MAX_SLOT_BITS:
            raise LlgenError(f"layout file '{path}' has more than {MAX_SLOT_BITS} bases, over llgen's limit.")
        for v in vecs:
            ok = isinstance(v, list) and len(v) == len(outs)
            if not ok or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= MAX_NUMBER for c in v):
                raise LlgenError(
                    f"layout file '{path}': basis {v} of '{name}' must hold {len(outs)} coordinates, each an integer from 0 to {MAX_NUMBER}."
                )
