"""The GPU side of a bench run: what the device is, building many bench sources at once, and freeing its memory
between cases. CuPy is imported only here and where kernels run, so that the bench's rules load without it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from llgen.runtime.bench.timing import median_ms
from llgen.runtime.compile import nvrtc_version

# Defined where ptxas's own register budget spilled the LOOP kernel: its bounds then say one CTA per SM suffices
# (src/llgen/templates/bench.j2); r18_178_i64's LOOP held 80 registers and 8 bytes of stack, and reread the lane id every step
LOOP_ONE_CTA = "-DLLGEN_LOOP_ONE_CTA"


def compile_all(sources: dict, one_cta: set | None = None, loop: str = "b_loop", lone: dict | None = None) -> dict:
    """key -> a compiled CuPy module, or the exception compiling it raised: NVRTC runs on threads, one a build. A
    module whose LOOP kernel (named ``loop`` in every source) has a stack frame is built again with LOOP_ONE_CTA, and
    its key goes into ``one_cta``. Each key of ``lone`` whose source takes that bound is also built with it, in the
    same batch, as a lone CTA would be built (its one-CTA latency is timed on that build): ``lone[key]`` becomes
    that module (also the key's own where its own spilled), or None where the bound is not in its source."""
    import cupy as cp

    alone = {name for name in lone or () if name in sources and LOOP_ONE_CTA[2:] in sources[name]}
    jobs = [(name, False) for name in sources] + [(name, True) for name in alone]

    def build(job):
        name, for_one_cta = job
        src = sources[name]
        try:
            mod = cp.RawModule(code=src, options=("-std=c++17", LOOP_ONE_CTA) if for_one_cta else ("-std=c++17",))
            mod.compile()
            if not for_one_cta and f"{loop}(" in src and mod.get_function(loop).local_size_bytes:
                if one_cta is not None:
                    one_cta.add(name)
                return None if name in alone else build((name, True))  # None: the one-CTA job's module
            return mod
        except Exception as e:  # noqa: BLE001 - a source that does not compile is a report row
            return e

    with ThreadPoolExecutor(max(1, min(8, len(jobs)))) as pool:
        built = dict(zip(jobs, pool.map(build, jobs), strict=True))
    for name in lone or ():
        lone[name] = built.get((name, True))
    return {name: built[(name, True)] if built[(name, False)] is None else built[(name, False)] for name in sources}


def free_device_memory() -> None:
    import cupy as cp

    cp.get_default_memory_pool().free_all_blocks()
    if "torch" in sys.modules:
        sys.modules["torch"].cuda.empty_cache()


def d2d_copy_gbps(rep: int, nbytes: int = 4 << 30) -> float:
    """cudaMemcpy device to device of ``nbytes``: GB/s read + written."""
    import cupy as cp

    a = cp.empty(nbytes, dtype=cp.uint8)
    b = cp.empty_like(a)
    dst, src, n = b.data.ptr, a.data.ptr, a.nbytes
    ms = median_ms(lambda: cp.cuda.runtime.memcpyAsync(dst, src, n, 3, 0), rep)
    a = b = None
    cp.get_default_memory_pool().free_all_blocks()
    return 2 * n / ms / 1e6


def device_info() -> dict:
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    info = {
        "device": props["name"].decode(),
        "sms": props["multiProcessorCount"],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "nvrtc": nvrtc_version(cp),
        "commit": os.environ.get("LLGEN_COMMIT", "?"),
    }  # the GPU machine gets a copy of the tree without .git
    try:
        q = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.max.sm,clocks.mem", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=False,
            timeout=20,
        )
        info["nvidia_smi"] = q.stdout.strip()
    except Exception as e:  # noqa: BLE001 - informational only
        info["nvidia_smi"] = repr(e)
    return info
