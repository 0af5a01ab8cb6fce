"""Write the text of tests/data/legacy/ with the Triton release that runs this script: what that release printed.

Each release is the PyPI wheel (built from the triton-lang/triton tag of the same name, v3.0.0 ... v3.5.1), unpacked
beside the repository and put first on the path; Triton 3.6.0 is the venv's own (no PYTHONPATH):

    pip download --no-deps --only-binary :all: triton==3.2.0 -d /tmp/wheels
    mkdir -p /tmp/triton-3.2.0 && unzip -q /tmp/wheels/triton-3.2.0-*.whl 'triton/*' -d /tmp/triton-3.2.0
    PYTHONPATH=/tmp/triton-3.2.0 .venv/bin/python -s tests/data/legacy/make_legacy.py

It writes, for the running release V (CPU only: the later stages of an AMD compile, which need ROCm's linker, fail
after the TTGIR stage has been written to Triton's cache, and that TTGIR is taken):

- ``layouts-V.mlir``: every case of CASES in V's own spelling, as the type of a function argument, parsed and printed
  back by V (``ir.parse_mlir_module``, then ``str``), one module per case between ``// -----`` lines. A case V cannot
  spell is left out (a wmma of version 2 before 3.2, a #ttg.linear before 3.3, ...).
- ``local_ops-V.mlir`` (3.0-3.2): LOCAL_OPS, a local_store and a local_load of one buffer of a local_alloc, printed
  back by V.
- ``V-TARGET-KERNEL-DTYPE[-kK].ttgir``: the TTGIR stage of a kernel of KERNELS that V compiled for TARGET, for the
  (V, TARGET, KERNEL, DTYPE, K) of COMPILES. Source locations name this file by its name alone.

tests/test_legacy_text.py reads them: each case parses to the layout of its Triton 3.6 spelling, and each compiled
kernel's ops to the layouts of the same kernel compiled by another release where the two agree.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import triton
import triton.language as tl

HERE = Path(__file__).resolve().parent
VERSION = triton.__version__


# --------------------------------------------------------------------------- the layouts, in each release's spelling
def _era(version: str) -> list[str]:
    """The keys a case's spellings are looked up by for ``version``, most specific first."""
    minor = int(version.split(".")[1])
    if minor <= 2:
        return [f"v3.{minor}", "tg01" if minor <= 1 else "tg2", "tg", "all"]
    return [f"v3.{minor}", {3: "ttg34", 4: "ttg34", 5: "ttg35"}.get(minor, "ttg36"), "ttg", "all"]


def _spelling(case: dict, version: str) -> str | None:
    prefix = "triton_gpu" if int(version.split(".")[1]) <= 2 else "ttg"
    for key in _era(version):
        if key in case:
            return case[key].replace("#P.", f"#{prefix}.") if case[key] is not None else None
    return None


MFMA32 = "warpsPerCTA = [2, 2], instrShape = [32, 32]"
MFMA16 = "warpsPerCTA = [2, 2], instrShape = [16, 16]"

# name: shape, element, tensor or memdesc, lanes, CTAs, spellings ("all": every release, #P. the dialect prefix;
# "tg" Triton 3.0-3.2, "tg01" 3.0-3.1, "tg2" 3.2, "ttg" 3.3 on, "ttg34" 3.3-3.4, "ttg35" 3.5, "ttg36" 3.6, "v3.N"
# that release alone; None: not spelled there)
CASES = {
    "blocked": dict(
        shape="128x64",
        all="#P.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    ),
    "blocked_cta": dict(
        shape="128x64",
        ctas=4,
        tg="#P.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], "
        "CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
        ttg34="#P.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], "
        "CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
        ttg35="#P.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], "
        "CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
        ttg36="#P.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], "
        "CGALayout = [[0, 0], [1, 0]]}>",
    ),
    "mma_v2": dict(
        shape="64x64",
        all="#P.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
    ),
    "mma_v2_cta": dict(
        shape="64x64",
        ctas=4,
        tg="#P.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CTAsPerCGA = [2, 2], "
        "CTASplitNum = [2, 2], CTAOrder = [1, 0], instrShape = [16, 8]}>",
        ttg34="#P.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CTAsPerCGA = [2, 2], "
        "CTASplitNum = [2, 2], CTAOrder = [1, 0], instrShape = [16, 8]}>",
        ttg35="#P.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CTAsPerCGA = [2, 2], "
        "CTASplitNum = [2, 2], CTAOrder = [1, 0], instrShape = [16, 8]}>",
        ttg36="#P.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CGALayout = [[0, 1], [1, 0]], "
        "instrShape = [16, 8]}>",
    ),
    "wgmma": dict(
        shape="128x64",
        all="#P.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
    ),
    "dot_v2_a": dict(
        shape="64x32",
        all="#P.dot_op<{opIdx = 0, parent = #P.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
        "instrShape = [16, 8]}>, kWidth = 2}>",
    ),
    "dot_v2_b_i8": dict(
        shape="64x64",
        element="i8",
        all="#P.dot_op<{opIdx = 1, parent = #P.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
        "instrShape = [16, 8]}>, kWidth = 4}>",
    ),
    "dot_wgmma_f16": dict(
        shape="128x64",
        tg="#P.dot_op<{opIdx = 0, parent = #P.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 64, 16]}>}>",
        ttg="#P.dot_op<{opIdx = 0, parent = #P.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 64, 16]}>, kWidth = 2}>",
    ),
    "dot_wgmma_f8": dict(
        shape="128x64",
        element="f8E4M3FN",
        tg="#P.dot_op<{opIdx = 0, parent = #P.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 64, 32]}>}>",
        ttg="#P.dot_op<{opIdx = 0, parent = #P.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 64, 32]}>, kWidth = 4}>",
    ),
    "slice_blocked": dict(
        shape="128",
        all="#P.slice<{dim = 1, parent = #P.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>}>",
    ),
    "slice_dot": dict(
        shape="64",
        all="#P.slice<{dim = 0, parent = #P.dot_op<{opIdx = 0, parent = #P.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
        "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>}>",
    ),
    "mfma_v2": dict(
        shape="64x64",
        lanes=64,
        tg=f"#P.amd_mfma<{{versionMajor = 2, versionMinor = 0, {MFMA32}, isTransposed = false}}>",
        ttg34=f"#P.amd_mfma<{{versionMajor = 2, versionMinor = 0, {MFMA32}, isTransposed = false}}>",
        ttg35=f"#P.amd_mfma<{{version = 2, {MFMA32}, isTransposed = false}}>",
        ttg36="#P.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = false}>",
    ),
    "mfma_v2_unspaced": dict(  # the spelling of Triton's own test inputs (test/Conversion/amd), printed back
        shape="64x64",
        lanes=64,
        tg="#P.amd_mfma<{versionMajor=2, versionMinor=0, warpsPerCTA = [2, 2], instrShape=[32, 32], isTransposed = false}>",
        ttg34="#P.amd_mfma<{versionMajor=2, versionMinor=0, warpsPerCTA = [2, 2], instrShape=[32, 32], isTransposed = false}>",
        ttg35="#P.amd_mfma<{version=2, warpsPerCTA = [2, 2], instrShape=[32, 32], isTransposed = false}>",
        ttg36="#P.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = false}>",
    ),
    "mfma_v3_t": dict(
        shape="64x64",
        lanes=64,
        tg=f"#P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA32}, isTransposed = true}}>",
        ttg34=f"#P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA32}, isTransposed = true}}>",
        ttg35=f"#P.amd_mfma<{{version = 3, {MFMA32}, isTransposed = true}}>",
        ttg36="#P.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
    ),
    "mfma_16": dict(
        shape="64x64",
        lanes=64,
        tg=f"#P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA16}, isTransposed = false}}>",
        ttg34=f"#P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA16}, isTransposed = false}}>",
        ttg35=f"#P.amd_mfma<{{version = 3, {MFMA16}, isTransposed = false}}>",
        ttg36="#P.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = false}>",
    ),
    "mfma_cta": dict(
        shape="64x128",
        lanes=64,
        ctas=2,
        tg=f"#P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA32}, isTransposed = true, CTAsPerCGA = [1, 2], "
        "CTASplitNum = [1, 2], CTAOrder = [1, 0]}>",
        ttg34=f"#P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA32}, isTransposed = true, CTAsPerCGA = [1, 2], "
        "CTASplitNum = [1, 2], CTAOrder = [1, 0]}>",
        ttg35=f"#P.amd_mfma<{{version = 3, {MFMA32}, isTransposed = true, CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], "
        "CTAOrder = [1, 0]}>",
        ttg36="#P.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true, "
        "CGALayout = [[0, 1]]}>",
    ),
    "mfma_dot_a": dict(
        shape="64x32",
        lanes=64,
        tg=f"#P.dot_op<{{opIdx = 0, parent = #P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA32}, "
        "isTransposed = true}>, kWidth = 4}>",
        ttg34=f"#P.dot_op<{{opIdx = 0, parent = #P.amd_mfma<{{versionMajor = 3, versionMinor = 0, {MFMA32}, "
        "isTransposed = true}>, kWidth = 4}>",
        ttg35=f"#P.dot_op<{{opIdx = 0, parent = #P.amd_mfma<{{version = 3, {MFMA32}, isTransposed = true}}>, kWidth = 4}}>",
        ttg36="#P.dot_op<{opIdx = 0, parent = #P.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], "
        "isTransposed = true}>, kWidth = 4}>",
    ),
    "mfma_dot_b": dict(
        shape="64x64",
        lanes=64,
        tg=f"#P.dot_op<{{opIdx = 1, parent = #P.amd_mfma<{{versionMajor = 2, versionMinor = 0, {MFMA16}, "
        "isTransposed = false}>, kWidth = 8}>",
        ttg34=f"#P.dot_op<{{opIdx = 1, parent = #P.amd_mfma<{{versionMajor = 2, versionMinor = 0, {MFMA16}, "
        "isTransposed = false}>, kWidth = 8}>",
        ttg35=f"#P.dot_op<{{opIdx = 1, parent = #P.amd_mfma<{{version = 2, {MFMA16}, isTransposed = false}}>, kWidth = 8}}>",
        ttg36="#P.dot_op<{opIdx = 1, parent = #P.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], "
        "isTransposed = false}>, kWidth = 8}>",
    ),
    "wmma_v1": dict(
        shape="64x64",
        tg01="#P.amd_wmma<{warpsPerCTA = [2, 2]}>",
        tg2="#P.amd_wmma<{version = 1, warpsPerCTA = [2, 2]}>",
        ttg="#P.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>",
    ),
    "wmma_v1_cta": dict(
        shape="64x64",
        ctas=2,
        tg01="#P.amd_wmma<{warpsPerCTA = [2, 2], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>",
        tg2="#P.amd_wmma<{version = 1, warpsPerCTA = [2, 2], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>",
        ttg="#P.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], "
        "CTAOrder = [1, 0]}>",
        ttg36="#P.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2], CGALayout = [[0, 1]]}>",
    ),
    "wmma_v2": dict(
        shape="64x64",
        tg01=None,  # 3.0-3.1 have RDNA3's wmma only (a version field is dropped)
        tg2="#P.amd_wmma<{version = 2, warpsPerCTA = [2, 2]}>",
        ttg="#P.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>",
    ),
    "wmma_v2_t": dict(
        shape="64x64",
        tg=None,  # isTranspose came with 3.3
        ttg="#P.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [2, 2]}>",
    ),
    "wmma_dot_v1": dict(
        shape="64x64",
        tg01="#P.dot_op<{opIdx = 0, parent = #P.amd_wmma<{warpsPerCTA = [2, 2]}>, kWidth = 16}>",
        tg2="#P.dot_op<{opIdx = 0, parent = #P.amd_wmma<{version = 1, warpsPerCTA = [2, 2]}>, kWidth = 16}>",
        ttg="#P.dot_op<{opIdx = 0, parent = #P.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>, kWidth = 16}>",
    ),
    "wmma_dot_v2": dict(
        shape="64x64",
        tg01=None,
        tg2="#P.dot_op<{opIdx = 1, parent = #P.amd_wmma<{version = 2, warpsPerCTA = [2, 2]}>, kWidth = 8}>",
        ttg="#P.dot_op<{opIdx = 1, parent = #P.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>, kWidth = 8}>",
    ),
    "linear": dict(
        shape="64x64",
        tg=None,  # #ttg.linear came with 3.3
        ttg="#P.linear<{register = [[0, 1], [0, 2], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], "
        "warp = [[2, 0], [4, 0], [8, 0]], block = []}>",
    ),
    "swizzled": dict(
        memdesc=True,
        shape="64x64",
        tg="#P.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = false}>",
        ttg="#P.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    ),
    "swizzled_amd": dict(
        memdesc=True,
        shape="64x64",
        tg="#P.shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1], hasLeadingOffset = false}>",
        ttg="#P.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>",
    ),
    "swizzled_cta": dict(
        memdesc=True,
        shape="64x64",
        ctas=4,
        tg="#P.shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0], CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], "
        "CTAOrder = [1, 0], hasLeadingOffset = false}>",
        ttg="#P.swizzled_shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0], CTAsPerCGA = [2, 2], "
        "CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
        ttg36="#P.swizzled_shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0], CGALayout = [[0, 0], [1, 0]]}>",
    ),
    "nvmma_128": dict(
        memdesc=True,
        shape="64x64",
        tg="#P.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>",
        ttg="#P.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    ),
    "nvmma_64_t": dict(
        memdesc=True,
        shape="64x64",
        tg="#P.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], hasLeadingOffset = true}>",
        ttg="#P.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16}>",
    ),
    "nvmma_32_f8": dict(
        memdesc=True,
        shape="64x32",
        element="f8E4M3FN",
        tg="#P.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0], hasLeadingOffset = true}>",
        ttg="#P.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8}>",
    ),
    "nvmma_128_f32": dict(
        memdesc=True,
        shape="64x32",
        element="f32",
        tg="#P.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>",
        ttg="#P.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>",
    ),
    "nvmma_none": dict(
        memdesc=True,
        shape="64x64",
        tg="#P.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], hasLeadingOffset = true}>",
        ttg="#P.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>",
    ),
    "nvmma_cta": dict(
        memdesc=True,
        shape="64x256",
        ctas=4,
        tg="#P.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [1, 4], CTASplitNum = [1, 4], "
        "CTAOrder = [0, 1], hasLeadingOffset = true}>",
        ttg="#P.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CTAsPerCGA = [1, 4], "
        "CTASplitNum = [1, 4], CTAOrder = [0, 1]}>",
        ttg36="#P.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, "
        "CGALayout = [[0, 1], [0, 2]]}>",
    ),
    "rotating": dict(
        memdesc=True,
        shape="64x64",
        tg=None,
        **{"v3.3": None},  # amd_rotating_shared came with 3.4
        ttg="#P.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>",
    ),
}


def _warps(attr: str) -> int:
    """The warp count a spelling states (its first warpsPerCTA, or its linear warp bases); 4 for shared layouts."""
    if "warp = [" in attr:
        return 1 << attr.split("warp = [", 1)[1].split("], block", 1)[0].count("[")
    if "warpsPerCTA = [" not in attr:
        return 4
    out = 1
    for v in attr.split("warpsPerCTA = [", 1)[1].split("]", 1)[0].split(","):
        out *= int(v)
    return out


def write_layouts() -> None:
    """layouts-V.mlir: each case V can spell, printed back by V."""
    import triton._C.libtriton as libtriton

    ir = libtriton.ir
    ctx = ir.context()
    ir.load_dialects(ctx)
    for backend in ("nvidia", "amd"):
        try:
            getattr(libtriton, backend).load_dialects(ctx)
        except AttributeError:
            pass
    minor = int(VERSION.split(".")[1])
    prefix = "triton_gpu" if minor <= 2 else "ttg"
    sections = []
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        for name, case in CASES.items():
            attr = _spelling(case, VERSION)
            if attr is None:
                continue
            ty = f"{case['shape']}x{case.get('element', 'f16')}"
            if case.get("memdesc"):
                space = "" if minor <= 1 else f", #{prefix}.shared_memory"
                ty = f"!{'tt' if minor <= 2 else 'ttg'}.memdesc<{ty}, {attr}{space}>"
            else:
                ty = f"tensor<{ty}, {attr}>"
            head = (
                f'module attributes {{"{prefix}.num-warps" = {_warps(attr)} : i32, "{prefix}.num-ctas" = {case.get("ctas", 1)} '
                f': i32, "{prefix}.threads-per-warp" = {case.get("lanes", 32)} : i32}} {{'
            )
            Path("case.mlir").write_text(f"{head}\n  tt.func @{name}(%arg0: {ty}) {{\n    tt.return\n  }}\n}}\n")
            sections.append(str(ir.parse_mlir_module("case.mlir", ctx)).strip() + "\n")
    (HERE / f"layouts-{VERSION}.mlir").write_text("// -----\n".join(sections))


# a multi-buffered allocation, one buffer picked, stored to and loaded from (Triton 3.0-3.2's op names and memdesc)
LOCAL_OPS = """\
#blocked = #triton_gpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>
module attributes {"triton_gpu.num-warps" = 4 : i32, "triton_gpu.num-ctas" = 1 : i32, "triton_gpu.threads-per-warp" = 32 : i32, \
"triton_gpu.target" = "cuda:90"} {
  tt.func @store_load(%arg0: tensor<64x64xf16, #blocked>) {
    %0 = triton_gpu.local_alloc : () -> !tt.memdesc<2x64x64xf16, #shared SPACE, mutable>
    %c0 = arith.constant 0 : i32
    %1 = triton_gpu.memdesc_subview %0[%c0, %c0, %c0] : !tt.memdesc<2x64x64xf16, #shared SPACE, mutable> -> \
!tt.memdesc<64x64xf16, #shared SPACE, mutable>
    triton_gpu.local_store %arg0, %1 : tensor<64x64xf16, #blocked> -> !tt.memdesc<64x64xf16, #shared SPACE, mutable>
    %2 = triton_gpu.local_load %1 : !tt.memdesc<64x64xf16, #shared SPACE, mutable> -> tensor<64x64xf16, #blocked>
    tt.return
  }
}
"""


def write_local_ops() -> None:
    """local_ops-V.mlir (3.0-3.2): LOCAL_OPS printed back by V."""
    import triton._C.libtriton as libtriton

    minor = int(VERSION.split(".")[1])
    if minor > 2:
        return
    ir = libtriton.ir
    ctx = ir.context()
    ir.load_dialects(ctx)
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        Path("local_ops.mlir").write_text(LOCAL_OPS.replace(" SPACE", "" if minor <= 1 else ", #triton_gpu.shared_memory"))
        (HERE / f"local_ops-{VERSION}.mlir").write_text(str(ir.parse_mlir_module("local_ops.mlir", ctx)))


# --------------------------------------------------------------------------- kernels, compiled
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def matmul_t(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] + rn[None, :] * K)
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def chain(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    p = tl.dot(a, b)
    v = tl.load(b_ptr + rn[:, None] * N + rn[None, :])
    o = tl.dot(p.to(a.dtype), v)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], o)


KERNELS = {"matmul": matmul, "matmul_t": matmul_t, "chain": chain}

# (release, target, kernel, dtype, K): the whole dumps kept, small ones
COMPILES = [
    ("3.0.0", "sm80", "matmul", "fp16", 64),
    ("3.0.0", "gfx1100", "matmul", "fp16", 64),
    ("3.1.0", "sm90", "chain", "fp16", 64),
    ("3.2.0", "gfx942", "matmul", "fp16", 64),
    ("3.2.0", "gfx1200", "matmul", "fp16", 64),
    ("3.3.1", "gfx1100", "matmul", "fp16", 64),
    ("3.3.1", "sm90", "chain", "fp16", 64),
    ("3.4.0", "gfx942", "matmul", "fp16", 64),
    ("3.4.0", "gfx1200", "matmul", "fp16", 64),
    ("3.5.1", "gfx942", "matmul", "fp16", 64),
    ("3.5.1", "gfx90a", "matmul", "fp16", 64),
    ("3.6.0", "gfx942", "matmul", "fp16", 64),
    *[
        (v, "sm90", "matmul_t", dt, k)
        for v in ("3.2.0", "3.3.1")
        for dt, k in (("fp16", 16), ("fp16", 32), ("fp16", 64), ("fp8e4nv", 32), ("fp32", 16))
    ],
]


def _target(name: str):
    from triton.backends.compiler import GPUTarget

    if name.startswith("gfx"):
        return GPUTarget("hip", name, 64 if name.startswith("gfx9") else 32)
    return GPUTarget("cuda", int(name[2:]), 32)


def compile_one(target: str, kernel: str, dtype: str, k: int) -> str:
    """The TTGIR stage of ``kernel`` compiled by this release for ``target`` (read from Triton's cache)."""
    from triton.compiler import ASTSource

    fn = KERNELS[kernel]
    sig = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": "*fp32"}
    consts = {"M": 64, "N": 64, "K": k}
    try:
        src = ASTSource(fn, {**sig, **dict.fromkeys(consts, "constexpr")}, consts)
    except Exception:  # 3.0-3.2: the signature by argument index, without the constexprs
        names = list(inspect.signature(fn.fn).parameters)
        src = ASTSource(fn, {names.index(n): t for n, t in sig.items()}, {names.index(n): v for n, v in consts.items()})
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        os.environ.setdefault("TRITON_HIP_LLD_PATH", "/bin/true")  # the TTGIR stage comes before the link
        try:
            triton.compile(src, target=_target(target), options={"num_warps": 4})
        except Exception as e:  # an AMD compile fails at the link, after the TTGIR stage is cached
            print(f"{target} {kernel}: {type(e).__name__} after the TTGIR stage", file=sys.stderr)
        found = list(Path(cache).rglob("*.ttgir"))
        if not found:
            raise SystemExit(f"{VERSION} wrote no TTGIR for {target} {kernel} {dtype}")
        return found[0].read_text().replace(str(Path(__file__).resolve()), Path(__file__).name)


def write_dumps() -> None:
    for version, target, kernel, dtype, k in COMPILES:
        if version != VERSION:
            continue
        text = compile_one(target, kernel, dtype, k)
        suffix = f"-k{k}" if kernel == "matmul_t" else ""
        (HERE / f"{version}-{target}-{kernel}-{dtype}{suffix}.ttgir").write_text(text)


if __name__ == "__main__":
    write_dumps()
    write_layouts()
    write_local_ops()
    subprocess.run(["ls", "-l", str(HERE)], check=False)
