"""Hypothesis properties of the LinearLayout algebra, and its speed on 20-bit layouts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from llgen import LinearLayout
from llgen.layouts.common import identity1d

settings.register_profile("llgen", max_examples=60, deadline=None)
settings.load_profile("llgen")


@st.composite
def layouts(draw, ins=("register", "lane", "warp"), outs=("dim0", "dim1"), max_bits=4, surjective=False, distributed=False):
    """A random layout: random in/out sizes; arbitrary bases, or a permutation with zeros."""
    out_bits = [draw(st.integers(0, max_bits)) for _ in outs]
    total = sum(out_bits)
    if distributed or surjective:
        units = [1 << i for i in range(total)]
        perm = draw(st.permutations(units))
        extra = draw(st.integers(0, 2))
        cols = list(perm) + ([0] * extra if distributed else [draw(st.integers(0, (1 << total) - 1)) for _ in range(extra)])
        cols = draw(st.permutations(cols))
    else:
        n = draw(st.integers(0, max_bits + 2))
        cols = [draw(st.integers(0, (1 << total) - 1)) for _ in range(n)]
    cuts = sorted(draw(st.integers(0, len(cols))) for _ in range(len(ins) - 1))
    bounds = [0, *cuts, len(cols)]
    in_dims = tuple((name, bounds[i + 1] - bounds[i]) for i, name in enumerate(ins))
    return LinearLayout(in_dims, tuple(zip(outs, out_bits, strict=True)), tuple(cols))


@st.composite
def chain(draw):
    """Three composable layouts a -> b -> c -> d over single named dims."""
    sizes = [draw(st.integers(0, 5)) for _ in range(4)]

    def lay(i):
        cols = tuple(draw(st.integers(0, (1 << sizes[i + 1]) - 1)) for _ in range(sizes[i]))
        return LinearLayout(((f"x{i}", sizes[i]),), ((f"x{i + 1}", sizes[i + 1]),), cols)

    return lay(0), lay(1), lay(2)


@given(chain())
def test_compose_is_associative(abc):
    a, b, c = abc
    assert c.compose(b).compose(a) == c.compose(b.compose(a))


@given(layouts(), layouts(), layouts())
def test_product_is_associative(a, b, c):
    assert (a * b) * c == a * (b * c)


@given(layouts(surjective=True))
def test_right_inverse_is_identity_on_the_image(a):
    x = a.right_inverse()
    assert a.compose(x) == identity_like(a)


@given(layouts(distributed=True))
def test_min_norm_inverse_picks_the_lowest_replica(a):
    x = a.right_inverse()
    for flat in range(1 << a.total_out_bits):
        src = _in_flat(a, x, flat)
        assert a.apply_flat(src) == flat
        assert src == min(i for i in range(1 << a.total_in_bits) if a.apply_flat(i) == flat)


@given(layouts(distributed=True))
def test_invert_of_a_bijection_is_a_two_sided_inverse(a):
    if not (a.is_injective() and a.is_surjective()):
        return
    inv = a.invert()
    assert a.compose(inv) == identity_like(a)
    for i in range(1 << a.total_in_bits):
        assert _in_flat(a, inv, a.apply_flat(i)) == i


@given(layouts(), layouts())
def test_divide_left_undoes_product(a, b):
    assert (a * b).divide_left(a) == _align(b, a * b, a)


@given(layouts(), layouts())
def test_divide_right_undoes_product(a, b):
    got = (a * b).divide_right(b)
    assert got is not None
    assert got * b == a * b


@given(layouts())
def test_reshape_round_trips(a):
    flat_in = a.reshape_ins([("flat", 1 << a.total_in_bits)])
    assert flat_in.reshape_ins([(n, 1 << k) for n, k in a.ins]) == a
    flat_out = a.reshape_outs([("flat", 1 << a.total_out_bits)])
    assert flat_out.reshape_outs([(n, 1 << k) for n, k in a.outs]) == a


@given(layouts())
def test_transpose_round_trips(a):
    assert a.transpose_outs(["dim1", "dim0"]).transpose_outs(["dim0", "dim1"]) == a
    assert a.transpose_ins(["warp", "lane", "register"]).transpose_ins(["register", "lane", "warp"]) == a


@given(layouts())
def test_dict_round_trips(a):
    assert LinearLayout.from_dict(a.to_dict()) == a


@given(layouts(distributed=True))
def test_contiguity_equals_brute_force(a):
    regs = a.in_size("register")
    k = 1
    # register r (the lowest flat input bits) must hold row-major element r, for every r < 2k
    while k * 2 <= regs and all(a.apply_flat(r) == r for r in range(k * 2)):
        k *= 2
    assert a.num_consecutive() == k


@given(layouts())
def test_free_variable_masks_mark_bits_reaching_nothing_new(a):
    masks = a.free_variable_masks()
    seen = [0]
    for n, k in a.ins:
        for i in range(k):
            c = a.flat_cols(n)[i]
            free = c in {x for x in _span(seen)}
            assert bool(masks[n] >> i & 1) == free
            seen.append(c)


# ---------------------------------------------------------------------------------- helpers
def identity_like(a: LinearLayout) -> LinearLayout:
    """The identity on a's out-dims, each in-dim named after the out-dim it walks."""
    out = LinearLayout((), (), ())
    for n, k in a.outs:
        out = out * identity1d(1 << k, n, n)
    return out


def _in_flat(a: LinearLayout, x: LinearLayout, out_flat: int) -> int:
    """x maps a's out-dims to a's in-dims (row-major); return that as a's flat in index."""
    coords = x.apply(dict(zip(x.in_names, _unflat(out_flat, a.outs), strict=True)))
    flat, pos = 0, 0
    for n, k in a.ins:
        flat |= coords.get(n, 0) << pos
        pos += k
    return flat


def _unflat(flat: int, outs) -> list[int]:
    vals = []
    for _, k in reversed(outs):
        vals.append(flat & ((1 << k) - 1))
        flat >>= k
    return vals[::-1]


def _span(vs):
    out = {0}
    for v in vs:
        out |= {x ^ v for x in out}
    return out


def _align(b: LinearLayout, ab: LinearLayout, a: LinearLayout) -> LinearLayout:
    """b as divide_left returns it: every dim of a*b present, in a*b's order (missing ones size 1)."""
    bases = {n: [list(b.basis(n, i)) if n in b.in_names else None for i in range(b.in_bits(n))] for n in ab.in_names}
    outs = [(o, ab.out_size(o) // a.out_size(o)) for o in ab.out_names]
    full = {}
    for n in ab.in_names:
        full[n] = [[dict(zip(b.out_names, v, strict=True)).get(o, 0) for o, _ in outs] for v in (bases[n] or [])]
    return LinearLayout.from_bases(full, outs)
