"""LOOP's correctness: what the kernel must write after k round trips, and where a wrong one starts going wrong."""

from __future__ import annotations

import numpy as np

from llgen.runtime.reference import plus_one

LOOP_CHECK_K = 3  # round trips of the LOOP correctness launch


class LoopReference:
    """What the LOOP kernel must write after k round trips (+1 in the tile's arithmetic each), computed once per k."""

    def __init__(self, dtype: str, x_host: np.ndarray, tile: int):
        self.dtype, self.x, self.tile = dtype, x_host, tile
        self._by_k = {}

    def expect(self, k: int):
        import cupy as cp

        if k not in self._by_k:
            self._by_k[k] = cp.asarray(plus_one(self.dtype, self.x, k))
        return self._by_k[k]


def check_loop(launch, y, ref: LoopReference, shape) -> dict:
    """Run the LOOP kernel (``launch(k)`` writes y) for LOOP_CHECK_K round trips and compare with NumPy, bit for bit.
    On a mismatch, find where it starts: k = 0 (load A, store A: the global I/O of A -> B's load and B -> A's
    store), then k = 1, 2: the first k that fails, how many elements are wrong, and the first of them (tile,
    element, its coordinates, expected and got bits)."""
    import cupy as cp

    def bad(k):
        y[:] = 0
        launch(k)
        return cp.flatnonzero(y != ref.expect(k))

    wrong = bad(LOOP_CHECK_K)
    if wrong.size == 0:
        return {"loop_correct": True}
    out = {"loop_correct": False, "loop_bad": int(wrong.size)}
    for k in range(LOOP_CHECK_K + 1):
        w = bad(k)
        if w.size:
            i = int(w[0])
            tile, elem = divmod(i, ref.tile)
            coords = np.unravel_index(elem, tuple(shape))
            out["loop_first_bad"] = {
                "k": k,
                "bad": int(w.size),
                "tile": tile,
                "element": elem,
                "coords": [int(c) for c in coords],
                "expected": int(ref.expect(k)[i]),
                "got": int(y[i]),
                "share_of_tiles": float(np.unique(cp.asnumpy(w) // ref.tile).size / (y.size // ref.tile)),
            }
            break
    return out
