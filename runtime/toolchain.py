"""Compile emitted CUDA and HIP on the CPU and count what the machine code does.

A plan promises instructions: so many shuffles, ldmatrix or not, 128-bit shared loads, no local memory. The
source text cannot prove that (ptxas may split a vector, spill an array, or drop an asm), so tests compile to
real machine code and count opcodes. CUDA goes through NVRTC from pip straight to a cubin, never PTX only,
because only ptxas checks inline asm and allocates registers; cuobjdump from pip disassembles it. HIP goes
through Debian's clang-19 with a small header of our own in place of hip_runtime.h, so neither needs a GPU,
a driver, ROCm or the system's CUDA.

Compile many kernels in one call where you can: each call pays a fixed start-up cost of a tenth of a second
or more (NVRTC, cuobjdump), and a source with a hundred kernels costs little more than one.

With LLGEN_COMPILE_CACHE naming a folder (tests/conftest.py sets .cache/llgen-compile/), every compile and
disassembly is kept there by a hash of all that decides it: the text, the arch, the flags and the tool's version.
The same text compiled again, by another test or another pytest worker, is read back instead.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.metadata
import importlib.resources
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from llgen.errors import LlgenError

CUDA_ARCHS = ("sm_80", "sm_90", "sm_90a")
HIP_ARCHS = ("gfx90a", "gfx942")


class ToolchainError(RuntimeError):
    """A compiler or disassembler failed; the message carries its log."""


class ToolchainUnavailable(ToolchainError):
    """A tool is not installed. Tests skip with this message, which says how to install it."""


# --------------------------------------------------------------------------------------------- shared


@dataclass(frozen=True)
class Resources:
    """What cuobjdump --dump-resource-usage reports for one function; sizes in bytes."""

    registers: int
    stack: int
    local: int
    shared: int


class KernelMap(dict):
    """Kernels by mangled symbol; also found by demangled name, with or without return type and parameters.

    `m["_Z7k_localPfi"]`, `m["k_local(float*, int)"]` and `m["k_local"]` are the same kernel; extern "C"
    names are their own symbol. A short name that fits several kernels (overloads) is a KeyError.
    """

    def __missing__(self, key):
        hits = [v for v in self.values() if key in (v.demangled, _short_name(v.demangled))]
        if len(hits) == 1:
            return hits[0]
        what = "is ambiguous" if hits else "is not a kernel"
        raise KeyError(f"{key!r} {what}; kernels: {', '.join(sorted(v.demangled for v in self.values()))}")


def _short_name(demangled: str) -> str:
    """`void ns::f<int>(int*)` -> `ns::f<int>`: drop the parameter list and a template's return type."""
    depth, end = 0, len(demangled)
    for i, c in enumerate(demangled):
        depth += (c == "<") - (c == ">")
        if c == "(" and depth == 0:
            end = i
            break
    head, depth, start = demangled[:end], 0, 0
    for i, c in enumerate(head):
        depth += (c == "<") - (c == ">")
        if c == " " and depth == 0:
            start = i + 1
    return head[start:]


def _demangle(names: list[str]) -> dict[str, str]:
    """Itanium names to C++ with whichever demangler is installed; without one, names stay mangled."""
    tool = next((t for t in ("c++filt", "llvm-cxxfilt-19", "llvm-cxxfilt", "cu++filt") if shutil.which(t)), None)
    if not names or tool is None:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines(), strict=True))


# ---------------------------------------------------------------------------------------------- cache

CACHE_ENV = "LLGEN_COMPILE_CACHE"


def cached(parts: tuple[str | bytes, ...], make) -> bytes:
    """``make()``'s bytes, kept under $LLGEN_COMPILE_CACHE by a hash of ``parts`` (everything that decides them); with
    the variable unset, just ``make()``. A failure raises and is not kept. Concurrent workers write a temporary file
    and rename it, so a reader finds a whole entry or none."""
    root = os.environ.get(CACHE_ENV)
    if not root:
        return make()
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else part.encode()
        h.update(len(data).to_bytes(8, "little") + data)
    key = h.hexdigest()
    path = Path(root) / key[:2] / key
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return data


@functools.cache
def tool_version(tool: str) -> str:
    """What identifies a command-line tool's build in a cache key: its path and its `--version` text."""
    proc = subprocess.run([tool, "--version"], check=False, capture_output=True, text=True)
    return f"{tool}\n{proc.stdout}{proc.stderr}"


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _pack(data: bytes, **fields) -> bytes:
    """A binary and what was said about it (log, seconds, a tool's text) as one cache entry."""
    return json.dumps({"data": base64.b64encode(data).decode(), **fields}).encode()


def _unpack(entry: bytes) -> dict:
    fields = json.loads(entry)
    fields["data"] = base64.b64decode(fields["data"])
    return fields


def _includes_files(options) -> bool:
    """Options that let the source include files of its own: their text is not in the key, so no cache."""
    return any(o.startswith(("-I", "--include-path", "-include")) for o in options)


def _run(cmd: list[str], what: str, **kw) -> str:
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise ToolchainError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr or proc.stdout}")
    return proc.stdout


# ----------------------------------------------------------------------------------------------- CUDA


@dataclass(frozen=True)
class Cubin:
    """One NVRTC compilation: the cubin, the compiler's log (warnings), its wall time, and each function's resources."""

    arch: str
    data: bytes
    log: str
    seconds: float
    kernels: dict[str, Resources]


@dataclass(frozen=True)
class Sass:
    """One function's SASS. `opcodes` counts full opcodes without predicates, e.g. {"LDS.128": 2, "SHFL.IDX": 4}."""

    name: str
    demangled: str
    text: str
    opcodes: Counter
    registers: int
    stack: int
    local: int
    shared: int

    def count(self, prefix: str) -> int:
        """Instructions whose opcode is `prefix` or starts with `prefix.`: count("SHFL") includes SHFL.IDX."""
        return sum(n for op, n in self.opcodes.items() if op == prefix or op.startswith(prefix + "."))

    @property
    def shfl(self) -> int:
        return self.count("SHFL")

    @property
    def shfl_idx(self) -> int:
        return self.count("SHFL.IDX")

    @property
    def shfl_bfly(self) -> int:
        return self.count("SHFL.BFLY")

    @property
    def ldsm(self) -> Counter:
        """ldmatrix by variant: "x1", "x2", "x4", and "x4.T" for .trans (SASS MT88)."""
        return self._matrix("LDSM")

    @property
    def stsm(self) -> Counter:
        """stmatrix by variant, keyed like `ldsm`."""
        return self._matrix("STSM")

    @property
    def lds(self) -> Counter:
        """Shared loads by width in bits: LDS -> 32, LDS.64, LDS.128, LDS.U8/S8 -> 8, LDS.U16/S16 -> 16."""
        return self._widths("LDS")

    @property
    def sts(self) -> Counter:
        """Shared stores by width in bits, as for `lds`."""
        return self._widths("STS")

    @property
    def ldl(self) -> int:
        return self.count("LDL")

    @property
    def stl(self) -> int:
        return self.count("STL")

    @property
    def bar(self) -> int:
        return self.count("BAR")

    @property
    def prmt(self) -> int:
        return self.count("PRMT")

    @property
    def uses_local_memory(self) -> bool:
        """Spills or a stack frame: what a conversion must never have (registers indexed at run time)."""
        return bool(self.ldl or self.stl or self.stack or self.local)

    def _matrix(self, base: str) -> Counter:
        out = Counter()
        for op, n in self.opcodes.items():
            parts = op.split(".")
            if parts[0] == base:
                out[f"x{parts[-1] if parts[-1].isdigit() else 1}" + (".T" if "MT88" in parts else "")] += n
        return out

    def _widths(self, base: str) -> Counter:
        out = Counter()
        for op, n in self.opcodes.items():
            parts = op.split(".")
            if parts[0] == base:
                sizes = [int(m) for p in parts[1:] for m in re.findall(r"\d+", p)]
                out[sizes[0] if sizes else 32] += n
        return out


@functools.cache
def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise ToolchainUnavailable(f"NVRTC from pip is missing ({e}); pip install nvidia-cuda-nvrtc cuda-bindings") from None
    return nvrtc


@functools.cache
def _cuda_include() -> str:
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
    return _resources(_run([_cuobjdump(), "--dump-resource-usage", str(binary)], "cuobjdump --dump-resource-usage"))


_NVRTC_FLAGS = ("-std=c++17",)


def compile_cuda(source: str, arch: str, options: tuple[str, ...] = ()) -> Cubin:
    """Compile CUDA C++ (any number of kernels) to a cubin for sm_80, sm_90 or sm_90a with NVRTC.

    `options` are extra NVRTC flags such as "-DNAME=1". A compile error raises ToolchainError with the log.
    From the compile cache (see the module's doc), `seconds` is the first compile's.
    """
    if arch not in CUDA_ARCHS:
        raise LlgenError(f"Unknown CUDA arch {arch!r}; expected one of {', '.join(CUDA_ARCHS)}.")
    nvrtc = _nvrtc()
    opts = [f"-arch={arch}", *_NVRTC_FLAGS, f"-I{_cuda_include()}", *options]

    def make() -> bytes:
        data, log, seconds = _nvrtc_compile(nvrtc, source, arch, opts)
        usage = _cuobjdump_text(data, "--dump-resource-usage")
        return _pack(data, log=log, seconds=seconds, usage=usage)

    versions = (_nvrtc_version(), _package_version("nvidia-cuda-runtime"), tool_version(_cuobjdump()))
    e = _unpack(make() if _includes_files(options) else cached(("nvrtc", *versions, *opts, source), make))
    return Cubin(arch, e["data"], e["log"], e["seconds"], _resources(e["usage"]))


def sass_key(source: str, arch: str, options: tuple[str, ...] = ()) -> str:
    """A hash of what decides compile_cuda's SASS for ``source`` (text, arch, flags, the releases of NVRTC, the CUDA
    headers and cuobjdump), the same on every machine with the same packages: a baseline that stores it beside a
    kernel's opcode counts need not compile that kernel again while its text is unchanged."""
    releases = (
        f"{_nvrtc_version()}, headers {_package_version('nvidia-cuda-runtime')}, {_package_version('nvidia-cuda-cuobjdump')}"
    )
    text = "\n".join((releases, arch, *_NVRTC_FLAGS, *options, source))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def _nvrtc_version() -> str:
    _, major, minor = _nvrtc().nvrtcVersion()
    return f"NVRTC {major}.{minor} ({_package_version('nvidia-cuda-nvrtc')})"


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


def _cuobjdump_text(data: bytes, flag: str) -> str:
    with tempfile.TemporaryDirectory(prefix="llgen-") as tmp:
        path = Path(tmp) / "k.cubin"
        path.write_bytes(data)
        return _run([_cuobjdump(), flag, str(path)], f"cuobjdump {flag}")


def _resources(text: str) -> dict[str, Resources]:
    found = re.findall(r"Function (\S+):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", text)
    return {name: Resources(int(reg), int(stack), int(local), int(shared)) for name, reg, stack, shared, local in found}


_SASS_LINE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);", re.MULTILINE)


def _disassemble_cubin(cubin: Cubin) -> KernelMap:
    key = ("cuobjdump -sass", tool_version(_cuobjdump()), cubin.data)
    text = cached(key, lambda: _cuobjdump_text(cubin.data, "-sass").encode()).decode()
    chunks = re.split(r"^\s*Function : (\S+)\s*$", text, flags=re.MULTILINE)[1:]
    names = chunks[0::2]
    demangled = _demangle(names)
    out = KernelMap()
    for name, body in zip(names, chunks[1::2], strict=True):
        found = _SASS_LINE.findall(body)
        lines = [f"{op}{rest}".rstrip() for op, rest in found]
        opcodes = Counter(op for op, _ in found)
        res = cubin.kernels.get(name, Resources(0, 0, 0, 0))
        out[name] = Sass(name, demangled[name], "\n".join(lines), opcodes, res.registers, res.stack, res.local, res.shared)
    return out


# ------------------------------------------------------------------------------------------------ HIP

# runtime/hip_shim.h stands in for hip/hip_runtime.h: clang-19 compiles the emitted HIP with it, no ROCm needed.
HIP_SHIM = (importlib.resources.files("llgen.runtime") / "hip_shim.h").read_text()


@dataclass(frozen=True)
class HipKernel:
    """One kernel's entry in the AMDGPU metadata note; sizes in bytes."""

    vgprs: int
    sgprs: int
    agprs: int
    scratch: int  # .private_segment_fixed_size: per-lane private memory, non-zero when anything spills
    lds: int  # .group_segment_fixed_size: static LDS
    vgpr_spills: int
    sgpr_spills: int
    dynamic_stack: bool


@dataclass(frozen=True)
class HipObject:
    """One clang-19 compilation for one gfx arch: the device ELF, clang's stderr (warnings), wall time, kernels."""

    arch: str
    data: bytes
    log: str
    seconds: float
    kernels: dict[str, HipKernel]


@dataclass(frozen=True)
class AmdIsa:
    """One function's AMDGPU assembly. `opcodes` counts mnemonics, e.g. {"ds_read_b128": 1, "ds_bpermute_b32": 4}."""

    name: str
    demangled: str
    text: str
    opcodes: Counter
    kernel: HipKernel

    def count(self, prefix: str) -> int:
        """Instructions whose mnemonic starts with `prefix`: count("ds_read") includes ds_read_b128 and ds_read2_b32."""
        return sum(n for op, n in self.opcodes.items() if op.startswith(prefix))

    @property
    def bpermute(self) -> int:
        return self.count("ds_bpermute_b32")

    @property
    def ds_read(self) -> Counter:
        """LDS loads of one address per lane by width in bits: ds_read_b32 -> 32, ds_read_u8 -> 8, ds_read_b128 -> 128.

        ds_read2_* (two addresses) are not here; look them up in `opcodes`.
        """
        return self._widths("read")

    @property
    def ds_write(self) -> Counter:
        """LDS stores by width in bits, as for `ds_read`."""
        return self._widths("write")

    @property
    def scratch_ops(self) -> int:
        """Private-memory loads and stores: scratch_* (gfx942) or buffer_* (gfx90a; clang uses global_* for pointers)."""
        return self.count("scratch_") + self.count("buffer_")

    @property
    def s_barrier(self) -> int:
        return self.count("s_barrier")

    @property
    def v_perm(self) -> int:
        return self.count("v_perm_b32")

    @property
    def uses_local_memory(self) -> bool:
        k = self.kernel
        return bool(self.scratch_ops or k.scratch or k.vgpr_spills or k.sgpr_spills or k.dynamic_stack)

    def _widths(self, kind: str) -> Counter:
        out = Counter()
        for op, n in self.opcodes.items():
            m = re.fullmatch(rf"ds_{kind}_[biu](\d+)(?:_d16(?:_hi)?)?", op)
            if m:
                out[int(m.group(1))] += n
        return out


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
            notes = _run([_llvm_tool("llvm-readelf"), "--notes", str(obj)], "llvm-readelf --notes")
        return _pack(data, log=proc.stderr, seconds=seconds, notes=notes)

    key = ("clang-19", tool_version(clang), HIP_SHIM, *_HIP_FLAGS, arch, *options, source)
    e = _unpack(make() if _includes_files(options) else cached(key, make))
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


def _disassemble_hip(obj: HipObject) -> KernelMap:
    objdump = _llvm_tool("llvm-objdump")

    def make() -> bytes:
        with tempfile.TemporaryDirectory(prefix="llgen-") as tmp:
            path = Path(tmp) / "k.o"
            path.write_bytes(obj.data)
            return _run([objdump, "-d", f"--mcpu={obj.arch}", str(path)], "llvm-objdump -d").encode()

    text = cached(("llvm-objdump -d", tool_version(objdump), obj.arch, obj.data), make).decode()
    chunks = re.split(r"^[0-9a-f]+ <(\S+)>:\s*$", text, flags=re.MULTILINE)[1:]
    names = chunks[0::2]
    demangled = _demangle(names)
    out = KernelMap()
    for name, body in zip(names, chunks[1::2], strict=True):
        lines = [ln.split("//")[0].strip() for ln in body.splitlines() if ln.startswith("\t")]
        lines = [ln for ln in lines if ln]
        opcodes = Counter(ln.split()[0] for ln in lines)
        kernel = obj.kernels.get(name, HipKernel(0, 0, 0, 0, 0, 0, 0, False))
        out[name] = AmdIsa(name, demangled[name], "\n".join(lines), opcodes, kernel)
    return out


# --------------------------------------------------------------------------------------------- public


def disassemble(binary: Cubin | HipObject) -> KernelMap:
    """Every function of a compiled binary: Sass for a Cubin (cuobjdump -sass), AmdIsa for a HipObject (llvm-objdump)."""
    if isinstance(binary, Cubin):
        return _disassemble_cubin(binary)
    return _disassemble_hip(binary)
