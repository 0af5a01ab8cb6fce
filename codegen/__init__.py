"""llgen: tensor layout conversions over F2, planned and printed as CUDA and HIP."""

from .errors import LlgenError
from .layout import LinearLayout

__all__ = ["LinearLayout", "LlgenError"]
