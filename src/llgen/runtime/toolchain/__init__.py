"""Compile emitted CUDA and HIP on the CPU and count what the machine code does.

A plan promises instructions: so many shuffles, ldmatrix or not, 128-bit shared loads, no local memory. The
source text cannot prove that (ptxas may split a vector, spill an array, or drop an asm), so tests compile to
real machine code and count opcodes. CUDA goes through NVRTC from pip straight to a cubin (.cuda); HIP through
Debian's clang-19 with a small header of our own in place of hip_runtime.h (.hip); .disasm holds what a
disassembly says of each function, and .cache the on-disk compile cache.

Compile many kernels in one call where you can: each call pays a fixed start-up cost of a tenth of a second
or more (NVRTC, cuobjdump), and a source with a hundred kernels costs little more than one.
"""

from __future__ import annotations

from llgen.runtime.toolchain.cache import CACHE_ENV, cached, tool_version
from llgen.runtime.toolchain.cuda import (
    CUDA_ARCHS,
    Cubin,
    compile_cuda,
    cuda_include_dir,
    cuobjdump_text,
    disassemble_cubin,
    nvcc,
    nvrtc_library,
    resources_of,
    sass_key,
)
from llgen.runtime.toolchain.disasm import AmdIsa, HipKernel, KernelMap, Resources, Sass
from llgen.runtime.toolchain.errors import ToolchainError, ToolchainUnavailable
from llgen.runtime.toolchain.hip import HIP_ARCHS, HIP_SHIM, HipObject, compile_hip, disassemble_hip

__all__ = [
    "CACHE_ENV",
    "CUDA_ARCHS",
    "HIP_ARCHS",
    "HIP_SHIM",
    "AmdIsa",
    "Cubin",
    "HipKernel",
    "HipObject",
    "KernelMap",
    "Resources",
    "Sass",
    "ToolchainError",
    "ToolchainUnavailable",
    "cached",
    "compile_cuda",
    "compile_hip",
    "cuda_include_dir",
    "cuobjdump_text",
    "disassemble",
    "nvcc",
    "nvrtc_library",
    "resources_of",
    "sass_key",
    "tool_version",
]


def disassemble(binary: Cubin | HipObject) -> KernelMap:
    """Every function of a compiled binary: Sass for a Cubin (cuobjdump -sass), AmdIsa for a HipObject (llvm-objdump)."""
    if isinstance(binary, Cubin):
        return disassemble_cubin(binary)
    return disassemble_hip(binary)
