"""Layout families, one module each; every constructor returns a `LinearLayout` (see common.py
for the conventions they share)."""

from .amd import AmdMfma, AmdWmma, amd_mfma, amd_wmma
from .blocked import Blocked, Linear, Slice, blocked, linear, slice_layout
from .common import cga_from_split
from .dot import DotOperand, dot_operand
from .nvidia import NvidiaMma, nvidia_mma
from .shared import NvmmaShared, SwizzledShared, nvmma_shared, swizzled_shared

__all__ = [
    "AmdMfma",
    "AmdWmma",
    "Blocked",
    "DotOperand",
    "Linear",
    "NvidiaMma",
    "NvmmaShared",
    "Slice",
    "SwizzledShared",
    "amd_mfma",
    "amd_wmma",
    "blocked",
    "cga_from_split",
    "dot_operand",
    "linear",
    "nvidia_mma",
    "nvmma_shared",
    "slice_layout",
    "swizzled_shared",
]
