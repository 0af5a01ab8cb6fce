"""llgen: tensor layout conversions over F2, planned and printed as CUDA and HIP."""

from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.layouts import (
    AmdMfma,
    AmdRotatingShared,
    AmdWmma,
    Blocked,
    DotOperand,
    Linear,
    NvidiaMma,
    NvmmaShared,
    PaddedShared,
    SharedLinear,
    Slice,
    SwizzledShared,
    amd_mfma,
    amd_rotating_shared,
    amd_wmma,
    blocked,
    dot_operand,
    linear,
    nvidia_mma,
    nvmma_shared,
    padded_shared,
    shared_linear,
    slice_layout,
    swizzled_shared,
)
from llgen.shapeops import TensorLayout
from llgen.spec import parse_layout

mma = nvidia_mma  # the short names users reach for first
mfma = amd_mfma
wmma = amd_wmma

__all__ = [
    "__version__",
    "AmdMfma",
    "AmdRotatingShared",
    "AmdWmma",
    "Blocked",
    "DotOperand",
    "Linear",
    "LinearLayout",
    "LlgenError",
    "NvidiaMma",
    "NvmmaShared",
    "PaddedShared",
    "SharedLinear",
    "Slice",
    "SwizzledShared",
    "TensorLayout",
    "amd_mfma",
    "amd_rotating_shared",
    "amd_wmma",
    "blocked",
    "dot_operand",
    "linear",
    "mfma",
    "mma",
    "nvidia_mma",
    "nvmma_shared",
    "padded_shared",
    "parse_layout",
    "plan_conversion",
    "plan_gather",
    "shared_linear",
    "slice_layout",
    "swizzled_shared",
    "wmma",
]

_LAZY = {"plan_conversion": "plan", "plan_gather": "plan.gather"}  # the planner loads on first use, not on `import llgen`


def __getattr__(name: str):
    if name == "__version__":  # read from the installed metadata on first use, not on `import llgen`
        from llgen.core.version import llgen_version

        return llgen_version()
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'llgen' has no attribute {name!r}")
