"""CUDA on the CPU: NVRTC from pip straight to a cubin, cuobjdump from pip to read it back, and nvcc's lookup.

Never PTX only, because only ptxas checks inline asm and allocates registers; neither a GPU, a driver nor the
system's CUDA is needed.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from llgen.core.errors import LlgenError
from llgen.runtime.toolchain.cache import cached, includes_files, pack, package_version, tool_version, unpack
from llgen.runtime.toolchain.disasm import KernelMap, Resources, Sass, demangle
from llgen.runtime.toolchain.errors import ToolchainError, ToolchainUnavailable, run_tool

CUDA_ARCHS = ("sm_80", "sm_90", "sm_90a")


@dataclass(frozen=True)
class Cubin:
    """One NVRTC compilation: the cubin, the compiler's log (warnings), its wall time, and each function's resources."""

    arch: str
    data: bytes
    log: str
    seconds: float
    kernels: dict[str, Resources]


@functools.cache
def nvrtc_library():
    """cuda.bindings' nvrtc module (NVRTC from pip)."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise ToolchainUnavailable(f"NVRTC from pip is missing ({e}); pip install nvidia-cuda-nvrtc cuda-bindings") from None
    return nvrtc


@functools.cache
def cuda_include_dir() -> str:
    """nvidia-cuda-runtime's headers (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h), never the system's."""
    try:
        import cuda.pathfinder

        found = cuda.pathfinder.find_nvidia_header_directory("cudart")
    except ImportError:
        found = None
    if not found:
        raise ToolchainUnavailable("CUDA runtime headers are missing; pip install nvidia-cuda-runtime cuda-pathfinder")
    return found


@functools.cache
def _cuobjdump() -> str:
    """pip's cuobjdump (nvidia-cuda-cuobjdump), found where cuda-pathfinder looks: site-packages first."""
    try:
        import cuda.pathfinder

        found = cuda.pathfinder.find_nvidia_binary_utility("cuobjdump")
    except ImportError:
        found = shutil.which("cuobjdump")
    if not found:
        raise ToolchainUnavailable("cuobjdump is missing; pip install nvidia-cuda-cuobjdump")
    return found


@functools.cache
def nvcc() -> str:
    """nvcc for builds a user would run (tests/consumer/): pip's nvidia-cuda-nvcc, which `make test` installs, else
    one on PATH. It needs a host C++ compiler (g++) like any nvcc."""
    try:
        import cuda.pathfinder

        found = cuda.pathfinder.find_nvidia_binary_utility("nvcc")
    except ImportError:
        found = None
    found = found or shutil.which("nvcc")
    if not found:
        raise ToolchainUnavailable("nvcc is missing; pip install nvidia-cuda-nvcc")
    return found


def resources_of(binary: Path) -> dict[str, Resources]:
    """Each function's registers, stack, local and shared memory in a cubin or an executable (cuobjdump)."""
    return _resources(run_tool([_cuobjdump(), "--dump-resource-usage", str(binary)], "cuobjdump --dump-resource-usage"))


_NVRTC_FLAGS = ("-std=c++17",)


def compile_cuda(source: str, arch: str, options: tuple[str, ...] = ()) -> Cubin:
    """Compile CUDA C++ (any number of kernels) to a cubin for sm_80, sm_90 or sm_90a with NVRTC.

    `options` are extra NVRTC flags such as "-DNAME=1". A compile error raises ToolchainError with the log.
    From the compile cache (llgen.runtime.toolchain.cache), `seconds` is the first compile's.
    """
    if arch not in CUDA_ARCHS:
        raise LlgenError(f"Unknown CUDA arch {arch!r}; expected one of {', '.join(CUDA_ARCHS)}.")
    nvrtc = nvrtc_library()
    opts = [f"-arch={arch}", *_NVRTC_FLAGS, f"-I{cuda_include_dir()}", *options]

    def make() -> bytes:
        data, log, seconds = _nvrtc_compile(nvrtc, source, arch, opts)
        usage = cuobjdump_text(data, "--dump-resource-usage")
        return pack(data, log=log, seconds=seconds, usage=usage)

    versions = (_nvrtc_version(), package_version("nvidia-cuda-runtime"), tool_version(_cuobjdump()))
    e = unpack(make() if includes_files(options) else cached(("nvrtc", *versions, *opts, source), make))
    return Cubin(arch, e["data"], e["log"], e["seconds"], _resources(e["usage"]))


def sass_key(source: str, arch: str, options: tuple[str, ...] = ()) -> str:
    """A hash of what decides compile_cuda's SASS for ``source`` (text, arch, flags, the releases of NVRTC, the CUDA
    headers and cuobjdump), the same on every machine with the same packages: a baseline that stores it beside a
    kernel's opcode counts need not compile that kernel again while its text is unchanged."""
    releases = f"{_nvrtc_version()}, headers {package_version('nvidia-cuda-runtime')}, {package_version('nvidia-cuda-cuobjdump')}"
    text = "\n".join((releases, arch, *_NVRTC_FLAGS, *options, source))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def _nvrtc_version() -> str:
    _, major, minor = nvrtc_library().nvrtcVersion()
    return f"NVRTC {major}.{minor} ({package_version('nvidia-cuda-nvrtc')})"


def _nvrtc_compile(nvrtc, source: str, arch: str, opts: list[str]) -> tuple[bytes, str, float]:
    """(cubin, log, seconds) of one NVRTC compilation."""
    start = time.perf_counter()
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"llgen.cu", 0, [], [])
    _check(nvrtc, err, "nvrtcCreateProgram")
    try:
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        # NVRTC writes into the buffer: it must be a fresh bytearray. `b" " * 1` is CPython's shared
        # one-byte object, and writing the log's NUL into it turns every b" " in the process into b"\0".
        log = bytearray(size)
        nvrtc.nvrtcGetProgramLog(prog, log)
        log = bytes(log).rstrip(b"\0 ").decode(errors="replace")
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise ToolchainError(f"NVRTC failed for {arch}:\n{log}")
        _, size = nvrtc.nvrtcGetCUBINSize(prog)
        data = bytearray(size)
        _check(nvrtc, nvrtc.nvrtcGetCUBIN(prog, data)[0], "nvrtcGetCUBIN")
        data = bytes(data)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return data, log, time.perf_counter() - start


def _check(nvrtc, err, what: str) -> None:
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise ToolchainError(f"{what} failed: {err}")


def cuobjdump_text(data: bytes, flag: str) -> str:
    """cuobjdump's text for a cubin given as bytes, e.g. flag "-sass" or "--dump-resource-usage"."""
    with tempfile.TemporaryDirectory(prefix="llgen-") as tmp:
        path = Path(tmp) / "k.cubin"
        path.write_bytes(data)
        return run_tool([_cuobjdump(), flag, str(path)], f"cuobjdump {flag}")


def _resources(text: str) -> dict[str, Resources]:
    found = re.findall(r"Function (\S+):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", text)
    return {name: Resources(int(reg), int(stack), int(local), int(shared)) for name, reg, stack, shared, local in found}


_SASS_LINE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);", re.MULTILINE)


def disassemble_cubin(cubin: Cubin) -> KernelMap:
    """Every function of a cubin as Sass (cuobjdump -sass), with its resources."""
    key = ("cuobjdump -sass", tool_version(_cuobjdump()), cubin.data)
    text = cached(key, lambda: cuobjdump_text(cubin.data, "-sass").encode()).decode()
    chunks = re.split(r"^\s*Function : (\S+)\s*$", text, flags=re.MULTILINE)[1:]
    names = chunks[0::2]
    demangled = demangle(names)
    out = KernelMap()
    for name, body in zip(names, chunks[1::2], strict=True):
        found = _SASS_LINE.findall(body)
        lines = [f"{op}{rest}".rstrip() for op, rest in found]
        opcodes = Counter(op for op, _ in found)
        res = cubin.kernels.get(name, Resources(0, 0, 0, 0))
        out[name] = Sass(name, demangled[name], "\n".join(lines), opcodes, res.registers, res.stack, res.local, res.shared)
    return out
