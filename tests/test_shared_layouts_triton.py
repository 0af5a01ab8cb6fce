"""The shared-memory families Triton 3.6 builds beyond swizzled and nvmma (amd_rotating_shared,
shared_linear, padded_shared) against Triton itself, over seeded cases at ranks 1 to 3.

Gluon's to_linear_layout does not take a shared layout, so the oracle reads Triton's own bases from
a TTGIR module Triton parsed: get_gluon_layout_from_memdesc gives a padded_shared's linear remap and
a shared_linear's bases as Triton's C++ built them; an amd_rotating_shared (which Gluon has no class
for) is reshaped by Triton to one more dim of size 1, which turns it into the shared_linear of its
bases. A padded_shared's buffer size is the one Triton's shared-memory allocator gives it. Each
case is also parsed from, and printed back as, Triton's own text.
"""

from __future__ import annotations

import math
import random
import re

import pytest

import llgen.layouts as L
from llgen.core.errors import LlgenError
from llgen.spec import parse_encoding
from llgen.spec.render import attribute

gl = pytest.importorskip("triton.experimental.gluon.language")
libtriton = pytest.importorskip("triton._C.libtriton")
gluon_ir, ir, passes = libtriton.gluon_ir, libtriton.ir, libtriton.passes

_CTX = ir.context()
ir.load_dialects(_CTX)
_BUILDER = gluon_ir.GluonOpBuilder(_CTX)


def memdesc(attr: str, shape, dtype: str = "f16") -> str:
    return f"!ttg.memdesc<{'x'.join(map(str, shape))}x{dtype}, {attr}, #ttg.shared_memory, mutable>"


def parse_module(body: str, ctas: int, tmp_path) -> object:
    text = (
        f'module attributes {{"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = {ctas} : i32, '
        f'"ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942"}} {{\n{body}\n}}\n'
    )
    path = tmp_path / "case.mlir"
    path.write_text(text)
    return ir.parse_mlir_module(str(path), _CTX)


def triton_bases(attr: str, shape, ctas: int, tmp_path, reshape: bool = False) -> tuple[dict, str]:
    """Triton's offset and block bases of the shared layout ``attr`` over ``shape`` (through a reshape
    to one more dim of size 1 where Gluon has no class for it), and the attribute as Triton prints it."""
    module = parse_module(f"tt.func @f(%a: {memdesc(attr, shape)}) {{ tt.return }}", ctas, tmp_path)
    value = module.get_function("f").args(0)
    printed = re.search(r"^#shared = (#ttg\.\w+<.*>)$", module.str(), re.M).group(1)
    if reshape:
        blocks = []
        module.walk(lambda op: blocks.append(op.get_block()) if op.get_name() == "tt.return" else None)
        _BUILDER.set_insertion_point_to_start(blocks[0])
        value = _BUILDER.create_memdesc_reshape(value, [*shape, 1])
    layout = _BUILDER.get_gluon_layout_from_memdesc(value)
    cut = (lambda v: list(v[:-1])) if reshape else list
    return {"offset": [cut(v) for v in layout.offset_bases], "block": [cut(v) for v in layout.block_bases]}, printed


def triton_padded_bytes(attr: str, shape, dtype: str, tmp_path) -> int:
    """The bytes Triton's allocator gives one buffer of the padded layout."""
    ty = memdesc(attr, shape, dtype)
    module = parse_module(
        f"tt.func @f() {{\n %0 = ttg.local_alloc : () -> {ty}\n ttg.local_dealloc %0 : {ty}\n tt.return }}", 1, tmp_path
    )
    pm = ir.pass_manager(_CTX)
    passes.ttgpuir.add_allocate_shared_memory(pm)
    pm.run(module, "allocate_shared_memory")
    return module.get_int_attr("ttg.shared")


def gluon_text(layout, shape) -> str:
    ty = str(_BUILDER.get_shared_mem_desc_ty(_BUILDER.get_half_ty(), list(shape), layout._to_ir(_BUILDER), list(shape)))
    return ty[ty.index("#") : ty.rindex(", #ttg.shared_memory")]


def pow2(rng: random.Random, lo: int, hi: int) -> int:
    return 1 << rng.randint(lo, hi)


def unit_bases(rng: random.Random, shape, max_block: int = 1) -> tuple[list[list[int]], list[list[int]]]:
    """Offset and block bases: one per bit of every dim, each moving along one dim, in random order;
    up to ``max_block`` of the dims' top bits go to the CTAs (Triton splits a dim at its top bits)."""
    rank = len(shape)
    vecs = [[(1 << i) if e == d else 0 for e in range(rank)] for d in range(rank) for i in range(shape[d].bit_length() - 1)]
    tops = [v for v in vecs if max(v) * 2 == shape[v.index(max(v))]]
    block = rng.sample(tops, rng.randint(0, min(max_block, len(tops))))
    offset = [v for v in vecs if v not in block]
    rng.shuffle(offset)
    return offset, block


def random_cga(rng: random.Random, rank: int) -> list[list[int]]:
    if rng.random() < 0.6:
        return []
    ctas = [pow2(rng, 0, 1) for _ in range(rank)]
    order = list(range(rank))
    rng.shuffle(order)
    return [list(v) for v in L.cga_from_split(ctas, ctas, order)]


def rotating_cases(rng: random.Random, n: int):
    for _ in range(n):
        rank = rng.choice([1, 2, 2, 3])
        order = list(range(rank))
        rng.shuffle(order)
        vec, per_phase, max_phase = pow2(rng, 0, 3), pow2(rng, 0, 2), pow2(rng, 0, 3)
        cga = random_cga(rng, rank)
        shape = [pow2(rng, 0, 6) for _ in range(rank)]
        for v in cga:  # each CTA holds at least one element along a split dim
            for d, c in enumerate(v):
                shape[d] = max(shape[d], 2 * c)
        if math.prod(shape) <= 1 << len(cga):  # no offset bases: Triton's reshape has no layout to give
            continue
        enc = L.AmdRotatingShared(vec, per_phase, max_phase, tuple(order), tuple(map(tuple, cga)))
        try:
            lay = enc.to_linear(shape)
        except LlgenError:  # a swizzle past one CTA's share, which Triton aborts on (see test_layouts.py)
            continue
        cols = [c for n in lay.in_names for c in lay.flat_cols(n) if c]
        if f2_rank(cols) < len(cols):
            continue  # over a cluster Triton 3.6 may give two offsets one element: no shared_linear holds it
        yield enc, shape, 1 << len(cga)


def f2_rank(cols: list[int]) -> int:
    """The rank over F2 of bit vectors."""
    pivots: dict[int, int] = {}
    for c in cols:
        while c:
            top = c.bit_length() - 1
            if top not in pivots:
                pivots[top] = c
                break
            c ^= pivots[top]
    return len(pivots)


def shared_linear_cases(rng: random.Random, n: int):
    """Bijective bases with XOR swizzles (a later basis plus an earlier one) and a few zero bases."""
    for _ in range(n):
        rank = rng.choice([1, 2, 2, 3])
        shape = [pow2(rng, 0, 5) for _ in range(rank)]
        offset, block = unit_bases(rng, shape, max_block=2)
        offset = offset or [[0] * rank]
        for i in range(1, len(offset)):
            if rng.random() < 0.3:
                j = rng.randrange(i)
                offset[i] = [a ^ b for a, b in zip(offset[i], offset[j], strict=True)]
        if rng.random() < 0.2:
            offset.insert(rng.randrange(len(offset) + 1), [0] * rank)
        yield gl.SharedLinearLayout(offset, block, pow2(rng, 0, 10)), shape


def padded_cases(rng: random.Random, n: int):
    """The order/shape form, or rows and columns reordered by unit bases, sometimes over CTAs."""
    for _ in range(n):
        rank = rng.choice([1, 2, 2, 3])
        shape = [pow2(rng, 0, 6 - rank) for _ in range(rank)]
        intervals = rng.sample([2, 4, 8, 16, 32, 64, 128, 256], rng.randint(1, 3))
        pairs = [[i, pow2(rng, 0, 4)] for i in intervals]
        if rng.random() < 0.5:
            order = list(range(rank))
            rng.shuffle(order)
            yield gl.PaddedSharedLayout.with_identity_for(pairs, shape, order), shape
            continue
        offset, block = unit_bases(rng, shape)
        if offset:  # Triton takes the rank from the bases
            yield gl.PaddedSharedLayout(pairs, offset, block, shape), shape


def ours_bases(enc, shape) -> dict:
    lay = enc.to_linear(shape)
    return {n: [list(lay.basis(n, i)) for i in range(lay.in_bits(n))] for n in ("offset", "block")}


def test_amd_rotating_shared_matches_triton(tmp_path):
    failures = []
    for enc, shape, ctas in rotating_cases(random.Random("rotating"), 150):
        want, printed = triton_bases(attribute(enc), shape, ctas, tmp_path, reshape=True)
        got = ours_bases(parse_encoding(printed, shape, num_warps=4, threads_per_warp=64), shape)
        if got != want or attribute(enc) != printed:
            failures.append(f"{printed} over {shape}: ours {got} triton {want}")
    assert not failures, f"{len(failures)} differ, first: " + "\n".join(failures[:3])


@pytest.mark.parametrize("make", [shared_linear_cases, padded_cases], ids=["shared_linear", "padded_shared"])
def test_shared_bases_families_match_triton(make, tmp_path):
    failures = []
    for gluon_layout, shape in make(random.Random(make.__name__), 150):
        text = gluon_text(gluon_layout, shape)
        want, printed = triton_bases(text, shape, 1 << len(gluon_layout.block_bases), tmp_path)
        enc = parse_encoding(text, shape, num_warps=4, threads_per_warp=64)
        got = ours_bases(enc, shape)
        if got != want or attribute(enc) != printed or printed != text:
            failures.append(f"{text} over {shape}: ours {got} {attribute(enc)} triton {want} {printed}")
    assert not failures, f"{len(failures)} differ, first: " + "\n".join(failures[:3])


def test_padded_buffer_size_is_tritons(tmp_path):
    rng = random.Random("padded bytes")
    for gluon_layout, shape in padded_cases(rng, 60):
        if gluon_layout.block_bases:
            continue
        dtype, nbytes = rng.choice([("f16", 2), ("f32", 4), ("i8", 1), ("f64", 8)])
        text = gluon_text(gluon_layout, shape)
        enc = parse_encoding(text, shape)
        assert enc.padded_bytes(nbytes) == triton_padded_bytes(text, shape, dtype, tmp_path), text
