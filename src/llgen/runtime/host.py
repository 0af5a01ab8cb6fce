"""Run emitted CUDA or HIP source on the CPU: the text llgen prints, not the plan it came from.

The simulator (llgen.verify.simulate) proves a plan; it cannot see a slip in the printed C++ (an operator
precedence, a wrong shift). Here the emitted kernels are compiled as host C++ by g++ against a small
shim: a block's GPU threads are fibers of the calling thread, each run until it waits at a barrier; a block's
threads meet at one barrier for __syncthreads, a warp's threads at the warp's own for __syncwarp and every shuffle
(each reached uniformly by the threads it syncs, in our code), and __shared__ arrays are function statics (blocks
run one after another). The inline PTX of ldmatrix/stmatrix (.m8n8.x1/x2/x4[.trans].shared.b16, in the emitted
helpers ldmatrix_x4 ...) is replaced, before compiling, by calls to the shim's llgen_host::ldmatrix/stmatrix: the
same warp exchange as a shuffle, each lane's row address published and the fragment moved as PTX defines it, so
the emitted addresses are what is tested. Shared addresses are 32 bits as on the GPU (__cvta_generic_to_shared).
Any other matrix PTX is refused in one sentence; HIP text has none. sel_f32's float select (selp.f32) becomes a C
select. The library is kept in the compile cache (llgen.runtime.toolchain.cache) by the text, the shim, the flags
and the compiler's version, so a text compiled once is loaded after.

`compile(source, target)` returns a `HostModule` with the same operations as the GPU modules
(to_device, filled, to_host, launch, synchronize), so `check_many(..., compiler=compile)` runs unchanged.
"""

from __future__ import annotations

import ctypes
import importlib.resources
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from llgen.core.errors import LlgenError
from llgen.core.target import Target
from llgen.core.target import target as to_target
from llgen.runtime.compile import CompileFailed, RuntimeUnavailable
from llgen.runtime.toolchain.cache import cached, tool_version

# One header for both languages: CUDA's names and HIP's (the HIP source includes <hip/hip_runtime.h>, which
# resolves here). LLGEN_HOST_LANES is the wave size of the target: 32 for CUDA, 64 for gfx90a/gfx942.
DYNAMIC_SCRATCH_BYTES = 256 * 1024  # the shim's LLGEN_DYNAMIC_SCRATCH: more than any target's smem_per_cta
HOST_SHIM = (importlib.resources.files("llgen.runtime") / "host_shim.h").read_text()
HOST_FP16 = (importlib.resources.files("llgen.runtime") / "host_fp16.h").read_text()  # as cuda_fp16.h and cuda_bf16.h

_KERNEL = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\([\w, ]+\) )?(\w+)\(([^)]*)\)')


def _param_types(params: str) -> list[str]:
    """`const unsigned* __restrict__ in, int n` -> ["const unsigned*", "int"]."""
    out = []
    for p in params.split(","):
        words = p.replace("__restrict__", "").replace("*", "* ").split()
        out.append(" ".join(words[:-1]))
    return out


def _trampolines(source: str) -> str:
    """One C entry per kernel: llgen_host_<name>(grid, block, args), args[i] pointing at the i-th argument."""
    out = []
    for name, params in _KERNEL.findall(source):
        types = _param_types(params)
        args = ", ".join(f"*static_cast<{t}*>(args[{i}])" for i, t in enumerate(types))
        out.append(
            f'extern "C" void llgen_host_{name}(unsigned grid, unsigned block, void** args) '
            f"{{ llgen_host::launch(grid, block, [&] {{ {name}({args}); }}); }}"
        )
    return "\n".join(out)


# asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4+%5];" : "=r"(w0), ... : "r"(p), "n"(Imm) : "memory");
_MATRIX_ASM = re.compile(
    r'asm volatile\("(ldmatrix|stmatrix)\.sync\.aligned\.m8n8\.x([124])(\.trans)?\.shared\.b16 ([^"]*);"([^;]*)\);'
)
_OPERAND = re.compile(r'"=?\w+"\s*\(([^()]*)\)')  # "=r"(w0), "r"(p), "n"(Imm): outputs then inputs, %0 %1 ...
_ANY_MATRIX_ASM = re.compile(r'asm volatile\("((?:ldmatrix|stmatrix)[^" ]*)')


def _matrix_call(m: re.Match) -> str:
    """One matrix asm statement as the shim call: `ldmatrix ... {%0, %1}, [%2+%3]` -> `llgen_host::ldmatrix<false>(
    (p)+(Imm), (w0), (w1));`, %k being the k-th operand in whatever order the template prints them."""
    op, n, trans, text, constraints = m.groups()
    operands = _OPERAND.findall(constraints)
    regs, addr = re.search(r"\{([^}]*)\}", text), re.search(r"\[([^\]]*)\]", text)
    words = [w.strip() for w in regs[1].split(",")] if regs else []
    refs = [int(k) for k in re.findall(r"%(\d+)", text)]
    if not addr or len(words) != int(n) or not all(re.fullmatch(r"%\d+", w) for w in words) or max(refs) >= len(operands):
        raise LlgenError(f"cannot read the operands of {m[0].splitlines()[0]} to run it on the CPU.")
    args = ", ".join(re.sub(r"%(\d+)", lambda k: f"({operands[int(k[1])]})", x) for x in (addr[1], *words))
    return f"llgen_host::{op}<{'true' if trans else 'false'}>({args});"


# sel_f32's float select (src/llgen/templates/macros.j2): asm("{ ... selp.f32 %0, %1, %2, p; }" : "=f"(r) : "f"(x), "f"(y), "r"(c));
_SELECT_ASM = re.compile(r'asm\("\{ \.reg \.pred p; setp\.ne\.u32 p, %3, 0; selp\.f32 %0, %1, %2, p; \}"([^;]*)\);')


def _select_statement(m: re.Match) -> str:
    r, a, b, c = _OPERAND.findall(m[1])
    return f"{r} = ({c}) != 0u ? ({a}) : ({b});"


def host_source(source: str) -> str:
    """The source as g++ compiles it here: every ldmatrix/stmatrix asm statement a shim call, the float select a C
    select. Matrix PTX the shim does not know (another shape or type) is refused in one sentence."""
    out = _SELECT_ASM.sub(_select_statement, _MATRIX_ASM.sub(_matrix_call, source))
    left = _ANY_MATRIX_ASM.search(out)
    if left:
        raise LlgenError(f"inline PTX {left[1]} cannot run on the CPU: the host shim knows ldmatrix/stmatrix .m8n8 .b16 only.")
    return out


def _compiler() -> str:
    cxx = shutil.which("g++") or shutil.which("clang++") or shutil.which("clang++-19")
    if not cxx:
        raise RuntimeUnavailable("no host C++ compiler (g++ or clang++) to run emitted kernels on the CPU.")
    return cxx


class HostModule:
    """Emitted kernels compiled for the CPU; device arrays are NumPy arrays."""

    def __init__(self, source: str, target: Target):
        # the named barrier's asm sits in a branch the CPU's instantiation discards
        source = host_source(source)
        self.target, self.lang = target, target.lang
        self._dir = tempfile.TemporaryDirectory(prefix="llgen-host-")
        tmp = Path(self._dir.name)
        text = source + "\n" + _trampolines(source) + "\n"
        cxx = _compiler()
        flags = [
            "-std=c++20",
            "-O0",
            "-shared",
            "-fPIC",
            "-w",
            f"-DLLGEN_HOST_LANES={target.lanes}u",
            f"-DLLGEN_DYNAMIC_SCRATCH_BYTES={DYNAMIC_SCRATCH_BYTES}",
            *(["-D__HIP_PLATFORM_AMD__"] if target.is_hip else []),  # as hipcc defines it: HIP text takes its HIP branch
        ]

        def make() -> bytes:
            (tmp / "hip").mkdir()
            (tmp / "llgen_host.h").write_text(HOST_SHIM)
            (tmp / "hip" / "hip_runtime.h").write_text('#include "../llgen_host.h"\n')
            for name in ("cuda_fp16.h", "cuda_bf16.h", "hip/hip_fp16.h"):
                (tmp / name).write_text(HOST_FP16)
            # HIP's names for the pair types (ROCm's hip_bf16.h): the HIP text's own includes compile and run here
            (tmp / "hip" / "hip_bf16.h").write_text('#include "hip_fp16.h"\ntypedef __nv_bfloat162 __hip_bfloat162;\n')
            (tmp / "k.cpp").write_text(text)
            shim = [f"-I{tmp}", "-include", str(tmp / "llgen_host.h")]
            proc = subprocess.run(
                [cxx, *flags, *shim, str(tmp / "k.cpp"), "-o", str(tmp / "k.so")], capture_output=True, text=True, check=False
            )
            if proc.returncode != 0:
                raise CompileFailed(proc.stderr)
            return (tmp / "k.so").read_bytes()

        # a library of its own path each time: a module's statics (__shared__ arrays) are its own
        lib = tmp / "lib.so"
        lib.write_bytes(cached(("host c++", tool_version(cxx), HOST_SHIM, HOST_FP16, *flags, text), make))
        self._lib = ctypes.CDLL(str(lib))

    def to_device(self, host: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(host).copy()

    def filled(self, n: int, dtype, value: int) -> np.ndarray:
        return np.full(n, value, dtype=dtype)

    def to_host(self, dev: np.ndarray) -> np.ndarray:
        return dev.copy()

    def launch(self, name: str, grid: int, block: int, args: tuple, smem: int = 0) -> None:
        assert smem <= DYNAMIC_SCRATCH_BYTES, f"LLGEN_DYNAMIC_SCRATCH holds {DYNAMIC_SCRATCH_BYTES} bytes on the CPU"
        # scalars travel as 8 little-endian bytes: the trampoline reads the low bytes its parameter's type needs
        keep = [
            ctypes.c_void_p(a.ctypes.data) if isinstance(a, np.ndarray) else ctypes.c_uint64(int(a) % (1 << 64)) for a in args
        ]
        argv = (ctypes.c_void_p * len(keep))(*(ctypes.cast(ctypes.pointer(k), ctypes.c_void_p) for k in keep))
        getattr(self._lib, f"llgen_host_{name}")(ctypes.c_uint(grid), ctypes.c_uint(block), argv)

    def synchronize(self) -> None:
        pass


MAX_TILES = 8  # tiles per stacked-tile run on the CPU: each tile is a block of real threads


def cpu_device(target: str | Target = "sm_90"):
    """The CPU as `llgen check --cpu` reports it, in the GPU's Device form."""
    import os
    import platform

    from llgen.runtime.compile import Device

    tgt = to_target(target) if isinstance(target, str) else target
    return Device(
        name=f"CPU threads ({platform.machine()}, {os.cpu_count()} cores)",
        arch=tgt.name,
        sms=1,
        driver="none",
        runtime=f"host C++ ({_compiler()})",
        lang=tgt.lang,
    )


def compile(source: str, target: str | Target = "sm_90") -> HostModule:
    return HostModule(source, to_target(target) if isinstance(target, str) else target)
