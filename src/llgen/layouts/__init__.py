"""Layout families, one module each; every constructor returns a `LinearLayout` (see common.py
for the conventions they share)."""

from llgen.layouts.amd import AmdMfma, AmdWmma, amd_mfma, amd_wmma
from llgen.layouts.blocked import Blocked, Linear, Slice, blocked, linear, slice_layout, swapped
from llgen.layouts.common import cga_from_split
from llgen.layouts.dot import DotOperand, dot_operand
from llgen.layouts.nvidia import NvidiaMma, nvidia_mma
from llgen.layouts.shared import (
    AmdRotatingShared,
    NvmmaShared,
    SwizzledShared,
    amd_rotating_shared,
    nvmma_shared,
    swizzled_shared,
)
from llgen.layouts.shared_linear import PaddedShared, SharedLinear, padded_shared, shared_linear

__all__ = [
    "AmdMfma",
    "AmdRotatingShared",
    "AmdWmma",
    "Blocked",
    "DotOperand",
    "Linear",
    "NvidiaMma",
    "NvmmaShared",
    "PaddedShared",
    "SharedLinear",
    "Slice",
    "SwizzledShared",
    "amd_mfma",
    "amd_rotating_shared",
    "amd_wmma",
    "blocked",
    "cga_from_split",
    "dot_operand",
    "linear",
    "nvidia_mma",
    "nvmma_shared",
    "padded_shared",
    "shared_linear",
    "swapped",
    "slice_layout",
    "swizzled_shared",
]
