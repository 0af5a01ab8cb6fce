"""llgen.runtime: compile emitted kernels (CuPy/NVRTC, hip-python/hiprtc), run them, check every element.

CuPy and hip-python are imported only when a kernel is compiled; without either, `compile` and `check` raise
`RuntimeUnavailable` with one sentence saying what is missing.
"""

from llgen.runtime.check import Batching, CheckResult, CheckRuns, check, check_many
from llgen.runtime.compile import CompileFailed, RuntimeUnavailable, compile, device

__all__ = [
    "Batching",
    "CheckResult",
    "CheckRuns",
    "CompileFailed",
    "RuntimeUnavailable",
    "check",
    "check_many",
    "compile",
    "device",
]
