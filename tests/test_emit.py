"""Every emitted kernel compiles on the CPU and its disassembly shows what the plan promised."""

from __future__ import annotations

import functools
import json
import re

import pytest
from helpers import ROOT, recorded_facts, sass_summary, summary_sass, write_record

from llgen.cli.examples import example_files
from llgen.emit import emit
from llgen.plan import plan_conversion
from llgen.randlayout import random_plans
from llgen.runtime.toolchain import ToolchainError, ToolchainUnavailable, compile_cuda, compile_hip, disassemble


def expected_counts(plan) -> dict:
    """What the disassembly of the conversion must show."""
    exp = {"shfl": 0, "ldsm": {}, "stsm": {}, "lds": {}, "sts": {}}
    d = plan.detail
    if plan.path == "shuffle":
        exp["shfl"] = d.shuffles
    elif plan.path == "shared":
        for side, key, mkey in ((d.store, "sts", "stsm"), (d.load, "lds", "ldsm")):
            if side.matrices:
                exp[mkey] = {f"x{side.matrices}" + (".T" if side.op.endswith("trans") else ""): len(side.instrs)}
            else:
                exp[key] = {side.width * plan.dtype.bits: len(side.instrs)}
    return exp


def check_sass(sass, plan, name: str) -> None:
    exp = expected_counts(plan)
    got = {"shfl": sass.shfl, "ldsm": dict(sass.ldsm), "stsm": dict(sass.stsm), "lds": dict(sass.lds), "sts": dict(sass.sts)}
    assert got == exp, f"{name}: disassembly {got} differs from the plan's {exp}\n{plan.explain()}"
    assert not sass.uses_local_memory, f"{name}: local memory (stack {sass.stack}, LDL {sass.ldl}, STL {sass.stl})"


def test_emitted_text_is_byte_identical_to_the_committed_hashes():
    """Every text the suites emit (each variant, both forms, three targets, and the bench sources) hashes as
    committed: a restructuring of the planner or the emitter must print the same bytes. After an intended change,
    `make examples` rewrites tests/data/emitted-hashes.json; the diff then shows which texts changed."""
    import json

    from llgen.cli.examples import emitted_hashes

    want = json.loads((ROOT / "tests" / "data" / "emitted-hashes.json").read_text())
    got = emitted_hashes()
    changed = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
    assert not changed, f"{len(changed)} emitted texts differ from tests/data/emitted-hashes.json: {changed[:8]}"


def test_kernels_out_is_fresh():
    stale = [
        rel
        for rel, text in example_files().items()
        if not (ROOT / "kernels_out" / rel).exists() or (ROOT / "kernels_out" / rel).read_text() != text
    ]
    assert not stale, f"kernels_out/ is stale (run `make examples`): {stale}"


# The core suite's kernels by text hash, as the random kernels below: tests/data/core-sass.json keeps, for each job's
# text (its debug and tile kernels), the SASS summary of both and the debug kernel's shared-address registers; a job
# whose text hashes as recorded is checked against the record, the others compile (in one source).
# `python tests/test_emit.py` rewrites the record with random-sass.json.
CORE_SASS = ROOT / "tests" / "data" / "core-sass.json"
SHARED_ADDRESS = re.compile(r"^\s*(?:@!?U?P\d\s+)?(?:LDS|STS|LDSM|STSM)\S*\s.*?\[(R\d+)")


def shared_address_registers(sass) -> int:
    """How many registers the shared accesses (st.shared, ldmatrix, stmatrix) of a function take their address from."""
    text = re.sub(r"/\*[0-9a-f]*\*/", "", sass.text)
    return len({m.group(1) for m in map(SHARED_ADDRESS.match, text.splitlines()) if m})


def _core_facts(kernels, name: str) -> dict:
    debug = kernels[f"{name}_debug"]
    return {
        "debug": sass_summary(debug),
        "kernel": sass_summary(kernels[f"{name}_kernel"]),
        "shared_address_registers": shared_address_registers(debug),
    }


def core_sass(arch: str, known: dict) -> tuple[list, dict, dict]:
    """The core suite's jobs (each plan once), the facts of each job's kernels by job name, and their record."""
    from llgen.runtime.cases import suite_jobs

    jobs = [j for j in suite_jobs("core", arch)[0] if j.same_as is None]
    facts, record = recorded_facts({j.name: emit(j.plan, "kernel", j.name) for j in jobs}, arch, known, _core_facts)
    return jobs, facts, record


@functools.cache
def _core_kernels(arch: str):
    """The core suite's jobs and their kernels' facts (two tests read them)."""
    return core_sass(arch, json.loads(CORE_SASS.read_text())[arch])[:2]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_suite_cuda_compiles_as_planned(arch):
    """Every suite case by every variant gpu-check runs (llgen's pick, forced paths, unswizzled, classic, shared_vec, naive)."""
    jobs, facts = _core_kernels(arch)
    assert {j.variant for j in jobs} >= {"llgen", "shuffle", "unswizzled", "classic_matrix", "naive"}
    for j in jobs:
        check_sass(summary_sass(f"{j.name}_debug", facts[j.name]["debug"]), j.plan, f"{j.label} ({arch})")
        assert not summary_sass(f"{j.name}_kernel", facts[j.name]["kernel"]).uses_local_memory, j.label


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_shared_accesses_share_address_registers(arch):
    """One address register per XOR pattern: the constant part of every shared access (st.shared, ldmatrix,
    stmatrix) lands in the instruction's immediate. ptxas keeps these registers live across a caller's loop,
    so one per instruction would cost registers (b2bT_f16's LOOP kernel took 126 instead of 104 with NVRTC 13.0)."""
    jobs, facts = _core_kernels(arch)
    jobs = [j for j in jobs if j.variant == "llgen" and j.plan.path == "shared"]
    for j in jobs:
        d = j.plan.detail
        patterns = len({i.xor_const for i in d.store.instrs}) + len({i.xor_const for i in d.load.instrs})
        bases = facts[j.name]["shared_address_registers"]
        assert 0 < bases <= patterns, f"{j.label} ({arch}): {bases} address registers for {patterns} XOR patterns"


# The random kernels' machine code by text hash (llgen.runtime.toolchain.sass_key: the text, the arch, NVRTC's flags
# and the pinned releases): a kernel whose text hashes as recorded compiled to that code then, with the same compiler,
# so it is checked against the record, not compiled again; only kernels whose text changed compile (in one source).
# `python tests/test_emit.py` rewrites the record after an intended change in generated code.
RANDOM_SASS = ROOT / "tests" / "data" / "random-sass.json"


def _random_plans(arch: str):
    return random_plans(200, seed=7 if arch == "sm_80" else 8, target=arch)


def random_sass(arch: str, plans, known: dict) -> tuple[list, dict]:
    """The debug kernel's Sass of each plan (form "kernel", named r<i>), and the record of each by text hash: read
    from ``known`` where the text hashes as recorded, else compiled."""
    units = {f"r{i}": emit(p, "kernel", f"r{i}") for i, p in enumerate(plans)}
    facts, record = recorded_facts(units, arch, known, lambda kernels, name: sass_summary(kernels[f"{name}_debug"]))
    return [summary_sass(f"{name}_debug", facts[name]) for name in units], record


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_random_plans_compile_as_planned(arch):
    plans = _random_plans(arch)
    kernels, _ = random_sass(arch, plans, json.loads(RANDOM_SASS.read_text())[arch])
    for i, p in enumerate(plans):
        check_sass(kernels[i], p, f"random plan r{i} ({p.path}, {p.dtype.name})")


def test_kernels_out_headers_compile_alone():
    cuda = sorted((ROOT / "kernels_out" / "cuda").glob("*.cuh"))
    assert cuda
    for h in cuda:
        compile_cuda(h.read_text() + "\n", "sm_90")


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
def test_hip_outputs_compile(arch):
    hip = sorted((ROOT / "kernels_out" / "hip").glob("*.hip"))
    try:
        # each kernel file includes its header, written beside it
        obj = compile_hip("\n".join(p.read_text() for p in hip), arch, (f"-I{ROOT / 'kernels_out' / 'hip'}",))
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    isa = disassemble(obj)
    from llgen.cases.suite import core

    for case in core():
        k = isa.get(f"{case.id}_debug")
        if k is None:
            continue
        assert not k.uses_local_memory, f"{case.id}: scratch on {arch}"
    assert isa["lanes_f32_debug"].bpermute > 0, "the shuffle plan must use ds_bpermute"


def test_emit_is_deterministic():
    from llgen.cases.suite import core

    case = core()[1]
    p1 = plan_conversion(case.src, case.dst, case.dtype, "sm_90")
    p2 = plan_conversion(case.src, case.dst, case.dtype, "sm_90")
    assert emit(p1, "kernel", "x") == emit(p2, "kernel", "x")


def _c_function(expr: str):
    """affine_expr's C as a Python function of (lane, warp): unsigned literals, and `(x ? c : 0u)` selects."""
    py = re.sub(r"\b(0x[0-9a-f]+|\d+)u\b", r"\1", expr)
    py = re.sub(r"\(\((\w+) >> (\d+)\) & 1 \? (\w+) : 0\)", r"(\3 if (\1 >> \2) & 1 else 0)", py)
    py = re.sub(r"\((\w+) & 1 \? (\w+) : 0\)", r"(\2 if \1 & 1 else 0)", py)  # bit 0 needs no shift
    return eval(f"lambda lane, warp: {py}", {})  # our own expression, checked against Affine.value


def test_affine_expr_is_the_map_and_moves_each_run_of_bits_with_one_shift():
    """Runs of thread bits that land on consecutive bits are one shift-and-mask (lanes_f32's bwd source lane is
    `(lane >> 1) & 0xfu`, not four one-bit terms: that spelling cost its LOOP kernel 8 registers); bits that
    fan out to several bits keep a select. Every spelling evaluates to Affine.value on every thread."""
    import random

    from llgen.emit import affine_expr
    from llgen.plan.affine import Affine

    rot = Affine(0, (16, 1, 2, 4, 8, 128, 256))  # lane bit 0 -> 4, bits 1-4 -> 0-3, warp bits -> 7-8
    assert affine_expr(rot, 5) == "((lane & 1u) << 4) ^ ((lane >> 1) & 0xfu) ^ ((warp & 3u) << 7)"
    rng = random.Random(7)
    for _ in range(300):
        cols = tuple(rng.choice([0, 1 << rng.randrange(9), rng.randrange(1, 512)]) for _ in range(7))
        aff = Affine(rng.choice([0, rng.randrange(512)]), cols)
        expr = affine_expr(aff, 5)
        value = _c_function(expr)
        for x in range(128):
            assert value(x & 31, x >> 5) == aff.value(x), (aff, expr, x)


def _vendoring_example() -> str:
    """The consumer.cu of docs/vendoring.md, as the guide prints it."""
    text = (ROOT / "docs" / "vendoring.md").read_text()
    return next(b for b in re.findall(r"```cpp\n(.*?)```", text, re.DOTALL) if "use_it" in b)


def _plan_of_each_kind() -> dict:
    """A noop, a registers, a shuffle and a shared plan of 128x64 f16 tiles on 4 warps."""
    from llgen import LinearLayout
    from llgen.spec import parse_layout

    a = parse_layout("blocked:spt=1x8,tpw=4x8,wpc=4x1,order=1x0", (128, 64), 4, 32)
    d = a.to_dict()
    regs = d["bases"]["register"]
    regs[0], regs[3] = regs[3], regs[0]
    reordered = LinearLayout.from_dict(d)
    d = a.to_dict()
    lanes = d["bases"]["lane"]
    d["bases"]["lane"] = lanes[1:] + lanes[:1]
    rotated = LinearLayout.from_dict(d)
    dot = parse_layout("dot:op=0,k_width=2", (128, 64), 4, 32)
    plans = {
        kind: plan_conversion(a, b, "f16", "sm_90")
        for kind, b in (("noop", a), ("registers", reordered), ("shuffle", rotated), ("shared", dot))
    }
    assert {k: p.path for k, p in plans.items()} == {k: k for k in plans}
    return plans


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_vendoring_guide_compiles_whatever_the_plan(arch):
    """The guide's code (`extern __shared__ ... smem[]`, `convert(a, b, smem)`) builds against the header of
    a noop, a registers, a shuffle and a shared plan alike: changing a layout or a dtype never breaks the caller."""
    consumer = _vendoring_example()
    for kind, p in _plan_of_each_kind().items():
        header = emit(p, "header", "b2dotA_f16")
        source = consumer.replace('#include "third_party/b2dotA_f16.cuh"', header)
        assert source != consumer, "the guide no longer includes the header it is tested with"
        compile_cuda(source, arch)  # raises with the compiler's log on any error
        assert kind


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_register_permutation_moves_elements_not_words(arch):
    """The typed convert of a registers plan renames elements: a kernel that loads each element, converts and stores
    each compiles to the same instructions as one that copies, with no PRMT, while the packed-word form pays PRMTs
    for the 16-bit elements that change words."""
    p = _plan_of_each_kind()["registers"]
    n = p.n_in
    body = """
  unsigned short a[{n}], b[{n}];
#pragma unroll
  for (int i = 0; i < {n}; ++i) a[i] = in[(threadIdx.x * {n} + i) * 2];  // stride 2: one scalar access each
  {step}
#pragma unroll
  for (int j = 0; j < {n}; ++j) out[(threadIdx.x * {n} + j) * 2] = b[j];"""
    bits = "unsigned w[{h}], v[{h}]; llgen::r::pack(a, w); llgen::r::convert_bits(w, v); llgen::r::unpack(v, b);"
    kernels = {
        "typed": "llgen::r::convert(a, b);",
        "copy": "for (int j = 0; j < {n}; ++j) b[j] = a[j];",
        "bits": bits.format(h=n // 2),
    }
    src = emit(p, "header", "r") + "".join(
        f'\nextern "C" __global__ void k_{k}(const unsigned short* in, unsigned short* out) {{'
        + body.format(n=n, step=step.format(n=n))
        + "\n}\n"
        for k, step in kernels.items()
    )
    sass = disassemble(compile_cuda(src, arch))
    typed, copy, packed = sass["k_typed"], sass["k_copy"], sass["k_bits"]
    assert typed.prmt == 0 and sum(typed.opcodes.values()) == sum(copy.opcodes.values())
    assert packed.prmt > 0, "the packed form should pay for moving halves between words"


@pytest.mark.parametrize("arch", ["gfx942"])
def test_hip_headers_take_the_same_group_api(arch):
    """HIP's header has CUDA's API: a group at FirstWarp, strided I/O and coordinates compile with clang-19 for every
    kind of plan; a named barrier is refused at compile time with a sentence saying why."""
    from llgen import LinearLayout
    from llgen.spec import parse_layout

    a = parse_layout("blocked:spt=1x8,tpw=8x8,wpc=4x1,order=1x0", (64, 64), 4, 64)
    d = a.to_dict()
    d["bases"]["lane"] = d["bases"]["lane"][1:] + d["bases"]["lane"][:1]
    kinds = {"shared": parse_layout("mfma", (64, 64), 4, 64), "shuffle": LinearLayout.from_dict(d)}
    src = ""
    for kind, b in kinds.items():
        p = plan_conversion(a, b, "f16", "gfx942")
        src += (
            emit(p, "header", f"h_{kind}")
            + f"""
__global__ void use_{kind}(const unsigned short* in, unsigned short* out, long long ld, int* c) {{
  __shared__ __attribute__((aligned(16))) unsigned char smem[llgen::h_{kind}::kSmemDecl];
  unsigned short x[llgen::h_{kind}::kInRegs], y[llgen::h_{kind}::kOutRegs];
  llgen::h_{kind}::load_a<4>(in, ld, x);
  llgen::h_{kind}::convert<4>(x, y, smem);
  llgen::h_{kind}::store_b<4>(out, ld, y);
  *c = llgen::h_{kind}::coord_b<4>(0).d[1];
}}
"""
        )
    try:
        compile_hip(src, arch)
    except ToolchainUnavailable as e:
        pytest.skip(str(e))
    bad = src.replace("convert<4>(x, y, smem)", "convert<4, 1>(x, y, smem)")
    with pytest.raises(ToolchainError, match="HIP has no named barriers"):
        compile_hip(bad, arch)


def _byte_perm(x: int, y: int, s: int) -> int:
    """CUDA's __byte_perm: result byte i is byte (s >> 4i) & 7 of y:x."""
    both = (y << 32) | x
    return sum(((both >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))


@pytest.mark.parametrize("seed", range(40))
def test_byte_word_builds_each_byte_from_its_source_with_at_most_three_permutes(seed):
    """Any four (word, byte) sources, from one to four words: the expression gives those bytes, is the word itself
    where it is one, one byte_perm for up to two words and three for four (docs/design.md §8.2)."""
    import random

    from llgen.emit.spelling import byte_word

    rng = random.Random(seed)
    words = [rng.getrandbits(32) for _ in range(4)]
    pool = rng.sample(range(4), rng.randint(1, 4))
    sources = [(f"w[{rng.choice(pool)}]", rng.randrange(4)) for _ in range(4)]
    if seed == 0:
        sources = [("w[2]", i) for i in range(4)]
    expr = byte_word(sources)
    got = eval(re.sub(r"\b(0x[0-9a-f]+|\d+)u\b", r"\1", expr), {"byte_perm": _byte_perm, "w": words})  # noqa: S307
    want = sum(((words[int(w[2])] >> (8 * b)) & 0xFF) << (8 * i) for i, (w, b) in enumerate(sources))
    assert got == want, (sources, expr)
    n, perms = len({w for w, _ in sources}), expr.count("byte_perm")
    if seed == 0:
        assert perms == 0
    elif n <= 2:
        assert perms == 1
    elif n == 4:
        assert perms == 3
    else:
        assert perms <= 3


if __name__ == "__main__":
    # after an intended change in generated code: the random and the core suite's kernels compiled again, their
    # records rewritten
    archs = ("sm_80", "sm_90")
    write_record(RANDOM_SASS, {arch: random_sass(arch, _random_plans(arch), {})[1] for arch in archs})
    write_record(CORE_SASS, {arch: core_sass(arch, {})[2] for arch in archs})
