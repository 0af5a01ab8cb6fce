"""The CPU toolchain counts instructions exactly, and sees local memory when it is there.

Each kernel below uses one instruction pattern the emitter relies on, written by hand (inline PTX where the
instruction has no intrinsic), so a count that drifts means the parser broke, not the planner. The
runtime-indexed arrays are the negative controls: a local-memory check that never fires would prove nothing.
All kernels of a language go through one compile per arch, because each call pays a fixed start-up cost.
"""

import shutil

import pytest

from llgen import LlgenError
from llgen.runtime.toolchain import ToolchainUnavailable, compile_cuda, compile_hip, disassemble

CUDA = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void k_shfl(unsigned *p) {
  unsigned v = p[threadIdx.x], a, b;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(a) : "r"(v), "r"(threadIdx.x ^ 3u));
  asm volatile("shfl.sync.bfly.b32 %0, %1, 4, 0x1f, 0xffffffff;" : "=r"(b) : "r"(a));
  p[threadIdx.x] = __shfl_xor_sync(0xffffffffu, b, 8);
}

extern "C" __global__ void k_ldsm(unsigned *p) {
  __shared__ alignas(16) unsigned short s[32 * 8];
  for (int i = threadIdx.x; i < 32 * 8; i += blockDim.x) s[i] = (unsigned short)i;
  __syncthreads();
  unsigned addr = smem_u32(&s[(threadIdx.x % 32) * 8]), a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(c0) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(c1), "=r"(c2) : "r"(addr));
  p[threadIdx.x] = a0 ^ a1 ^ a2 ^ a3 ^ b0 ^ b1 ^ b2 ^ b3 ^ c0 ^ c1 ^ c2;
}

extern "C" __global__ void k_stsm(const unsigned *p, unsigned *q) {
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(16) unsigned short s[32 * 8];
  unsigned addr = smem_u32(&s[(threadIdx.x % 32) * 8]);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(addr), "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(addr), "r"(p[4]), "r"(p[5]), "r"(p[6]), "r"(p[7]) : "memory");
  __syncthreads();
  q[threadIdx.x] = s[threadIdx.x ^ 1];
#endif
}

extern "C" __global__ void k_lds(uint4 *p, const unsigned char *q, const signed char *r) {
  __shared__ uint4 s128[256];
  __shared__ uint2 s64[256];
  __shared__ unsigned s32[256];
  __shared__ unsigned char s8[256];
  __shared__ signed char s8s[256];
  unsigned t = threadIdx.x;
  uint4 in = p[t];
  s128[t] = in;
  s64[t] = make_uint2(in.x, in.y);
  s32[t] = in.z;
  s8[t] = q[t];
  s8s[t] = r[t];
  __syncthreads();
  uint4 v = s128[t ^ 1];
  uint2 w = s64[t ^ 2];
  v.x += w.x + w.y + s32[t ^ 3] + s8[t ^ 5] + (int)s8s[t ^ 7];
  p[t] = v;
}

extern "C" __global__ void k_prmt(unsigned *p) {
  unsigned r;
  asm("prmt.b32 %0, %1, %2, 0x5410;" : "=r"(r) : "r"(p[0]), "r"(p[1]));
  p[2] = r;
}

__global__ void k_local(float *p, int n) {  // a register array indexed at run time must live in local memory
  float a[64];
  for (int k = 0; k < 64; ++k) a[k] = p[k];
  for (int k = 0; k < n; ++k) a[(k * 7 + n) & 63] += p[k];
  p[threadIdx.x] = a[threadIdx.x & 63];
}

namespace llgen { namespace demo {
template <class T> __global__ void convert(T *p) { p[threadIdx.x] += T(1); }
template __global__ void convert<float>(float *);
template __global__ void convert<__half>(__half *);
}}
"""

HIP = r"""
#include <hip/hip_runtime.h>

extern "C" __global__ void h_shfl(unsigned *p, float *f) {
  unsigned v = p[threadIdx.x];
  p[threadIdx.x] = __shfl(v, (int)(threadIdx.x ^ 5u)) + __shfl_xor(v, 3);
  f[threadIdx.x] = __shfl(f[threadIdx.x], 7);
}

extern "C" __global__ void h_lds(uint4 *p, const unsigned char *q, __half *h, __hip_bfloat16 *b, int64_t *l) {
  __shared__ uint4 s128[256];
  __shared__ uint2 s64[256];
  __shared__ unsigned s32[256];
  __shared__ unsigned char s8[256];
  unsigned t = threadIdx.x + blockIdx.x * blockDim.x * gridDim.x;
  uint4 in = p[t];
  s128[t] = in;
  s64[t] = make_uint2(in.x, in.y);
  s32[t] = in.z;
  s8[t] = q[t];
  __syncthreads();
  uint4 v = s128[t ^ 1];
  uint2 w = s64[t ^ 2];
  v.x += w.x + w.y + s32[t ^ 3] + s8[t ^ 5];
  p[t] = v;
  h[t] = h[t + 1];
  b[t] = b[t + 2];
  l[t] = l[t + 3];
}

extern "C" __global__ void h_perm(unsigned *p) { p[2] = __builtin_amdgcn_perm(p[0], p[1], 0x05040100u); }

__global__ void h_local(float *p, int n) {  // a register array indexed at run time must live in scratch
  float a[64];
  for (int k = 0; k < 64; ++k) a[k] = p[k];
  for (int k = 0; k < n; ++k) a[(k * 7 + n) & 63] += p[k];
  p[threadIdx.x] = a[threadIdx.x & 63];
}
"""


@pytest.fixture(scope="module", params=["sm_80", "sm_90a"])
def sass(request):
    try:
        cubin = compile_cuda(CUDA, request.param)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    assert "warning" not in cubin.log
    return request.param, disassemble(cubin)


@pytest.fixture(scope="module", params=["gfx90a", "gfx942"])
def isa(request):
    try:
        obj = compile_hip(HIP, request.param)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    return request.param, disassemble(obj)


def test_shuffles_split_by_mode(sass):
    _, k = sass
    assert (k["k_shfl"].shfl, k["k_shfl"].shfl_idx, k["k_shfl"].shfl_bfly) == (3, 1, 2)
    assert not k["k_shfl"].uses_local_memory


def test_ldmatrix_variants(sass):
    _, k = sass
    assert k["k_ldsm"].ldsm == {"x4": 1, "x4.T": 1, "x1": 1, "x2.T": 1}
    assert k["k_ldsm"].bar == 1


def test_stmatrix_only_on_sm90(sass):
    arch, k = sass
    assert k["k_stsm"].stsm == ({"x4": 1, "x4.T": 1} if arch == "sm_90a" else {})


def test_shared_widths(sass):
    arch, k = sass
    assert k["k_lds"].lds == {128: 1, 64: 1, 32: 1, 8: 2}
    assert k["k_lds"].sts == {128: 1, 64: 1, 32: 1, 8: 2}
    assert k["k_lds"].count("LDS.S8") == 1 and k["k_lds"].count("LDS.U8") == 1
    reserved = 1024 if arch.startswith("sm_90") else 0  # sm_90 reserves 1 KiB of every block's shared memory
    assert k["k_lds"].shared == 256 * (16 + 8 + 4 + 1 + 1) + reserved
    assert not k["k_lds"].uses_local_memory


def test_prmt(sass):
    assert sass[1]["k_prmt"].prmt == 1


def test_local_memory_is_detected(sass):
    local = sass[1]["k_local"]
    assert local.stack == 256 and local.ldl > 0 and local.stl > 0 and local.uses_local_memory


def test_lookup_by_mangled_and_demangled_name(sass):
    _, k = sass
    assert k["k_local"] is k["_Z7k_localPfi"]
    if shutil.which("c++filt") or shutil.which("llvm-cxxfilt-19"):
        assert k["llgen::demo::convert<float>"] is k["_ZN5llgen4demo7convertIfEEvPT_"]
        assert k["void llgen::demo::convert<float>(float*)"].name == "_ZN5llgen4demo7convertIfEEvPT_"
    with pytest.raises(KeyError, match="is not a kernel"):
        k["nope"]


def test_compile_errors_and_bad_arch():
    with pytest.raises(LlgenError, match="sm_70"):
        compile_cuda("", "sm_70")
    with pytest.raises(LlgenError, match="gfx1100"):
        compile_hip("", "gfx1100")


def test_a_clean_compile_leaves_python_bytes_alone(monkeypatch):
    """NVRTC writes its (empty, one-NUL) log into our buffer; CPython's shared b" " must not be that buffer."""
    monkeypatch.setenv("LLGEN_COMPILE_CACHE", "")  # NVRTC itself, in this process
    try:
        cubin = compile_cuda('extern "C" __global__ void k() {}', "sm_80")
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    assert cubin.log == ""
    assert bytes([0x20])[0] == bytes(" ", "ascii")[0] == 0x20


def test_cuda_compile_error_carries_the_log():
    from llgen.runtime.toolchain import ToolchainError

    try:
        compile_cuda("__global__ void k() { undefined_thing(); }", "sm_80")
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    except ToolchainError as e:
        assert "undefined_thing" in str(e)
    else:
        pytest.fail("a kernel calling an undefined function compiled")


def test_inline_asm_is_checked_by_ptxas():
    """A cubin, not PTX: ptxas rejects stmatrix on sm_80, which a PTX-only compile would let through."""
    from llgen.runtime.toolchain import ToolchainError

    src = 'extern "C" __global__ void k(unsigned a) { asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%0};" :: "r"(a)); }'
    try:
        assert disassemble(compile_cuda(src, "sm_90"))["k"].stsm == {"x1": 1}
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    with pytest.raises(ToolchainError, match="requires .target sm_90"):
        compile_cuda(src, "sm_80")


def test_hip_shuffles_are_bpermutes(isa):
    _, k = isa
    assert k["h_shfl"].bpermute == 3
    assert not k["h_shfl"].uses_local_memory


def test_hip_lds_widths(isa):
    _, k = isa
    assert k["h_lds"].ds_read == {128: 1, 64: 1, 32: 1, 8: 1}
    assert k["h_lds"].ds_write == {128: 1, 64: 1, 32: 1, 8: 1}
    assert k["h_lds"].s_barrier == 1
    assert k["h_lds"].kernel.lds == 256 * (16 + 8 + 4 + 1)
    assert not k["h_lds"].uses_local_memory


def test_hip_perm(isa):
    assert isa[1]["h_perm"].v_perm == 1


def test_hip_scratch_is_detected(isa):
    local = isa[1]["h_local"]
    assert local.kernel.scratch >= 256 and local.scratch_ops > 0 and local.uses_local_memory
    assert isa[1]["_Z7h_localPfi"] is local


def test_the_compile_cache_reads_a_text_back_and_keeps_no_failure(tmp_path, monkeypatch):
    """A text compiled again (same arch and flags) is read from LLGEN_COMPILE_CACHE, disassembly included; another
    arch or flag is another entry; a failed compile leaves no entry and fails again."""
    from llgen.runtime.toolchain import ToolchainError, cuda

    monkeypatch.setenv("LLGEN_COMPILE_CACHE", str(tmp_path))
    src = 'extern "C" __global__ void k(unsigned* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffffu, p[threadIdx.x], 1); }'
    try:
        first = compile_cuda(src, "sm_80")
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    sass = disassemble(first)["k"]
    entries = sorted(tmp_path.rglob("*"))
    with pytest.raises(ToolchainError):
        compile_cuda(src + "nonsense", "sm_80")
    assert sorted(tmp_path.rglob("*")) == entries  # no entry for the failure, no temporary file left

    def no_tool(*_args):
        raise AssertionError("compiled or disassembled again")

    monkeypatch.setattr(cuda, "_nvrtc_compile", no_tool)  # where compile_cuda and disassemble look them up
    monkeypatch.setattr(cuda, "cuobjdump_text", no_tool)
    again = compile_cuda(src, "sm_80")
    assert again == first and disassemble(again)["k"].opcodes == sass.opcodes and sass.shfl == 1
    for arch, options in (("sm_90", ()), ("sm_80", ("-DX=1",))):
        with pytest.raises(AssertionError, match="compiled or disassembled again"):
            compile_cuda(src, arch, options)


def test_sass_key_names_the_text_arch_and_flags():
    from llgen.runtime.toolchain import sass_key

    try:
        key = sass_key("a", "sm_80")
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    assert (
        key == sass_key("a", "sm_80")
        and len({key, sass_key("b", "sm_80"), sass_key("a", "sm_90"), sass_key("a", "sm_80", ("-DX",))}) == 4
    )


def test_loop_counts_the_longest_backward_branch_body():
    """Sass.loop(): the opcodes from a backward BRA's target (16 bytes an instruction) to the BRA; a forward BRA and a
    shorter loop are not it; no loop is an empty count."""
    from collections import Counter

    from llgen.runtime.toolchain import Sass

    lines = ["MOV R1, R2", "BRA 0x60", "LDS.128 R4, [R0]", "LOP3.LUT R5, R4, 0x1, RZ, 0xc0, !PT", "BRA 0x30",
             "LDS R6, [R0]", "IADD3 R1, R1, 0x1, RZ", "ISETP.NE.AND P0, PT, R1, R7, PT", "BRA 0x50", "EXIT"]  # fmt: skip
    sass = Sass("k", "k", "\n".join(lines), Counter(), 0, 0, 0, 0)
    assert sass.loop() == Counter(["LDS", "IADD3", "ISETP.NE.AND", "BRA"])  # lines 5-8, not 3-4, not the forward BRA
    assert Sass("k", "k", "MOV R1, R2\nBRA 0x20\nEXIT", Counter(), 0, 0, 0, 0).loop() == Counter()
