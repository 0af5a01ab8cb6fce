"""Our layout constructors against Triton 3.6's own (Gluon's to_linear_layout), bit for bit.

Triton is a test-time oracle only: the module is skipped where it is not installed. Cases are
drawn from a seeded generator over every distributed family at ranks 1 to 3 (blocked, linear
and slices down to rank 1; mma v2, mfma, wmma and their dot operands with a batch dim; the wgmma
accumulator at rank 2, the only rank Triton builds it at, and its operand A at ranks 2 and 3, as
Gluon's own convert tests use it), many parameters and shapes smaller and larger than the CTA
tile (linear layouts over shapes other than their own), with and without clusters. Each case is
also parsed back from the TTGIR text Triton prints for it. Parameters Triton aborts on are left
out: the process would die (llgen raises an LlgenError for them instead, see test_layouts.py).
"""

from __future__ import annotations

import random

import pytest

import llgen.layouts as L
from llgen.core.errors import LlgenError
from llgen.randlayout import draw_layout
from llgen.spec import parse_layout

triton = pytest.importorskip("triton")
gl = pytest.importorskip("triton.experimental.gluon.language")
amd = pytest.importorskip("triton.experimental.gluon.language.amd")
libtriton = pytest.importorskip("triton._C.libtriton")
gluon_ir, ir = libtriton.gluon_ir, libtriton.ir

_CTX = ir.context()
ir.load_dialects(_CTX)
_BUILDER = gluon_ir.GluonOpBuilder(_CTX)


def triton_bases(layout, shape) -> dict:
    """Triton's bases for a Gluon layout over ``shape``, in our to_dict form."""
    ll = _BUILDER.to_linear_layout(layout._to_ir(_BUILDER), list(shape))
    return {
        "bases": {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases, "block": ll.block_bases},
        "out_dims": {f"dim{d}": s for d, s in enumerate(shape)},
    }


def pow2(rng: random.Random, lo: int, hi: int) -> int:
    return 1 << rng.randint(lo, hi)


def split(rng: random.Random, total_bits: int, rank: int) -> list[int]:
    """A random list of ``rank`` powers of two whose product is 2**total_bits."""
    parts = [0] * rank
    for _ in range(total_bits):
        parts[rng.randrange(rank)] += 1
    return [1 << p for p in parts]


def random_cga(rng: random.Random, rank: int, max_bits: int = 2) -> list[list[int]]:
    """A random cluster: CTAsPerCGA / CTASplitNum / CTAOrder turned into Triton 3.6's bases."""
    if rng.random() < 0.5:
        return []
    ctas = split(rng, rng.randint(1, max_bits), rank)
    splits = [c >> rng.randint(0, c.bit_length() - 1) for c in ctas]
    order = list(range(rank))
    rng.shuffle(order)
    return [list(v) for v in L.cga_from_split(ctas, splits, order)]


def random_shape(rng: random.Random, rank: int, lo: int = 0, hi: int = 9) -> list[int]:
    return [pow2(rng, lo, hi) for _ in range(rank)]


def batch_shape(rng: random.Random, rank: int, lo: int, hi: int) -> list[int]:
    """A random matrix shape (M, N sizes between 2**lo and 2**hi) with a small batch dim in front
    when ``rank`` is 3."""
    return random_shape(rng, rank - 2, 0, 3) + random_shape(rng, 2, lo, hi)


def blocked_params(rng: random.Random, rank: int):
    order = list(range(rank))
    rng.shuffle(order)
    return (
        [pow2(rng, 0, 2) for _ in range(rank)],
        split(rng, rng.choice([5, 6]), rank),
        split(rng, rng.randint(0, 3), rank),
        order,
    )


def blocked_cases(rng: random.Random, n: int):
    for _ in range(n):
        rank = rng.choice([1, 2, 2, 3, 3])
        spt, tpw, wpc, order = blocked_params(rng, rank)
        cga = random_cga(rng, rank)
        shape = random_shape(rng, rank, 0, 10 - rank * 2)
        yield (
            f"blocked{spt}{tpw}{wpc}{order}{cga}{shape}",
            gl.BlockedLayout(spt, tpw, wpc, order, cga_layout=cga),
            L.Blocked(tuple(spt), tuple(tpw), tuple(wpc), tuple(order), tuple(map(tuple, cga))),
            shape,
        )


def mma_params(rng: random.Random, rank: int = 2, batched_wgmma: bool = False):
    """mma v2 of rank 2 or 3 (instrShape [16, 8] / [1, 16, 8] as Triton prints them, sometimes a wider
    N or an ignored batch entry), or v3: rank 2, or rank 3 with ``batched_wgmma`` (Triton aborts on a
    batched wgmma accumulator but builds its operand A, warps anywhere)."""
    version = rng.choice([2, 3]) if rank == 2 or batched_wgmma else 2
    if version == 2:
        wpc = split(rng, rng.randint(0, 3), rank)
        instr = [rng.choice([1, 1, 2])] * (rank - 2) + [16, rng.choice([8, 8, 16])]
    else:
        wpc = [4 * x for x in split(rng, rng.randint(0, 1), 2)] if rank == 2 else split(rng, rng.randint(2, 4), 3)
        instr = [16, rng.choice([8, 16, 32, 64, 128, 256]), 16]
    return version, wpc, instr


def mma_layout(rng: random.Random, rank: int, batched_wgmma: bool = False):
    """A random mma accumulator as (Gluon layout, our encoding)."""
    version, wpc, instr = mma_params(rng, rank, batched_wgmma)
    cga = random_cga(rng, rank)
    return (
        gl.NVMMADistributedLayout([version, 0], wpc, instr, cga_layout=cga),
        L.NvidiaMma(version, tuple(wpc), tuple(instr), tuple(map(tuple, cga))),
    )


def mma_dot_layout(rng: random.Random, rank: int):
    g, parent = mma_layout(rng, rank, batched_wgmma=True)
    op = 0 if parent.version == 3 else rng.choice([0, 1])
    kw = pow2(rng, 0, 4)
    return gl.DotOperandLayout(op, g, kw), L.DotOperand(op, parent, kw)


def mfma_layout(rng: random.Random, rank: int):
    """A random mfma accumulator of every (M, N) Gluon accepts (64x4 only transposed, as Triton
    requires), as (Gluon layout, our encoding)."""
    mn = rng.choice([(32, 32), (16, 16), (64, 4), (4, 64)])
    instr = [*mn, rng.choice([4, 8, 16, 32])]
    tr = mn == (64, 4) or rng.random() < 0.5
    wpc, tpw, bits = split(rng, rng.randint(0, 3), rank), split(rng, rng.randint(0, 2), rank), rng.choice([None, 32, 64])
    cga = random_cga(rng, rank)
    return (
        amd.AMDMFMALayout(3, instr, tr, wpc, element_bitwidth=bits, tiles_per_warp=tpw, cga_layout=cga),
        L.AmdMfma(tuple(wpc), tuple(tpw), tuple(map(tuple, cga)), tuple(instr), tr, bits or 32, 3),
    )


def mfma_dot_layout(rng: random.Random, rank: int):
    g, parent = mfma_layout(rng, rank)
    op, kw = rng.choice([0, 1]), pow2(rng, 0, 4)
    return gl.DotOperandLayout(op, g, kw), L.DotOperand(op, parent, kw)


def wmma_layout(rng: random.Random, rank: int, k_split_ok: int | None = None):
    """A random wmma accumulator with an instrShape its version accepts, as (Gluon layout, our
    encoding). Known gap: clusters that split K under a wmma operand differ in rare cases (RDNA
    has no clusters), so for operand ``k_split_ok`` the cluster only splits its non-K dim."""
    version = rng.choice([1, 2, 3])
    instr = [16, 16, rng.choice(L.amd.WMMA_INSTR_K[version])]
    tr, wpc, tpw = rng.random() < 0.5, split(rng, rng.randint(0, 3), rank), split(rng, rng.randint(0, 2), rank)
    cga = random_cga(rng, rank)
    if k_split_ok is not None:
        cga = [[c if d == rank - 2 + k_split_ok else 0 for d, c in enumerate(v)] for v in cga]
    return (
        amd.AMDWMMALayout(version, tr, wpc, instr_shape=instr, tiles_per_warp=tpw, cga_layout=cga),
        L.AmdWmma(tuple(wpc), tuple(tpw), tuple(map(tuple, cga)), version, tr, tuple(instr)),
    )


def wmma_dot_layout(rng: random.Random, rank: int):
    op = rng.choice([0, 1])
    g, parent = wmma_layout(rng, rank, op)
    kw = rng.choice(L.amd.WMMA_K_WIDTHS[parent.version])
    return gl.DotOperandLayout(op, g, kw), L.DotOperand(op, parent, kw)


def matrix_cases(make, lo: int, hi: int):
    """Cases of a matrix family (rank 2, or 3 with a batch dim) whose M and N are 2**lo..2**hi."""

    def cases(rng: random.Random, n: int):
        for _ in range(n):
            rank = rng.choice([2, 2, 3])
            g, ours = make(rng, rank)
            yield f"{ours}", g, ours, batch_shape(rng, rank, lo, hi)

    return cases


def linear_layout(rng: random.Random, rank: int, lo: int = 0, hi: int = 5, sliceable: bool = False):
    """A random surjective distributed linear layout over a random shape: one basis per bit of
    every dim (each moving along one dim) plus a few zero (broadcast) bases, shuffled; 5 or 6 of
    them are the lanes (a warp of 32 or 64, padded with zeros), the rest are cut into registers,
    warps and blocks. ``sliceable``: blocks only take a dim's top bits, since Triton aborts when
    it slices a layout whose CTAs do not each hold a contiguous share. Returns (Gluon layout,
    our encoding)."""
    shape = random_shape(rng, rank, lo, hi)
    vecs = [[(1 << i) if e == d else 0 for e in range(rank)] for d in range(rank) for i in range(shape[d].bit_length() - 1)]
    vecs += [[0] * rank] * rng.randint(0, 2)
    rng.shuffle(vecs)
    block = []
    if sliceable:
        tops = [v for v in vecs if any(v) and max(v) * 2 == shape[v.index(max(v))]]
        block = tops[: rng.randint(0, len(tops))]
        vecs = [v for v in vecs if v not in block]
    nlanes = rng.choice([5, 6])
    lane, vecs = (vecs + [[0] * rank] * nlanes)[:nlanes], vecs[nlanes:]
    cuts = sorted(rng.randint(0, len(vecs)) for _ in range(2))
    reg, warp = vecs[: cuts[0]], vecs[cuts[0] : cuts[1]]
    block = block if sliceable else vecs[cuts[1] :]
    if sliceable:
        warp += vecs[cuts[1] :]

    def tup(vs):
        return tuple(map(tuple, vs))

    return gl.DistributedLinearLayout(reg, lane, warp, block, shape), L.Linear(tup(reg), tup(lane), tup(warp), tup(block))


def linear_cases(rng: random.Random, n: int):
    """Linear layouts over their own shape and over smaller and larger ones (Triton resizes them)."""
    for _ in range(n):
        rank = rng.choice([1, 2, 2, 3])
        g, ours = linear_layout(rng, rank)
        shape = list(g.shape) if rng.random() < 0.25 else random_shape(rng, rank, 0, 6)
        yield f"{ours} over {shape}", g, ours, shape


def slice_parent(rng: random.Random, rank: int):
    """A random parent of rank ``rank`` from every family that can be sliced."""
    kind = rng.choice(["blocked", "linear", "mma", "mma_dot", "mfma", "mfma_dot", "wmma", "wmma_dot"])
    if kind == "blocked":
        spt, tpw, wpc, order = blocked_params(rng, rank)
        return gl.BlockedLayout(spt, tpw, wpc, order), L.Blocked(tuple(spt), tuple(tpw), tuple(wpc), tuple(order))
    if kind == "linear":
        return linear_layout(rng, rank, sliceable=True)
    return MATRIX_LAYOUTS[kind][0](rng, rank)


def slice_cases(rng: random.Random, n: int):
    """Slices of rank-2 parents (rank 1) and rank-3 parents (rank 2), sometimes of a slice."""
    for _ in range(n):
        rank = rng.choice([2, 3])
        g, parent = slice_parent(rng, rank)
        dim = rng.randrange(rank)
        g, ours = gl.SliceLayout(dim, g), L.Slice(dim, parent)
        if rank == 3 and rng.random() < 0.2:
            dim = rng.randrange(2)
            g, ours = gl.SliceLayout(dim, g), L.Slice(dim, ours)
        shape = random_shape(rng, ours.rank, 4, 8)
        yield f"{ours}{shape}", g, ours, shape


# family: (random layout of a rank, smallest and largest log2 of M and N)
MATRIX_LAYOUTS = {
    "mma": (mma_layout, 3, 9),
    "mma_dot": (mma_dot_layout, 3, 9),
    "mfma": (mfma_layout, 2, 9),
    "mfma_dot": (mfma_dot_layout, 2, 9),
    "wmma": (wmma_layout, 4, 9),
    "wmma_dot": (wmma_dot_layout, 4, 9),
}

FAMILIES = {
    "blocked": (blocked_cases, 400),
    "mma": (matrix_cases(*MATRIX_LAYOUTS["mma"]), 300),
    "mma_dot": (matrix_cases(*MATRIX_LAYOUTS["mma_dot"]), 300),
    "mfma": (matrix_cases(*MATRIX_LAYOUTS["mfma"]), 300),
    "mfma_dot": (matrix_cases(*MATRIX_LAYOUTS["mfma_dot"]), 300),
    "wmma": (matrix_cases(*MATRIX_LAYOUTS["wmma"]), 200),
    "wmma_dot": (matrix_cases(*MATRIX_LAYOUTS["wmma_dot"]), 600),
    "slice": (slice_cases, 400),
    "linear": (linear_cases, 300),
}


def ttgir_attr(layout, shape) -> str:
    """The encoding attribute exactly as Triton prints it in a tensor type."""
    text = str(_BUILDER.get_distributed_ty(_BUILDER.get_float_ty(), list(shape), layout._to_ir(_BUILDER)))
    return text[text.index("#") : -1]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_matches_triton(family):
    """Our encoding, and the TTGIR text Triton prints for it, give Triton's bases bit for bit."""
    make, count = FAMILIES[family]
    failures = []
    for name, gluon_layout, ours, shape in make(random.Random(family), count):
        want = triton_bases(gluon_layout, shape)
        got = ours.to_linear(shape).to_dict()
        if got != want:
            failures.append(f"{name}: ours {got['bases']} triton {want['bases']}")
            continue
        attr = ttgir_attr(gluon_layout, shape)
        warps, lanes = 1 << len(want["bases"]["warp"]), 1 << len(want["bases"]["lane"])
        parsed = parse_layout(attr, shape, num_warps=warps, threads_per_warp=lanes).to_dict()
        if parsed != want:
            failures.append(f"{attr} over {shape}: parsed {parsed['bases']} triton {want['bases']}")
    assert not failures, f"{len(failures)} of {count} differ, first: " + "\n".join(failures[:3])


@pytest.mark.parametrize(
    "ctas,splits,order",
    [
        ([2, 2], [2, 2], [1, 0]),
        ([4, 2], [2, 1], [1, 0]),
        ([4, 2], [2, 2], [0, 1]),
        ([4, 1], [4, 1], [0, 1]),
        ([8, 2], [2, 2], [1, 0]),
        ([1, 8], [1, 2], [0, 1]),
    ],
)
def test_cga_from_split_matches_triton(ctas, splits, order):
    assert [list(v) for v in L.cga_from_split(ctas, splits, order)] == gluon_ir.make_cga_layout(ctas, splits, order)


def test_batched_wgmma_operand_and_its_slice_match_triton():
    """Gluon's own convert tests hold operand A of a rank-3 wgmma, and its slice; the bare rank-3
    wgmma, which Triton aborts on, stays refused with the reason."""
    parent = gl.NVMMADistributedLayout([3, 0], [4, 1, 1], [16, 32, 16])
    dot = gl.DotOperandLayout(0, parent, 2)
    for g, shape in (
        (dot, [2, 64, 32]),
        (dot, [4, 16, 64]),
        (gl.SliceLayout(1, dot), [2, 32]),
        (gl.SliceLayout(0, dot), [64, 16]),
    ):
        attr = ttgir_attr(g, shape)
        assert parse_layout(attr, shape).to_dict() == triton_bases(g, shape), attr
    bare = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1, 1], instrShape = [16, 32, 16]}>"
    with pytest.raises(LlgenError, match="builds only as the parent of a dot operand"):
        parse_layout(bare, [2, 64, 32])


def to_gluon(enc):
    """The Gluon layout of one of our wgmma operands or its slices."""
    if isinstance(enc, L.Slice):
        return gl.SliceLayout(enc.dim, to_gluon(enc.parent))
    if isinstance(enc, L.DotOperand):
        return gl.DotOperandLayout(enc.operand_index, to_gluon(enc.parent), enc.k_width)
    return gl.NVMMADistributedLayout([enc.version, 0], list(enc.warps_per_cta), list(enc.instr_shape))


def test_random_batched_wgmma_operands_match_triton():
    """The random layout generator's rank-3 wgmma operands, and slices of them, are Triton's."""
    rng = random.Random(24)
    seen = set()
    for shape in ([2, 64, 64], [1, 16, 128], [8, 32, 32], [64, 64], [4, 128]):
        for _ in range(20):
            family = "mma_v3_dot" if len(shape) == 3 else "slice"
            drawn = draw_layout(rng, shape, rng.choice([4, 8]), "sm_90", rng.choice(["f16", "i8", "f32"]), family)
            if drawn.family not in ("mma_v3_dot", "slice(mma_v3_dot)"):
                continue
            seen.add(drawn.family)
            assert drawn.layout.to_dict() == triton_bases(to_gluon(drawn.encoding), shape), drawn.encoding
    assert seen == {"mma_v3_dot", "slice(mma_v3_dot)"}
