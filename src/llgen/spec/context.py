"""What a spec is parsed for (`Context`): the tensor shape, the warp count, the warp size and the element
size, checked once, which short.py and ttgir.py read as they build an encoding."""

from __future__ import annotations

from llgen.core.errors import LlgenError


class Context:
    """What a spec is parsed for: the tensor shape, the warp count, the requested warp size (None:
    the kind's own) and the element size, each checked."""

    def __init__(self, shape, num_warps, threads_per_warp, dtype_bytes, aliases=None):
        if not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1):
            raise LlgenError(f"warp count {num_warps} is not a power of two.")
        if threads_per_warp not in (None, 32, 64):
            raise LlgenError(f"threads per warp {threads_per_warp} must be 32 or 64.")
        if dtype_bytes not in (1, 2, 4, 8):
            raise LlgenError(f"element size {dtype_bytes} bytes must be 1, 2, 4 or 8.")
        self.shape, self.num_warps, self.tpw, self.dtype_bytes = shape, num_warps, threads_per_warp, dtype_bytes
        self.aliases = aliases

    def warp_size(self, kind_default: int = 32) -> int:
        return self.tpw or kind_default

    def with_shape(self, shape):
        return Context(tuple(shape), self.num_warps, self.tpw, self.dtype_bytes, self.aliases)
