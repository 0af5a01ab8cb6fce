"""Every header llgen emits compiles on its own, in its debug build too, with every warning an error: each
CUDA header with NVRTC and nvcc, each HIP header with clang-19 (and our small hip_runtime.h). The headers are
kernels_out/'s (the core suite's, emitted afresh here so that the test follows the templates) and a 128x256 f16
transpose whose 64 KB of scratch is over the 48 KB a static __shared__ array may hold.

A header compiles alone: a translation unit that includes it first, then only the element type's own header, and
instantiates convert, load_a and store_b (dense and strided) and coord_b with that type in a kernel. The debug
build is -DLLGEN_DEBUG, the macro that turns on the launch checks, and for nvcc -G too, which turns on the same
checks (tests/test_consumer.py builds its program with -G down to machine code).

Compile time: the checks that are cheap per call (NVRTC's and clang's front ends) take each header alone; nvcc,
which pays a host compile per call, takes all of a language's headers in one translation unit (each header has
its own namespace), for sm_80 and sm_90 in one call, front end only (-fdevice-syntax-only) since
tests/test_consumer.py compiles headers from the same templates down to machine code.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import pytest

from llgen.cases.packed import CASES as PACKED
from llgen.cases.packed import packed_plan
from llgen.cases.suite import core
from llgen.cli.examples import example_files
from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.runtime.toolchain import HIP_SHIM, ToolchainUnavailable, cuda_include_dir, nvcc, nvrtc_library
from llgen.spec import parse_layout

# the 128x256 f16 transpose: 64 KB of scratch (wave64 on HIP, where it fits gfx942's 64 KB of LDS)
BIG = {
    "cuda": ("blocked:spt=1x8,tpw=2x16,wpc=4x1,order=1x0", "blocked:spt=8x1,tpw=16x2,wpc=1x4,order=0x1", "sm_90"),
    "hip": ("blocked:spt=1x8,tpw=4x16,wpc=4x1,order=1x0", "blocked:spt=8x1,tpw=16x4,wpc=1x4,order=0x1", "gfx942"),
}
TYPE_HEADER = {  # the element type's own header, by language and dtype
    "cuda": {"f16": "cuda_fp16.h", "bf16": "cuda_bf16.h", "f8e4m3": "cuda_fp8.h", "f8e5m2": "cuda_fp8.h"},
    "hip": {"f16": "hip/hip_fp16.h", "bf16": "hip/hip_bf16.h"},
}
DEBUG = "-DLLGEN_DEBUG"


@functools.cache
def _examples() -> dict[str, str]:
    return example_files()


def headers(lang: str, folder: Path) -> dict[str, tuple[Path, object]]:
    """Write kernels_out/'s headers of `lang` and the 64 KB plan's into `folder`: name -> (path, dtype)."""
    from llgen.core.dtypes import dtype

    dtypes = {case.id: dtype(case.dtype) for case in core()}
    suffix = ".cuh" if lang == "cuda" else ".hip.h"
    texts = {rel[len(lang) + 1 : -len(suffix)]: text for rel, text in _examples().items() if rel.startswith(f"{lang}/")}
    texts = {name: text for name, text in texts.items() if name in dtypes}  # the headers, not the kernels
    src, dst, target = BIG[lang]
    a, b = (parse_layout(s, (128, 256), 4) for s in (src, dst))
    plan = plan_conversion(a, b, "f16", target)
    texts["big_f16"] = emit(plan, "header", "big_f16", "tests/test_headers.py")
    dtypes["big_f16"] = dtype("f16")
    # a 4-bit conversion (docs/four-bit.md): its byte plan's API on bytes, convert_packed and both upcasts
    cid, psrc, pdst, ptarget, _ = next(c for c in PACKED if c[3].startswith("gfx") == (lang == "hip"))
    texts["packed_e2m1"] = emit(packed_plan(psrc, pdst, ptarget, "e2m1"), "header", "packed_e2m1", f"tests ({cid})")
    dtypes["packed_e2m1"] = dtype("i8")
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, text in sorted(texts.items()):
        path = folder / f"{name}{suffix}"
        path.write_text(text)
        out[name] = (path, dtypes[name])
    return out


def use(lang: str, name: str, dt) -> str:
    """A kernel that instantiates the header's templates with its element type."""
    t = getattr(dt, lang)
    smem = (
        "extern __shared__ __align__(16) unsigned char smem[];" if lang == "cuda" else "extern __shared__ unsigned char smem[];"
    )
    return f"""
__global__ void use_{name}(const {t}* in, {t}* out, long long ld) {{
  namespace cvt = llgen::{name};
  {smem}
  {t} a[cvt::kInRegs];
  {t} b[cvt::kOutRegs];
  cvt::load_a(in, a);
  cvt::convert(a, b, smem);
  cvt::store_b(out, b);
  cvt::load_a(in, ld, a);
  cvt::convert(a, b, smem, cvt::scratch);  // the scratch rule: it used smem last
  cvt::convert(a, b, smem, llgen::scratch_free);
  cvt::convert(a, b, smem, llgen::scratch_any);
  cvt::store_b(out, ld, b);
  out[cvt::coord_b(0).d[0]] = b[0];
}}
"""


def unit(lang: str, found: dict, names: list[str]) -> str:
    """A translation unit: the headers of `names` first, then their element types' headers, then a kernel each."""
    includes = [f'#include "{found[n][0].name}"' for n in names]
    types = sorted({TYPE_HEADER[lang].get(found[n][1].name) for n in names} - {None})
    kernels = [use(lang, n, found[n][1]) for n in names]
    return "\n".join(includes + [f"#include <{h}>" for h in types] + kernels)


@pytest.fixture(scope="module")
def cuda_headers(tmp_path_factory):
    return headers("cuda", tmp_path_factory.mktemp("cuda"))


@pytest.fixture(scope="module")
def hip_headers(tmp_path_factory):
    return headers("hip", tmp_path_factory.mktemp("hip"))


def test_the_big_plan_takes_64_kb_dynamic_shared_memory_on_cuda(cuda_headers, hip_headers):
    text = cuda_headers["big_f16"][0].read_text()
    assert "inline constexpr int kSmemBytes = 65536;" in text and "inline constexpr bool kSmemOptIn = true;" in text
    assert "inline constexpr int kSmemBytes = 65536;" in hip_headers["big_f16"][0].read_text()


# --------------------------------------------------------------------------------------------- CUDA


def _nvrtc_front_end(source: str, folder: Path, arch: str) -> str:
    """NVRTC's front end only (-fdevice-syntax-only): the log, which holds its errors and warnings."""
    try:
        nvrtc = nvrtc_library()
        include = cuda_include_dir()
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    opts = [f"-arch={arch}", "-std=c++17", f"-I{include}", f"-I{folder}", "-fdevice-syntax-only", DEBUG]
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"alone.cu", 0, [], [])
    try:
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = bytearray(size)  # a fresh buffer: NVRTC writes into it
        nvrtc.nvrtcGetProgramLog(prog, log)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    log = bytes(log).rstrip(b"\0 ").decode(errors="replace")
    return log if err == nvrtc.nvrtcResult.NVRTC_SUCCESS or log else f"NVRTC failed: {err}"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_each_cuda_header_compiles_alone_with_nvrtc(cuda_headers, arch):
    folder = next(iter(cuda_headers.values()))[0].parent
    for name in cuda_headers:
        log = _nvrtc_front_end(unit("cuda", cuda_headers, [name]), folder, arch)
        assert log == "", f"{name} ({arch}, {DEBUG}):\n{log}"


def test_cuda_headers_compile_with_nvcc(cuda_headers):
    try:
        tool = nvcc()
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    folder = next(iter(cuda_headers.values()))[0].parent
    (folder / "all.cu").write_text(unit("cuda", cuda_headers, list(cuda_headers)))
    archs = ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"]
    cmd = [tool, "-std=c++17", *archs, "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Werror", DEBUG, "-G"]
    cmd += ["-fdevice-syntax-only", "-c", "all.cu", "-o", "all.o"]
    r = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr


# ---------------------------------------------------------------------------------------------- HIP


def _clang(folder: Path, source: str, arch: str) -> subprocess.CompletedProcess:
    """clang-19's HIP front end over `source`, with HIP_SHIM as <hip/hip_runtime.h> but never included for it."""
    clang = shutil.which("clang-19")
    if clang is None:
        pytest.skip("clang-19 is not installed; `make hip-toolchain` installs it with apt")
    (folder / "hip").mkdir(exist_ok=True)
    (folder / "hip" / "hip_runtime.h").write_text(HIP_SHIM)
    for header in ("hip_fp16.h", "hip_bf16.h"):  # the shim declares their types too
        (folder / "hip" / header).write_text("#include <hip/hip_runtime.h>\n")
    (folder / "unit.hip").write_text(source)
    cmd = [clang, "-x", "hip", "-nogpulib", "-nogpuinc", "--cuda-device-only", "-std=c++17", f"--offload-arch={arch}"]
    cmd += [f"-I{folder}", "-Wall", "-Werror", DEBUG, "-fsyntax-only", "unit.hip"]
    return subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False)


def test_each_hip_header_compiles_alone_with_clang(hip_headers):
    folder = next(iter(hip_headers.values()))[0].parent
    for name in hip_headers:
        r = _clang(folder, unit("hip", hip_headers, [name]), "gfx942")
        assert r.returncode == 0 and r.stderr == "", f"{name} (gfx942, {DEBUG}):\n{r.stderr}"


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
def test_hip_headers_compile_together_with_clang(hip_headers, arch):
    folder = next(iter(hip_headers.values()))[0].parent
    r = _clang(folder, unit("hip", hip_headers, list(hip_headers)), arch)
    assert r.returncode == 0 and r.stderr == "", r.stderr


# ------------------------------------------------------------- the headers of several TTGIR dumps, in one translation unit
def _dumps(folder: Path) -> list[Path]:
    """Three dumps of one source file: its matmul for sm_90 and for sm_80 (one kernel name and the same source line
    for each op, other code), and the sm_80 dump with another kernel name (the same code)."""
    from helpers import ROOT

    data = ROOT / "tests" / "data" / "ttgir"
    renamed = folder / "matmul_t.sm80.ttgir"
    renamed.write_text((data / "matmul.sm80.ttgir").read_text().replace("@matmul(", "@matmul_t("))
    return [data / "matmul.ttgir", data / "matmul.sm80.ttgir", renamed]


def _tile_use(name: str) -> str:
    return f"""
__global__ void use_{name}(const __half* in, __half* out) {{
  namespace t = llgen::{name};
  extern __shared__ __align__(t::kSmemAlign) unsigned char smem[];
  __half a[t::kInRegs], b[t::kOutRegs];
  t::load_a(in, a);
  t::store(a, smem);
  __syncthreads();
  t::load(smem, b);
  t::store_b(out, b);
}}
"""


def test_headers_of_several_ttgir_dumps_share_a_folder_and_a_translation_unit(tmp_path):
    """Each dump's headers into one folder, as `llgen emit --ttgir` names them (the function, the source location
    and a hash of the code) and with --name prefixes; one .cu file includes every header and uses each tile's."""
    import re

    from helpers import invoke

    out = tmp_path / "third_party"
    dumps = _dumps(tmp_path)
    runs = [[str(d)] for d in dumps] + [[str(dumps[0]), "--name", "mm90"], [str(dumps[1]), "--name", "mm80"]]
    for args in runs:
        res = invoke("emit", "--ttgir", *args, "-o", f"{out}/")
        assert res.exit_code == 0, res.output
    headers = sorted(out.glob("*.cuh"))
    namespaces = [re.search(r"^namespace (?!llgen )(\w+) \{$", h.read_text(), re.M).group(1) for h in headers]
    assert namespaces == [h.stem for h in headers] and len(set(namespaces)) == len(headers) == 15
    stems = [h.stem.rsplit("_", 1)[0] for h in headers if not h.stem.startswith("mm")]
    assert stems.count("matmul_x_l35c20") == 2 and stems.count("matmul_t_x_l35c20") == 1  # one location, other code
    assert {p.name for p in out.glob("*.txt")} == {"index.txt", "mm90_index.txt", "mm80_index.txt"}
    tiles = [h.stem for h in headers if "void load(const void* smem, T (&out)[kOutRegs])" in h.read_text()]
    assert len(tiles) == 6  # the sm_80 dumps' two allocations, each stored and loaded: three dumps of them
    source = "\n".join([*(f'#include "{h.name}"' for h in headers), "#include <cuda_fp16.h>", *map(_tile_use, tiles)])
    log = _nvrtc_front_end(source, out, "sm_90")
    assert log == "", log
    try:
        tool = nvcc()
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    (out / "all.cu").write_text(source)
    cmd = [tool, "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Werror", DEBUG]
    r = subprocess.run([*cmd, "-fdevice-syntax-only", "-c", "all.cu", "-o", "all.o"], cwd=out, capture_output=True, text=True)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
