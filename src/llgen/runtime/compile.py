"""Compile emitted source for the GPU at hand: CUDA through CuPy's NVRTC, HIP through hip-python's hiprtc.

`compile(source, target)` returns a `Module`: the kernels by name plus the few device-array operations a
check needs (upload, a filled buffer, download, launch, synchronize), so launch.py and check.py never touch
CuPy or hip-python themselves. Neither library is imported until a kernel is compiled.
"""

from __future__ import annotations

import ctypes
import subprocess
from dataclasses import asdict, dataclass

import numpy as np

from llgen.core.errors import LlgenError
from llgen.core.target import Target
from llgen.core.target import target as to_target


class RuntimeUnavailable(LlgenError):
    """No GPU runtime on this machine (CuPy or hip-python missing, no device, no driver)."""


class CompileFailed(RuntimeError):
    """The GPU compiler rejected generated source: a bug in llgen, not bad input. Carries the log."""


@dataclass(frozen=True)
class Device:
    name: str
    arch: str  # sm_90, gfx942, ...
    sms: int  # multiprocessors (compute units)
    driver: str
    runtime: str
    lang: str

    def to_json(self) -> dict:
        return asdict(self)


def _short(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__).rstrip(".")


# ---------------------------------------------------------------------------------------------- CUDA
def _cupy():
    try:
        import cupy
    except ImportError as e:
        raise RuntimeUnavailable(
            f"CuPy is not installed ({_short(e)}): install llgen[cuda] on a machine with an "
            "NVIDIA GPU to compile and run kernels."
        ) from None
    try:
        ok = cupy.is_available()
    except Exception:  # noqa: BLE001  (a broken driver raises anything)
        ok = False
    if not ok:
        raise RuntimeUnavailable(
            "no CUDA GPU is available (cupy.is_available() is false): run this on a machine with an NVIDIA GPU and its driver."
        )
    return cupy


def _nvidia_smi_driver() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.strip().splitlines()
    return lines[0].strip() if out.returncode == 0 and lines else None


def _cuda_version(v: int) -> str:
    return f"{v // 1000}.{v % 1000 // 10}"


CUDA_OPTIONS = ("-std=c++17",)  # NVRTC flags of every CUDA module (and so CuPy's kernel-cache key)


class CudaModule:
    """Kernels of one CUDA source, compiled by NVRTC through `cupy.RawModule`."""

    lang = "cuda"

    def __init__(self, source: str, target: Target, options: tuple[str, ...] = CUDA_OPTIONS):
        cp = _cupy()
        self.cp, self.target = cp, target
        try:
            self._mod = cp.RawModule(code=source, options=options)
            if hasattr(self._mod, "compile"):
                self._mod.compile()
        except cp.cuda.compiler.CompileException as e:
            raise CompileFailed(str(e)) from None
        self._fns = {}

    def function(self, name: str):
        if name not in self._fns:
            self._fns[name] = self._mod.get_function(name)
        return self._fns[name]

    def to_device(self, host: np.ndarray):
        return self.cp.asarray(host)

    def filled(self, n: int, dtype, value: int):
        """A device buffer of ``n`` elements, all ``value``; uploaded, so no CuPy kernel runs (sanitizers see ours only)."""
        return self.cp.asarray(np.full(n, value, dtype=dtype))

    def to_host(self, dev) -> np.ndarray:
        return self.cp.asnumpy(dev)

    def launch(self, name: str, grid: int, block: int, args: tuple, smem: int = 0) -> None:
        """``smem``: bytes of dynamic shared memory (over 48 KB needs the kernel's opt-in attribute)."""
        conv = tuple(np.int32(a) if isinstance(a, int) else a for a in args)
        fn = self.function(name)
        if smem > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = smem
        fn((grid,), (block,), conv, shared_mem=smem)

    def synchronize(self) -> None:
        self.cp.cuda.Device().synchronize()


def cuda_device() -> Device:
    cp = _cupy()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    driver = _nvidia_smi_driver() or f"CUDA {_cuda_version(cp.cuda.runtime.driverGetVersion())}"
    return Device(
        name=name,
        arch=f"sm_{props['major']}{props['minor']}",
        sms=int(props["multiProcessorCount"]),
        driver=driver,
        runtime=f"CUDA runtime {_cuda_version(cp.cuda.runtime.runtimeGetVersion())}, {nvrtc_version(cp)}, CuPy {cp.__version__}",
        lang="cuda",
    )


def nvrtc_version(cp) -> str:
    """The NVRTC that compiles our kernels (CuPy's): it decides registers, and can differ from the runtime's."""
    try:
        major, minor = cp.cuda.nvrtc.getVersion()
    except Exception as e:  # noqa: BLE001 - informational only
        return f"NVRTC ? ({type(e).__name__})"
    return f"NVRTC {major}.{minor}"


# ----------------------------------------------------------------------------------------------- HIP
def _hip():
    """hip-python's runtime and hiprtc, or RuntimeUnavailable: hip-python may be absent, or present with no
    ROCm libraries under it (an ImportError, OSError or RuntimeError, at import or at the first call)."""
    try:
        from hip import hip, hiprtc
    except (ImportError, OSError, RuntimeError) as e:
        raise RuntimeUnavailable(
            f"no ROCm runtime found: hip-python could not be loaded ({_short(e)}); install "
            "llgen[rocm] on a machine with ROCm and an AMD GPU."
        ) from None
    try:
        res = hip.hipGetDeviceCount()
    except (OSError, RuntimeError, AttributeError) as e:
        raise RuntimeUnavailable(f"no ROCm runtime found: the HIP runtime library could not be loaded ({_short(e)}).") from None
    err, count = (res[0], res[1]) if isinstance(res, tuple) else (res, 0)
    if err != hip.hipError_t.hipSuccess or not count:
        raise RuntimeUnavailable(f"no ROCm runtime found: HIP sees no AMD GPU ({err}).")
    return hip, hiprtc


def _hipcheck(hip, hiprtc, res, what: str):
    """hip-python calls return (status, *values); raise on a bad status, return the values."""
    status, vals = (res[0], res[1:]) if isinstance(res, tuple) else (res, ())
    ok = (hip.hipError_t.hipSuccess, hiprtc.hiprtcResult.HIPRTC_SUCCESS)
    if status not in ok:
        raise RuntimeError(f"{what} failed: {status}")
    return vals[0] if len(vals) == 1 else vals


@dataclass
class HipArray:
    ptr: object
    n: int
    dtype: np.dtype

    @property
    def nbytes(self) -> int:
        return self.n * np.dtype(self.dtype).itemsize


class HipModule:
    """Kernels of one HIP source, compiled by hiprtc for the GPU present and loaded with hipModuleLoadData."""

    lang = "hip"

    def __init__(self, source: str, target: Target):
        hip, hiprtc = _hip()
        self.hip, self.hiprtc, self.target = hip, hiprtc, target
        props = hip.hipDeviceProp_t()
        self._check(hip.hipGetDeviceProperties(props, 0), "hipGetDeviceProperties")
        arch = props.gcnArchName
        arch = arch if isinstance(arch, bytes) else str(arch).encode()
        prog = self._check(hiprtc.hiprtcCreateProgram(source.encode(), b"llgen.hip", 0, [], []), "hiprtcCreateProgram")
        opts = [b"--offload-arch=" + arch.split(b":")[0], b"-std=c++17", b"-O3"]
        res = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)
        status = res[0] if isinstance(res, tuple) else res
        if status != hiprtc.hiprtcResult.HIPRTC_SUCCESS:
            size = self._check(hiprtc.hiprtcGetProgramLogSize(prog), "hiprtcGetProgramLogSize")
            log = bytearray(size)
            hiprtc.hiprtcGetProgramLog(prog, log)
            raise CompileFailed(log.decode(errors="replace"))
        size = self._check(hiprtc.hiprtcGetCodeSize(prog), "hiprtcGetCodeSize")
        code = bytearray(size)
        self._check(hiprtc.hiprtcGetCode(prog, code), "hiprtcGetCode")
        self._module = self._check(hip.hipModuleLoadData(code), "hipModuleLoadData")
        self._fns = {}

    def _check(self, res, what):
        return _hipcheck(self.hip, self.hiprtc, res, what)

    def function(self, name: str):
        if name not in self._fns:
            self._fns[name] = self._check(self.hip.hipModuleGetFunction(self._module, name.encode()), "hipModuleGetFunction")
        return self._fns[name]

    def to_device(self, host: np.ndarray) -> HipArray:
        host = np.ascontiguousarray(host)
        arr = HipArray(self._check(self.hip.hipMalloc(host.nbytes), "hipMalloc"), host.size, host.dtype)
        self._check(self.hip.hipMemcpy(arr.ptr, host, host.nbytes, self.hip.hipMemcpyKind.hipMemcpyHostToDevice), "hipMemcpy")
        return arr

    def filled(self, n: int, dtype, value: int) -> HipArray:
        return self.to_device(np.full(n, value, dtype=dtype))

    def to_host(self, dev: HipArray) -> np.ndarray:
        host = np.empty(dev.n, dtype=dev.dtype)
        self._check(self.hip.hipMemcpy(host, dev.ptr, dev.nbytes, self.hip.hipMemcpyKind.hipMemcpyDeviceToHost), "hipMemcpy")
        return host

    def launch(self, name: str, grid: int, block: int, args: tuple, smem: int = 0) -> None:
        extra = tuple(a.ptr if isinstance(a, HipArray) else ctypes.c_int(a) for a in args)
        self._check(
            self.hip.hipModuleLaunchKernel(
                self.function(name), grid, 1, 1, block, 1, 1, sharedMemBytes=smem, stream=None, kernelParams=None, extra=extra
            ),
            "hipModuleLaunchKernel",
        )

    def synchronize(self) -> None:
        self._check(self.hip.hipDeviceSynchronize(), "hipDeviceSynchronize")


def hip_device() -> Device:
    hip, hiprtc = _hip()
    props = hip.hipDeviceProp_t()
    _hipcheck(hip, hiprtc, hip.hipGetDeviceProperties(props, 0), "hipGetDeviceProperties")
    name = props.name.decode() if isinstance(props.name, bytes) else str(props.name)
    arch = props.gcnArchName.decode() if isinstance(props.gcnArchName, bytes) else str(props.gcnArchName)
    driver = _hipcheck(hip, hiprtc, hip.hipDriverGetVersion(), "hipDriverGetVersion")
    rt = _hipcheck(hip, hiprtc, hip.hipRuntimeGetVersion(), "hipRuntimeGetVersion")
    return Device(
        name=name,
        arch=arch.split(":")[0],
        sms=int(props.multiProcessorCount),
        driver=str(driver),
        runtime=f"HIP runtime {rt}",
        lang="hip",
    )


# ------------------------------------------------------------------------------------------ dispatch
def compile(source: str, target: str | Target = "sm_90"):
    """Compile ``source`` (from `llgen.emit`, or several concatenated) for ``target``'s language."""
    tgt = to_target(target)
    return CudaModule(source, tgt) if tgt.lang == "cuda" else HipModule(source, tgt)


def compile_sm90a(source: str) -> CudaModule:
    """Compile CUDA ``source`` that uses sm_90a's instructions (wgmma) for the device."""
    return CudaModule(source, to_target("sm_90"), (*CUDA_OPTIONS, "-arch=sm_90a"))


def device(target: str | Target = "sm_90") -> Device:
    """The GPU that `compile` targets: name, architecture, multiprocessors, driver and runtime versions."""
    return cuda_device() if to_target(target).lang == "cuda" else hip_device()
