"""Run emitted CUDA or HIP source on the CPU: the text llgen prints, not the plan it came from.

The simulator (llgen.simulate) proves a plan; it cannot see a slip in the printed C++ (an operator
precedence, a wrong shift). Here the emitted kernels are compiled as host C++ by g++ against a small
shim: each GPU thread is a std::thread, a block's threads meet at one std::barrier for __syncthreads, a
warp's threads at the warp's own for __syncwarp and every shuffle (each reached uniformly by the threads it
syncs, in our code), and __shared__ arrays are function statics (blocks run one after another). Inline PTX
(ldmatrix, stmatrix) has no host meaning: sources that use it are refused, so plans run here with
``matrix=False``.

`compile(source, target)` returns a `HostModule` with the same operations as the GPU modules
(to_device, filled, to_host, launch, synchronize), so `check_many(..., compiler=compile)` runs unchanged.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from ..errors import LlgenError
from ..target import Target
from ..target import target as to_target
from .compile import CompileFailed, RuntimeUnavailable

# One header for both languages: CUDA's names and HIP's (the HIP source includes <hip/hip_runtime.h>, which
# resolves here). LLGEN_HOST_LANES is the wave size of the target: 32 for CUDA, 64 for gfx90a/gfx942.
DYNAMIC_SCRATCH_BYTES = 256 * 1024  # the shim's LLGEN_DYNAMIC_SCRATCH: more than any target's smem_per_cta
HOST_SHIM = r"""#pragma once
#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
#define LLGEN_KEEP(x) ((void)(x))
#define LLGEN_DYNAMIC_SCRATCH(name) alignas(16) static unsigned char name[DYNAMIC_SCRATCH_BYTES]  // blocks run one by one
using std::memcpy;
struct uint2 { unsigned x, y; };
struct uint4 { unsigned x, y, z, w; };
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
struct llgen_dim3 { unsigned x = 0, y = 0, z = 0; };
inline thread_local llgen_dim3 threadIdx, blockIdx;
inline llgen_dim3 blockDim, gridDim;

namespace llgen_host {
inline std::barrier<>* block_barrier = nullptr;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
inline unsigned long long exchange[1024];
inline void sync() { block_barrier->arrive_and_wait(); }
inline void warp_sync() { warp_barriers[threadIdx.x / LLGEN_HOST_LANES]->arrive_and_wait(); }
// Every thread publishes its value, all meet, each reads its source lane's value, all meet again.
template <class T>
inline T shuffle(T v, unsigned src_lane) {
  static_assert(sizeof(T) <= 8, "shuffle of a value wider than 64 bits");
  const unsigned self = threadIdx.x, base = self & ~(LLGEN_HOST_LANES - 1u);
  memcpy(&exchange[self], &v, sizeof(T));
  warp_sync();
  T r;
  memcpy(&r, &exchange[base + (src_lane & (LLGEN_HOST_LANES - 1u))], sizeof(T));
  warp_sync();
  return r;
}
template <class F>
inline void launch(unsigned grid, unsigned block, F&& body) {
  std::barrier<> bar(block);
  block_barrier = &bar;
  for (unsigned w = 0; w < block; w += LLGEN_HOST_LANES)
    warp_barriers.push_back(std::make_unique<std::barrier<>>(std::min(block - w, static_cast<unsigned>(LLGEN_HOST_LANES))));
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  for (unsigned b = 0; b < grid; ++b) {
    std::vector<std::thread> threads;
    threads.reserve(block);
    for (unsigned t = 0; t < block; ++t)
      threads.emplace_back([&, t, b] { threadIdx = {t, 0, 0}; blockIdx = {b, 0, 0}; body(); });
    for (auto& th : threads) th.join();
  }
  block_barrier = nullptr;
  warp_barriers.clear();
}
}  // namespace llgen_host

inline void __syncthreads() { llgen_host::sync(); }
inline void __syncwarp(unsigned = 0xffffffffu) { llgen_host::warp_sync(); }
template <class T> inline T __shfl_sync(unsigned, T v, int src) { return llgen_host::shuffle(v, src); }
template <class T> inline T __shfl_xor_sync(unsigned, T v, int m) { return llgen_host::shuffle(v, (threadIdx.x & (LLGEN_HOST_LANES - 1u)) ^ m); }
template <class T> inline T __shfl(T v, int src) { return llgen_host::shuffle(v, src); }
template <class T> inline T __shfl_xor(T v, int m) { return llgen_host::shuffle(v, (threadIdx.x & (LLGEN_HOST_LANES - 1u)) ^ m); }
template <class To, class From> inline To llgen_host_bits(From x) { To t; memcpy(&t, &x, sizeof t); return t; }
inline float __uint_as_float(unsigned x) { return llgen_host_bits<float>(x); }
inline unsigned __float_as_uint(float x) { return llgen_host_bits<unsigned>(x); }
inline double __longlong_as_double(long long x) { return llgen_host_bits<double>(x); }
inline long long __double_as_longlong(double x) { return llgen_host_bits<long long>(x); }
// PRMT: result byte i is byte (s >> 4i) & 7 of the 8 bytes {y:x}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
""".replace("DYNAMIC_SCRATCH_BYTES", str(DYNAMIC_SCRATCH_BYTES))

_KERNEL = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\([\d, ]+\) )?(\w+)\(([^)]*)\)')


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
        out.append(f'extern "C" void llgen_host_{name}(unsigned grid, unsigned block, void** args) '
                   f"{{ llgen_host::launch(grid, block, [&] {{ {name}({args}); }}); }}")
    return "\n".join(out)


def _compiler() -> str:
    cxx = shutil.which("g++") or shutil.which("clang++") or shutil.which("clang++-19")
    if not cxx:
        raise RuntimeUnavailable("no host C++ compiler (g++ or clang++) to run emitted kernels on the CPU.")
    return cxx


class HostModule:
    """Emitted kernels compiled for the CPU; device arrays are NumPy arrays."""

    def __init__(self, source: str, target: Target):
        if re.search(r'asm volatile\("[^"]', source):  # an empty asm only pins a value (bench's LLGEN_KEEP)
            raise LlgenError("inline PTX (ldmatrix/stmatrix) cannot run on the CPU: plan with matrix=False.")
        self.target, self.lang = target, target.lang
        self._dir = tempfile.TemporaryDirectory(prefix="llgen-host-")
        tmp = Path(self._dir.name)
        (tmp / "hip").mkdir()
        (tmp / "llgen_host.h").write_text(HOST_SHIM)
        (tmp / "hip" / "hip_runtime.h").write_text('#include "../llgen_host.h"\n')
        (tmp / "k.cpp").write_text(source + "\n" + _trampolines(source) + "\n")
        cmd = [_compiler(), "-std=c++20", "-O0", "-shared", "-fPIC", "-pthread", "-w", f"-DLLGEN_HOST_LANES={target.lanes}u",
               f"-I{tmp}", "-include", str(tmp / "llgen_host.h"), str(tmp / "k.cpp"), "-o", str(tmp / "k.so")]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CompileFailed(proc.stderr)
        self._lib = ctypes.CDLL(str(tmp / "k.so"))

    def to_device(self, host: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(host).copy()

    def filled(self, n: int, dtype, value: int) -> np.ndarray:
        return np.full(n, value, dtype=dtype)

    def to_host(self, dev: np.ndarray) -> np.ndarray:
        return dev.copy()

    def launch(self, name: str, grid: int, block: int, args: tuple, smem: int = 0) -> None:
        assert smem <= DYNAMIC_SCRATCH_BYTES, f"LLGEN_DYNAMIC_SCRATCH holds {DYNAMIC_SCRATCH_BYTES} bytes on the CPU"
        # scalars travel as 8 little-endian bytes: the trampoline reads the low bytes its parameter's type needs
        keep = [ctypes.c_void_p(a.ctypes.data) if isinstance(a, np.ndarray) else ctypes.c_uint64(int(a) % (1 << 64))
                for a in args]
        argv = (ctypes.c_void_p * len(keep))(*(ctypes.cast(ctypes.pointer(k), ctypes.c_void_p) for k in keep))
        getattr(self._lib, f"llgen_host_{name}")(ctypes.c_uint(grid), ctypes.c_uint(block), argv)

    def synchronize(self) -> None:
        pass


def compile(source: str, target: str | Target = "sm_90") -> HostModule:
    return HostModule(source, to_target(target) if isinstance(target, str) else target)
