"""Text that Triton 3.0 to 3.5 printed reads as the layout Triton 3.6 prints for it.

tests/data/legacy/ holds what each release printed (README.md there says where each file came from; make_legacy.py
wrote them with each release's PyPI wheel): ``layouts-<release>.mlir``, one module per case, each a layout of every
family in that release's spelling (the ``#triton_gpu.`` prefix, ``#triton_gpu.shared`` with hasLeadingOffset,
amd_mfma's versionMajor and ``instrShape = [M, N]``, amd_wmma without version or isTranspose, a wgmma operand without
kWidth, ``!tt.memdesc``, the old cluster fields) printed back by the release, and the same cases in Triton 3.6's
spelling printed by 3.6; and whole TTGIR dumps of small kernels each release compiled. Each case parses to the layout
its 3.6 spelling parses to, and prints as that spelling; the 3.6 spelling is Triton 3.6's own layout, bit for bit
(Triton is the oracle where it is installed); each dump is read and planned; and a kernel two releases compiled to
the same layouts in their two spellings gives the same layouts op by op (3.2's hasLeadingOffset shared layouts against
3.3's nvmma_shared among them).
"""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, invoke, one_sentence

from llgen.core.dtypes import from_mlir
from llgen.core.errors import LlgenError
from llgen.spec import Where, parse_encoding, parse_layout
from llgen.spec.location import split_top
from llgen.spec.module import parse_ttgir, read_ttgir
from llgen.spec.render import attribute, parsed_text
from llgen.spec.ttgir import AttrParser

DATA = ROOT / "tests" / "data" / "legacy"
RELEASES = ("3.0.0", "3.1.0", "3.2.0", "3.3.1", "3.4.0", "3.5.1")
_ARG = re.compile(r"tt\.func @(\w+)\(%arg0: (.+?) loc\(")


def cases(release: str) -> dict:
    """name -> (module, shape, element, encoding as printed) of layouts-<release>.mlir."""
    path = DATA / f"layouts-{release}.mlir"
    text = path.read_text()
    modules = {m.funcs[0]: m for m in parse_ttgir(text, str(path))}
    out = {}
    for name, ty in _ARG.findall(text):
        opener = next(o for o in ("tensor<", "!tt.memdesc<", "!ttg.memdesc<") if ty.startswith(o))
        parts = split_top(ty[len(opener) : -1])
        *dims, element = parts[0].strip().split("x")
        out[name] = (modules[name], tuple(int(d) for d in dims), element, parts[1].strip())
    assert len(out) == len(modules), path
    return out


def layout(case) -> dict:
    module, shape, element, encoding = case
    dt = from_mlir(element)
    return parse_layout(
        encoding, shape, module.num_warps, module.threads_per_warp, where=Where(dt.bytes, module.aliases)
    ).to_dict()


def spelled_36(case) -> str:
    """The 3.6 attribute of a case with its aliases written out."""
    module, _, _, encoding = case
    return parsed_text(AttrParser(encoding, module.aliases).parse_attr_all())


NEW = cases("3.6.0")


def test_every_release_printed_its_cases():
    """3.0-3.1 lack wmma v2, isTranspose, #ttg.linear and amd_rotating_shared; 3.2 adds wmma v2, 3.3 the rest
    but amd_rotating_shared, which 3.4 adds."""
    missing = {"wmma_v2", "wmma_v2_t", "wmma_dot_v2", "linear", "rotating"}
    want = {
        "3.0.0": missing,
        "3.1.0": missing,
        "3.2.0": {"wmma_v2_t", "linear", "rotating"},
        "3.3.1": {"rotating"},
        "3.4.0": set(),
        "3.5.1": set(),
    }
    for release, left_out in want.items():
        assert set(NEW) - set(cases(release)) == left_out, release
    assert len(NEW) == 35


@pytest.mark.parametrize("release", RELEASES)
def test_each_case_reads_as_its_36_spelling(release):
    """The same layout as the 3.6 spelling, bit for bit, and llgen writes it back in exactly that spelling."""
    for name, case in cases(release).items():
        assert layout(case) == layout(NEW[name]), f"{release} {name}: {case[3]}"
        module, shape, element, encoding = case
        enc = parse_encoding(
            encoding, shape, module.num_warps, module.threads_per_warp, where=Where(from_mlir(element).bytes, module.aliases)
        )
        assert attribute(enc) == spelled_36(NEW[name]), f"{release} {name}"


def test_the_old_spellings_are_there():
    """The files hold the forms the brief names, as the releases printed them."""
    text = {r: (DATA / f"layouts-{r}.mlir").read_text() for r in RELEASES}
    assert (
        "#triton_gpu.amd_mfma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], " in text["3.0.0"]
    )
    assert (
        "#ttg.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>"
        in text["3.4.0"]
    )
    assert "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>" in text["3.5.1"]
    assert (
        "order = [1, 0], CTAsPerCGA = [1, 4], CTASplitNum = [1, 4], CTAOrder = [0, 1], hasLeadingOffset = true}>" in text["3.1.0"]
    )
    assert "#triton_gpu.amd_wmma<{warpsPerCTA = [2, 2]}>" in text["3.0.0"]
    assert "#triton_gpu.amd_wmma<{version = 2, warpsPerCTA = [2, 2]}>" in text["3.2.0"]
    assert "#triton_gpu.dot_op<{opIdx = 0, parent = #mma}>" in text["3.2.0"]
    assert "!tt.memdesc<64x64xf16, #shared>" in text["3.0.0"]
    assert "!tt.memdesc<64x64xf16, #shared, #triton_gpu.shared_memory>" in text["3.2.0"]
    assert '"triton_gpu.num-warps" = 4 : i32' in text["3.0.0"]


@pytest.mark.parametrize(
    "old,new,shape,dtype_bytes",
    [
        (  # Triton's own test inputs: no spaces around '=', versionMajor/versionMinor and a two-entry instrShape
            "#ttg.amd_mfma<{versionMajor=2, versionMinor=0, warpsPerCTA = [2, 2], instrShape=[32, 32], isTransposed = false}>",
            "#ttg.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = false}>",
            (64, 64),
            2,
        ),
        (
            "#triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], "
            "isTransposed = true}>",
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
            (64, 64),
            2,
        ),
        (
            "#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = false}>",
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
            (64, 64),
            2,
        ),
        (
            "#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>",
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
            (64, 64),
            2,
        ),
        (
            "#triton_gpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], CTAsPerCGA = [1, 2], "
            "CTASplitNum = [1, 2], CTAOrder = [1, 0], hasLeadingOffset = true}>",
            "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8, CGALayout = [[0, 1]]}>",
            (128, 128),
            1,
        ),
        (  # the #ttg.shared of Triton's main branch between 3.2 and 3.3
            "#ttg.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], hasLeadingOffset = true}>",
            "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>",
            (64, 32),
            2,
        ),
        (
            "#triton_gpu.dot_op<{opIdx = 0, parent = #triton_gpu.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
            "warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>}>",
            "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
            "instrShape = [16, 64, 16]}>, kWidth = 2}>",
            (128, 64),
            2,
        ),
    ],
)
def test_the_briefs_spellings(old, new, shape, dtype_bytes):
    a = parse_layout(old, shape, where=Where(dtype_bytes=dtype_bytes))
    assert a.to_dict() == parse_layout(new, shape, where=Where(dtype_bytes=dtype_bytes)).to_dict()
    assert attribute(parse_encoding(old, shape, where=Where(dtype_bytes=dtype_bytes))) == new


@pytest.mark.parametrize(
    "spec,words",
    [
        ("#triton_gpu.shared<{vec = 8, perPhase = 2, maxPhase = 2, order = [1, 0], hasLeadingOffset = true}>", "(2, 2)"),
        ("#triton_gpu.shared<{vec = 3, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>", "vec = 3"),
        ("#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 1], hasLeadingOffset = true}>", "order [1, 1]"),
        ("#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, hasLeadingOffset = true}>", "lacks its field 'order'"),
        ("#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = 1}>", "hasLeadingOffset 1"),
        ("#triton_gpu.sharedx<{vec = 8}>", "#triton_gpu.shared"),
        ("#ttg.amd_mfma<{versionMajor = 3, warpsPerCTA = [2, 2], instrShape = [8, 8], isTransposed = false}>", "[8, 8,"),
        (
            "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
            "instrShape = [16, 8]}>}>",
            "lacks kWidth",
        ),
    ],
)
def test_bad_old_text_is_one_sentence(spec, words):
    with pytest.raises(LlgenError) as e:
        parse_layout(spec, (64, 64), num_warps=4)
    assert words in one_sentence(e.value)


def test_the_36_spelling_is_triton_36s_own(tmp_path):
    """Triton 3.6 builds each case's 3.6 spelling to the bases llgen builds (distributed layouts through Gluon's
    to_linear_layout, shared ones through a reshape to one more dim of size 1, which Triton turns into the
    shared_linear of its bases; a transposed nvmma_shared transposed back first)."""
    libtriton = pytest.importorskip("triton._C.libtriton")
    pytest.importorskip("triton.experimental.gluon.language")
    ir, builder_cls = libtriton.ir, libtriton.gluon_ir.GluonOpBuilder
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = builder_cls(ctx)
    sections = (DATA / "layouts-3.6.0.mlir").read_text().split("// -----\n")
    assert len(sections) == len(NEW)
    for section in sections:
        name = _ARG.search(section).group(1)
        module, shape, _, _ = NEW[name]
        path = tmp_path / f"{name}.mlir"
        path.write_text(section)
        parsed = ir.parse_mlir_module(str(path), ctx)
        value = parsed.get_function(name).args(0)
        ours = layout(NEW[name])["bases"]
        if "offset" in ours:
            blocks = []
            parsed.walk(lambda op, b=blocks: b.append(op.get_block()) if op.get_name() == "tt.return" else None)
            builder.set_insertion_point_to_start(blocks[0])
            flip = "transposed = true" in section  # Triton aborts reshaping a transposed nvmma_shared: transpose it first
            if flip:
                value = builder.create_memdesc_trans(value, [1, 0])
            theirs = builder.get_gluon_layout_from_memdesc(
                builder.create_memdesc_reshape(value, [*shape[:: -1 if flip else 1], 1])
            )
            cut = (lambda v: list(v[:-1])[::-1]) if flip else (lambda v: list(v[:-1]))
            want = {"offset": [cut(v) for v in theirs.offset_bases], "block": [cut(v) for v in theirs.block_bases]}
        else:
            ll = builder.to_linear_layout(builder.get_gluon_layout_from_tensor(value)._to_ir(builder), list(shape))
            want = {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases, "block": ll.block_bases}
        assert ours == want, name


# ---------------------------------------------------------------------------------------------- whole dumps
DUMPS = sorted(p.name for p in DATA.glob("*.ttgir"))
EMITTED = [d for d in DUMPS if d.split("-")[1] in ("sm80", "sm90", "gfx90a", "gfx942")]  # targets llgen emits for


def test_the_dumps_are_there():
    assert len(DUMPS) == 22 and "3.0.0-sm80-matmul-fp16.ttgir" in DUMPS


@pytest.mark.parametrize("name", DUMPS)
def test_a_dump_is_read_with_its_settings(name):
    """The module attributes of every spelling: "triton_gpu.num-warps" = 4 : i32, triton_gpu.target = "cuda:80"."""
    release, target = name.split("-")[:2]
    (module,) = read_ttgir(str(DATA / name))
    lanes = 64 if target.startswith("gfx9") else 32
    triton_target = f"hip:{target}" if target.startswith("gfx") else f"cuda:{target[2:]}"
    assert (module.num_warps, module.threads_per_warp, module.num_ctas, module.target) == (4, lanes, 1, triton_target)
    ops = module.all_ops()
    assert ops and not any(op.problem for op in ops)
    prefix = "triton_gpu." if release < "3.3" else "ttg."
    assert all(op.name.startswith(prefix) for op in ops)
    for op in ops:  # every layout of every op reads (RDNA's too, which llgen emits no code for)
        layout((module, op.shape, op.element, op.src))
        layout((module, op.shape, op.element, op.dst))


@pytest.mark.parametrize("name", EMITTED)
def test_a_dump_is_planned_whole(name):
    res = invoke("plan", "--ttgir", str(DATA / name))
    assert res.exit_code == 0, res.output
    assert "not planned" not in res.stdout and res.stderr == ""


def test_the_old_dump_of_a_matmul():
    """Triton 3.0's sm_80 matmul: triton_gpu ops, !tt.memdesc, a #triton_gpu.shared the local ops store and load."""
    (module,) = read_ttgir(str(DATA / "3.0.0-sm80-matmul-fp16.ttgir"))
    got = [(op.line, op.name, op.shape, op.element, op.src, op.dst) for op in module.all_ops()]
    dot = "#triton_gpu.dot_op<{opIdx = %d, parent = #mma, kWidth = 2}>"
    assert got == [
        (20, "triton_gpu.local_alloc", (64, 64), "f16", "#blocked", "#shared"),
        (26, "triton_gpu.local_alloc", (64, 64), "f16", "#blocked", "#shared"),
        (27, "triton_gpu.local_load", (64, 64), "f16", "#shared", dot % 0),
        (28, "triton_gpu.local_load", (64, 64), "f16", "#shared", dot % 1),
        (34, "triton_gpu.convert_layout", (64, 64), "f32", "#mma", "#blocked"),
    ]
    assert module.all_ops()[2].types() == f"!tt.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, {dot % 0}>"
    res = invoke("plan", "--ttgir", str(DATA / "3.0.0-sm80-matmul-fp16.ttgir"), "--src", "#blocked", "--dst", "#shared")
    assert res.exit_code == 0 and "path: local_store" in res.stdout, res.output
    assert "{'dim0': 128, 'dim1': 128} f16" in res.stdout  # the dump's element type, over --shape's default
    res = invoke("layout", "--ttgir", str(DATA / "3.0.0-sm80-matmul-fp16.ttgir"), "#shared", "--shape", "64x64")
    assert (
        res.exit_code == 0 and "TTGIR: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>" in res.stdout
    )


# (older, newer): one kernel two releases compiled to the same layouts, each in its own spelling
SAME = [
    *[
        (f"3.2.0-sm90-matmul_t-{k}.ttgir", f"3.3.1-sm90-matmul_t-{k}.ttgir")
        for k in ("fp16-k16", "fp16-k32", "fp16-k64", "fp8e4nv-k32", "fp32-k16")
    ],
    ("3.1.0-sm90-chain-fp16.ttgir", "3.3.1-sm90-chain-fp16.ttgir"),  # a wgmma operand without kWidth, then with kWidth = 2
    ("3.0.0-gfx1100-matmul-fp16.ttgir", "3.3.1-gfx1100-matmul-fp16.ttgir"),  # a wmma without version, then version = 1
    ("3.2.0-gfx1200-matmul-fp16.ttgir", "3.4.0-gfx1200-matmul-fp16.ttgir"),  # a wmma without isTranspose, then with it
    ("3.4.0-gfx942-matmul-fp16.ttgir", "3.5.1-gfx942-matmul-fp16.ttgir"),  # versionMajor, then version
    ("3.5.1-gfx942-matmul-fp16.ttgir", "3.6.0-gfx942-matmul-fp16.ttgir"),  # instrShape = [32, 32], then [32, 32, 8]
]


def _op_layouts(name: str) -> list:
    (module,) = read_ttgir(str(DATA / name))
    return [
        (
            op.name.split(".")[-1],
            op.shape,
            op.element,
            layout((module, op.shape, op.element, op.src)),
            layout((module, op.shape, op.element, op.dst)),
        )
        for op in module.all_ops()
    ]


@pytest.mark.parametrize("older,newer", SAME)
def test_a_kernel_two_releases_compiled_alike_reads_alike(older, newer):
    old, new = _op_layouts(older), _op_layouts(newer)
    assert old and old == new
    if "matmul_t" in older:  # 3.2 spelled the operands' shared layouts #triton_gpu.shared<{..., hasLeadingOffset = true}>
        assert "hasLeadingOffset = true" in (DATA / older).read_text() and "#ttg.nvmma_shared" in (DATA / newer).read_text()


@pytest.mark.parametrize("release", ("3.0.0", "3.2.0"))
def test_old_local_store_and_load(release):
    """Triton 3.0-3.2's triton_gpu.local_store and local_load of one buffer of a local_alloc, through !tt.memdesc
    (with #triton_gpu.shared_memory from 3.2): read over the buffer's shape and planned as endpoints."""
    path = DATA / f"local_ops-{release}.mlir"
    (module,) = read_ttgir(str(path))
    space = ", #triton_gpu.shared_memory" if release == "3.2.0" else ""
    got = [(op.name, op.path, op.shape, op.src, op.dst, op.memdesc) for op in module.all_ops()]
    assert got == [
        ("triton_gpu.local_store", "local_store", (64, 64), "#blocked", "#shared", f"64x64xf16, #shared{space}, mutable"),
        ("triton_gpu.local_load", "local_load", (64, 64), "#shared", "#blocked", f"64x64xf16, #shared{space}, mutable"),
    ]
    assert module.all_ops()[0].types() == f"tensor<64x64xf16, #blocked> -> !tt.memdesc<64x64xf16, #shared{space}, mutable>"
    res = invoke("plan", "--ttgir", str(path))
    assert res.exit_code == 0 and res.stdout.count("path: local_") == 2, res.output
    assert "S: offset" in res.stdout  # the nvmma_shared (128-byte swizzle) that hasLeadingOffset = true stands for


def test_the_old_shared_layout_is_a_shared_side():
    """#triton_gpu.shared is a shared-memory layout to the command line too: `llgen plan` takes it as the shared side
    of a local_store, and its 3.6 spelling shows in `llgen layout`."""
    from llgen.spec.facts import spec_facts

    old = "#triton_gpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], hasLeadingOffset = true}>"
    assert spec_facts(old).kind == "shared"
    res = invoke("plan", "--src", "blocked", "--dst", old, "--shape", "64x64", "--target", "sm_90")
    assert res.exit_code == 0 and "path: local_store" in res.stdout, res.output
    res = invoke("layout", old, "--shape", "64x64")
    assert res.exit_code == 0, res.output
    assert "TTGIR: #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16}>" in res.stdout
