"""What a spec is parsed for (`Context`): the tensor shape, the warp count, the warp size and the element
size, checked once, which short.py and ttgir.py read as they build an encoding; and where the spec sits
(`Where`: its element size, its file's aliases, its target), which a caller may add to the warps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llgen.core.errors import LlgenError

if TYPE_CHECKING:
    from llgen.spec.ttgir import Aliases


@dataclass(frozen=True)
class Where:
    """Where a spec sits beyond its warps: in a tensor of ``dtype_bytes`` elements (a shared layout's vector and
    swizzle depend on it), in a TTGIR file whose ``#name`` aliases it may use (llgen.spec.module), on a ``target``
    whose warp size a spec that states none takes (None: the kind's own)."""

    dtype_bytes: int = 2
    aliases: Aliases | None = None
    target: str | None = None


ANYWHERE = Where()  # a spec on its own: 2-byte elements, no aliases, no target


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

    def where(self) -> Where:
        """The element size and aliases a spec nested in this one (a ``parent=(SPEC)``) is read with."""
        return Where(self.dtype_bytes, self.aliases)
