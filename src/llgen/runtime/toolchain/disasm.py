"""What a disassembly says about each function: opcode counts (Sass, AmdIsa), resources, and lookup by name.

A plan promises instructions: so many shuffles, ldmatrix or not, 128-bit shared loads, no local memory. These
classes count them in the machine code of one function, with the resources its compiler reports beside it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Resources:
    """What cuobjdump --dump-resource-usage reports for one function; sizes in bytes."""

    registers: int
    stack: int
    local: int
    shared: int


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


def demangle(names: list[str]) -> dict[str, str]:
    """Itanium names to C++ with whichever demangler is installed; without one, names stay mangled."""
    tool = next((t for t in ("c++filt", "llvm-cxxfilt-19", "llvm-cxxfilt", "cu++filt") if shutil.which(t)), None)
    if not names or tool is None:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines(), strict=True))


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

    def loop(self) -> Counter:
        """Opcodes of the longest loop: from a backward BRA's target to the BRA (each SASS instruction is 16 bytes, and
        `text` holds every one in order). Empty where nothing branches back. What a LOOP kernel's step executes: work
        the compiler hoisted out of it is not there."""
        lines = self.text.splitlines()
        best = (0, -1)
        for i, line in enumerate(lines):
            m = re.match(r"BRA (?:\S+ )?0x([0-9a-f]+)", line)
            start = int(m.group(1), 16) // 16 if m else i
            if start < i and i - start > best[1] - best[0]:
                best = (start, i)
        return Counter(lines[j].split(" ")[0] for j in range(best[0], best[1] + 1))

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
