"""HIP on the CPU: Debian's clang-19 with a small header of our own in place of hip_runtime.h, and llvm-objdump.

Neither a GPU, a driver nor ROCm is needed.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from llgen.core.errors import LlgenError
from llgen.runtime.toolchain.cache import cached, includes_files, pack, tool_version, unpack
from llgen.runtime.toolchain.disasm import AmdIsa, HipKernel, KernelMap, demangle
from llgen.runtime.toolchain.errors import ToolchainError, ToolchainUnavailable, run_tool

HIP_ARCHS = ("gfx90a", "gfx942")

# src/llgen/runtime/hip_shim.h stands in for hip/hip_runtime.h: clang-19 compiles the emitted HIP with it, no ROCm needed.
HIP_SHIM = (importlib.resources.files("llgen.runtime") / "hip_shim.h").read_text()


@dataclass(frozen=True)
class HipObject:
    """One clang-19 compilation for one gfx arch: the device ELF, clang's stderr (warnings), wall time, kernels."""

    arch: str
    data: bytes
    log: str
    seconds: float
    kernels: dict[str, HipKernel]


# Device code only, unbundled, no ROCm device libraries or headers: the shim is all the code sees.
_HIP_FLAGS = ["-x", "hip", "-nogpulib", "-nogpuinc", "--cuda-device-only", "--no-gpu-bundle-output", "-O3", "-std=c++17"]


@functools.cache
def _llvm_tool(name: str) -> str:
    found = shutil.which(f"{name}-19")
    if not found:
        raise ToolchainUnavailable(f"{name}-19 is not installed; `make hip-toolchain` installs it with apt")
    return found


def compile_hip(source: str, arch: str, options: tuple[str, ...] = ()) -> HipObject:
    """Compile HIP device code (any number of kernels) for gfx90a or gfx942 with clang-19 and HIP_SHIM.

    The shim is both force-included and reachable as <hip/hip_runtime.h>, <hip/hip_fp16.h> and <hip/hip_bf16.h>,
    so sources that include the real headers compile unchanged.
    """
    if arch not in HIP_ARCHS:
        raise LlgenError(f"Unknown HIP arch {arch!r}; expected one of {', '.join(HIP_ARCHS)}.")
    clang = _llvm_tool("clang")

    def make() -> bytes:
        with tempfile.TemporaryDirectory(prefix="llgen-") as tmp:
            tmp = Path(tmp)
            (tmp / "hip").mkdir()
            for header in ("hip_runtime.h", "hip_fp16.h", "hip_bf16.h"):
                (tmp / "hip" / header).write_text(HIP_SHIM)
            src, obj = tmp / "k.hip", tmp / "k.o"
            src.write_text(source)
            shim = [f"-I{tmp}", "-include", "hip/hip_runtime.h"]
            cmd = [clang, *_HIP_FLAGS, f"--offload-arch={arch}", *shim, *options, "-c", str(src), "-o", str(obj)]
            start = time.perf_counter()
            proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if proc.returncode != 0:
                raise ToolchainError(f"clang-19 failed for {arch}:\n{proc.stderr}")
            data = obj.read_bytes()
            notes = run_tool([_llvm_tool("llvm-readelf"), "--notes", str(obj)], "llvm-readelf --notes")
        return pack(data, log=proc.stderr, seconds=seconds, notes=notes)

    key = ("clang-19", tool_version(clang), HIP_SHIM, *_HIP_FLAGS, arch, *options, source)
    e = unpack(make() if includes_files(options) else cached(key, make))
    return HipObject(arch, e["data"], e["log"], e["seconds"], _hip_kernels(e["notes"]))


def _hip_kernels(notes: str) -> dict[str, HipKernel]:
    """Read the amdhsa.kernels list of the YAML metadata note: one `  - ` item per kernel, its keys 4 spaces in."""
    kernels, current = [], None
    for line in notes.splitlines():
        m = re.match(r"^  (- |  )\.(\w+):\s+(\S+)", line)
        if not m:
            continue
        if m.group(1) == "- ":
            current = {}
            kernels.append(current)
        current[m.group(2)] = m.group(3)

    def num(k, key):
        return int(k.get(key, 0))

    return {
        k["name"]: HipKernel(
            num(k, "vgpr_count"),
            num(k, "sgpr_count"),
            num(k, "agpr_count"),
            num(k, "private_segment_fixed_size"),
            num(k, "group_segment_fixed_size"),
            num(k, "vgpr_spill_count"),
            num(k, "sgpr_spill_count"),
            k.get("uses_dynamic_stack") == "true",
        )
        for k in kernels
        if "name" in k
    }


def disassemble_hip(obj: HipObject) -> KernelMap:
    """Every function of a HIP device object as AmdIsa (llvm-objdump -d), with its metadata."""
    objdump = _llvm_tool("llvm-objdump")

    def make() -> bytes:
        with tempfile.TemporaryDirectory(prefix="llgen-") as tmp:
            path = Path(tmp) / "k.o"
            path.write_bytes(obj.data)
            return run_tool([objdump, "-d", f"--mcpu={obj.arch}", str(path)], "llvm-objdump -d").encode()

    text = cached(("llvm-objdump -d", tool_version(objdump), obj.arch, obj.data), make).decode()
    chunks = re.split(r"^[0-9a-f]+ <(\S+)>:\s*$", text, flags=re.MULTILINE)[1:]
    names = chunks[0::2]
    demangled = demangle(names)
    out = KernelMap()
    for name, body in zip(names, chunks[1::2], strict=True):
        lines = [ln.split("//")[0].strip() for ln in body.splitlines() if ln.startswith("\t")]
        lines = [ln for ln in lines if ln]
        opcodes = Counter(ln.split()[0] for ln in lines)
        kernel = obj.kernels.get(name, HipKernel(0, 0, 0, 0, 0, 0, 0, False))
        out[name] = AmdIsa(name, demangled[name], "\n".join(lines), opcodes, kernel)
    return out
