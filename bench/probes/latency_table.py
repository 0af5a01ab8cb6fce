"""Probe: one warp's latency and issue interval per instruction class, the numbers src/llgen/plan/latency_table.py
holds. Run on the GPU machine: `python3 bench/probes/latency_table.py -o OUT.json`; prints a table and
writes JSON in the table's format (``llgen.latency/1``), to paste into latency_table.py's TABLE.

Each class is two one-warp kernels, one CTA: a chain of N dependent instructions (latency) and N instructions over
16 independent chains (interval), timed by clock64() inside the kernel, best of 3 passes (the first warms the
instruction cache). (T(128) - T(64)) / 64 is the cycles per instruction: the clock reads and the set-up cancel.
- shfl: a value shuffled from the lane it names (SHFL.IDX): every lane reads its own value, the next source lane
  depends on it.
- lds_W: pointer chasing through a zeroed buffer: the loaded word is added to the next address.
- sts_W: a store then a volatile load of the same address (ptxas forwards a plain one), chased as lds_W: the round
  trip, less lds_W, is the store's latency (the interval kernel is N independent stores).
- ldsm_xK / stsm_xK: as lds / sts with ldmatrix / stmatrix of K 8x8 matrices (stsm's round trip loads by ldsm_xK).
- bar_sync, syncwarp: N barriers back to back (latency and interval alike). ptxas drops a full-mask bar.warp.sync
  in converged code (no WARPSYNC in the SASS), so syncwarp measures about 0: what a __syncwarp costs there.
- alu: a chain of byte permutes (PRMT) whose selectors come from the kernel's arguments, so ptxas cannot fold two.
- issue: independent FFMAs (the FMA pipe takes a warp a clock): one issue slot.
Every kernel text compiles for sm_90 on a CPU (tests/test_latency_probe.py).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from llgen.plan.latency_table import CLASSES, SCHEMA, check_table

N_SHORT, N_LONG = 64, 128
CHAINS = 16  # independent chains of the interval kernels
PASSES = 3
BUF_WORDS = 32 * 4 * CHAINS  # a 16-byte slot a lane for each chain: 8 KB

_PRELUDE = r"""
typedef unsigned int u32;
typedef unsigned long long u64;
__device__ __forceinline__ u64 clk() { u64 t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t; }
// a load returns its first word (the chain's next address) and leaves the others in r; a store writes v and r. A
// chain of loads folds r into ``side`` and a round trip stores it again, off the chain either way, so that ptxas
// keeps every vector whole (an unused word would narrow it) without holding many alive (which spills)
#define LD1(name, op) __device__ __forceinline__ u32 name(u32 a, u32*) { \
  u32 v; asm volatile(op " {%0}, [%1];" : "=r"(v) : "r"(a) : "memory"); return v; }
#define LD2(name, op) __device__ __forceinline__ u32 name(u32 a, u32* r) { \
  u32 v; asm volatile(op " {%0, %1}, [%2];" : "=r"(v), "=r"(r[0]) : "r"(a) : "memory"); return v; }
#define LD4(name, op) __device__ __forceinline__ u32 name(u32 a, u32* r) { \
  u32 v; asm volatile(op " {%0, %1, %2, %3}, [%4];" : "=r"(v), "=r"(r[0]), "=r"(r[1]), "=r"(r[2]) : "r"(a) : "memory"); \
  return v; }
#define ST1(name, op) __device__ __forceinline__ void name(u32 a, u32 v, const u32*) { \
  asm volatile(op " [%0], {%1};" :: "r"(a), "r"(v) : "memory"); }
#define ST2(name, op) __device__ __forceinline__ void name(u32 a, u32 v, const u32* r) { \
  asm volatile(op " [%0], {%1, %2};" :: "r"(a), "r"(v), "r"(r[0]) : "memory"); }
#define ST4(name, op) __device__ __forceinline__ void name(u32 a, u32 v, const u32* r) { \
  asm volatile(op " [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(v), "r"(r[0]), "r"(r[1]), "r"(r[2]) : "memory"); }
LD1(lds4, "ld.shared.u32") LD2(lds8, "ld.shared.v2.u32") LD4(lds16, "ld.shared.v4.u32")
LD1(ldv4, "ld.volatile.shared.u32") LD2(ldv8, "ld.volatile.shared.v2.u32") LD4(ldv16, "ld.volatile.shared.v4.u32")
ST1(sts4, "st.shared.u32") ST2(sts8, "st.shared.v2.u32") ST4(sts16, "st.shared.v4.u32")
LD1(ldsm1, "ldmatrix.sync.aligned.m8n8.x1.shared.b16") LD2(ldsm2, "ldmatrix.sync.aligned.m8n8.x2.shared.b16")
LD4(ldsm4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16")
ST1(stsm1, "stmatrix.sync.aligned.m8n8.x1.shared.b16") ST2(stsm2, "stmatrix.sync.aligned.m8n8.x2.shared.b16")
ST4(stsm4, "stmatrix.sync.aligned.m8n8.x4.shared.b16")
__device__ __forceinline__ u32 prmt(u32 a, u32 b, u32 s) {
  u32 v; asm volatile("prmt.b32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(s)); return v; }
"""

# Pointer chasing: the word each lane loads first is its own address (for ldmatrix, thread t receives word t of the
# first matrix, which holds lane t's row address), so ``v[c] = load(v[c])`` chains with no address arithmetic between.
_LOAD = {
    "lds_4": "lds4",
    "lds_8": "lds8",
    "lds_16": "lds16",
    "ldsm_x1": "ldsm1",
    "ldsm_x2": "ldsm2",
    "ldsm_x4": "ldsm4",
}
# a store's round trip loads through volatile: ptxas forwards a plain ld.shared of an address just stored
_STORE = {"sts_4": ("sts4", "ldv4"), "sts_8": ("sts8", "ldv8"), "sts_16": ("sts16", "ldv16")}
_STORE |= {"stsm_x1": ("stsm1", "ldsm1"), "stsm_x2": ("stsm2", "ldsm2"), "stsm_x4": ("stsm4", "ldsm4")}


def _step(cls: str, c: int, chain: bool) -> str:
    """One instruction of chain ``c``: dependent on the chain's last one (all chains are one in a latency kernel)."""
    if cls == "shfl":
        return f"v[{c}] = __shfl_sync(0xffffffffu, v[{c}], v[{c}]);"  # v < 32: no mask on the chain
    if cls in _LOAD:
        return f"v[{c}] = {_LOAD[cls]}(v[{c}], r); side ^= r[0] ^ r[1] ^ r[2];"
    if cls in _STORE:
        st, ld = _STORE[cls]
        if chain:  # the round trip: store, then load the same address
            return f"{st}(v[{c}], v[{c}], r); v[{c}] = {ld}(v[{c}], r);"  # stores its address where it loads it
        return f"{st}(a[{c}], v[{c}], r);"
    if cls == "bar_sync":
        return 'asm volatile("bar.sync 0;" ::: "memory");'
    if cls == "syncwarp":
        return 'asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");'
    if cls == "alu":
        return f"v[{c}] = prmt(v[{c}], arg[{c % 4}], sel[{c % 2}]);"
    if cls == "issue":
        return f"f[{c}] = fmaf(f[{c}], fa, fb);"
    raise ValueError(cls)


def kernel_name(cls: str, kind: str, n: int) -> str:
    """``lat_lds_4_chain_128``: the kernel timing ``n`` instructions of ``cls`` as one chain or as independent ones."""
    return f"lat_{cls}_{kind}_{n}"


def _width(cls: str) -> int:
    """Bytes between two lanes' addresses: the access width (a matrix row is 16), so no access meets a bank conflict."""
    return int(cls.split("_")[1]) if cls.split("_")[0] in ("lds", "sts") else 16


def _kernel(cls: str, kind: str, n: int) -> str:
    chains = 1 if kind == "chain" else CHAINS
    width, matrix = _width(cls), int("sm_" in cls)
    steps = "\n".join("      " + _step(cls, i % chains, kind == "chain") for i in range(n))
    return f"""
extern "C" __global__ void __launch_bounds__(32) {kernel_name(cls, kind, n)}(const u32* arg_in, u64* out, u32* sink) {{
  __shared__ __align__(16) u32 buf[{BUF_WORDS}];
  const u32 lane = threadIdx.x;
  const u32 base = (u32)__cvta_generic_to_shared(buf);
  for (u32 i = lane; i < {BUF_WORDS}; i += 32) buf[i] = 0;
  __syncwarp();
  #pragma unroll
  for (int c = 0; c < {CHAINS}; ++c)  // each lane's first word: its own address (matrices: word t, lane t's row)
    buf[({matrix} ? c * 32 * 16 + lane * 4 : (c * 32 + lane) * {width}) / 4] = base + (c * 32 + lane) * {width};
  __syncwarp();
  u32 arg[4], sel[2], v[{CHAINS}], a[{CHAINS}];
  float f[{CHAINS}];
  const float fa = __uint_as_float(arg_in[4]), fb = __uint_as_float(arg_in[5]);
  for (int k = 0; k < 4; ++k) arg[k] = arg_in[k];
  sel[0] = arg_in[6]; sel[1] = arg_in[7];
  #pragma unroll
  for (int c = 0; c < {CHAINS}; ++c) {{
    a[c] = base + (c * 32 + lane) * {width};  // lanes side by side: conflict-free, and ldmatrix's rows distinct
    v[c] = {"lane" if cls == "shfl" else "a[c]"};  // shfl: each lane names itself
    f[c] = __uint_as_float(lane);
  }}
  u32 side = 0, r[3] = {{0, 0, 0}};
  u64 best = ~0ull;
  #pragma unroll 1
  for (int pass = 0; pass < {PASSES}; ++pass) {{
    const u64 t0 = clk();
{steps}
    const u64 t1 = clk();
    best = t1 - t0 < best ? t1 - t0 : best;
  }}
  u32 acc = side ^ r[0] ^ r[1] ^ r[2];
  #pragma unroll
  for (int c = 0; c < {CHAINS}; ++c) acc += v[c] + __float_as_uint(f[c]);
  sink[lane] = acc;
  if (lane == 0) out[0] = best;
}}
"""


def kernel_source() -> str:
    """Every probe kernel, one CUDA text: each class as a chain and as independent instructions, N = 64 and 128."""
    parts = [_PRELUDE]
    for cls in CLASSES:
        for kind in ("chain", "indep"):
            for n in (N_SHORT, N_LONG):
                parts.append(_kernel(cls, kind, n))
    return "".join(parts)


def per_instruction(t_short: float, t_long: float) -> float:
    """Cycles per instruction from the two lengths: the fixed costs cancel."""
    return (t_long - t_short) / (N_LONG - N_SHORT)


def table_from(cycles: dict[str, dict[str, float]], device: str, date: str) -> dict:
    """The latency table (src/llgen/plan/latency_table.py's form) from per-class raw measurements: ``cycles[cls]`` has
    ``chain`` and ``indep`` (cycles per instruction). A store's latency is its round trip less its load's."""
    out = {}
    for cls in CLASSES:
        m = cycles[cls]
        latency, interval = m["chain"], m["indep"]
        if cls in _STORE:
            load = {"sts": "lds", "stsm": "ldsm"}[cls.split("_")[0]] + "_" + cls.split("_")[1]
            latency = max(0.0, m["chain"] - cycles[load]["chain"])
        if cls == "issue":
            latency = 0.0
        if cls in ("bar_sync", "syncwarp"):
            latency = interval = m["chain"]
        out[cls] = {
            "latency": round(latency, 2),
            "interval": round(interval, 2),
            "source": f"measured: chain {m['chain']:.2f}, independent {m['indep']:.2f} cycles an instruction",
        }
    return {
        "schema": SCHEMA,
        "provenance": {
            "status": "measured",
            "device": device,
            "date": date,
            "method": f"bench/probes/latency_table.py: one warp, one CTA; clock64() around N={N_SHORT} and N={N_LONG} "
            f"instructions, best of {PASSES} passes; (T{N_LONG} - T{N_SHORT}) / {N_LONG - N_SHORT}; chains dependent "
            f"(latency) or {CHAINS} independent (interval); store latency = store-load round trip - load latency",
        },
        "cycles": out,
    }


def measure() -> dict[str, dict[str, float]]:
    import os
    import tempfile

    import cupy as cp
    import numpy as np

    from llgen.runtime.toolchain import compile_cuda

    dev = cp.cuda.Device(0)
    major, minor = dev.compute_capability[0], dev.compute_capability[1:]
    cubin = compile_cuda(kernel_source(), f"sm_{major}{minor}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.cubin")
        with open(path, "wb") as fh:
            fh.write(cubin.data)
        mod = cp.RawModule(path=path)
        args = np.array([0x01234567, 0x89ABCDEF, 0x76543210, 0xFEDCBA98, 0x3F800000, 0, 0x5410, 0x3276], dtype=np.uint32)
        arg_in, out, sink = cp.asarray(args), cp.zeros(1, dtype=cp.uint64), cp.zeros(32, dtype=cp.uint32)
        cycles: dict[str, dict[str, float]] = {}
        for cls in CLASSES:
            cycles[cls] = {}
            for kind in ("chain", "indep"):
                t = {}
                for n in (N_SHORT, N_LONG):
                    mod.get_function(kernel_name(cls, kind, n))((1,), (32,), (arg_in, out, sink))
                    dev.synchronize()
                    t[n] = int(out.get()[0])
                cycles[cls][kind] = per_instruction(t[N_SHORT], t[N_LONG])
    return cycles


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", dest="out", required=True, help="the JSON table to write")
    ns = ap.parse_args(argv)
    import cupy as cp

    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    device = name.decode() if isinstance(name, bytes) else str(name)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    doc = check_table(table_from(measure(), device, date))
    print(f"{'class':<10} {'latency':>8} {'interval':>9}   ({device}, cycles)")
    for cls, e in doc["cycles"].items():
        print(f"{cls:<10} {e['latency']:>8.2f} {e['interval']:>9.2f}")
    with open(ns.out, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(ns.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
