"""The planner against the CPU oracle (llgen.verify.simulate): exact data movement for every slot and
replica, and predicted shared-memory wavefronts equal to a brute-force bank count."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from helpers import one_sentence

from llgen import LinearLayout as L
from llgen import LlgenError
from llgen.plan import plan_conversion
from llgen.randlayout import random_pairs
from llgen.spec import Where, parse_layout
from llgen.verify.replay import replay
from llgen.verify.simulate import simulate

DTYPES = ["f64", "i64", "f32", "i32", "f16", "bf16", "i16", "f8e4m3", "f8e5m2", "i8"]
LANE_BITS = {"sm_80": 5, "sm_90": 5, "gfx90a": 6, "gfx942": 6}


# ---------------------------------------------------------------- the 16x32 fp32 transpose (docs/design.md §6)
A16 = L.from_bases(
    {"register": [[1, 0], [2, 0], [4, 0], [8, 0]], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "warp": []},
    {"dim0": 16, "dim1": 32},
)
B16 = L.from_bases(
    {"register": [[0, 2], [0, 4], [0, 8], [0, 16]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], "warp": []},
    {"dim0": 16, "dim1": 32},
)


def _offset_of(plan, m: int, n: int) -> int:
    """Element offset of logical (m, n) under the plan's swizzle (columns: offset bit -> element)."""
    cols = plan.detail.swizzle.columns
    target = (m << 5) | n
    for o in range(1 << len(cols)):
        x = 0
        for i, c in enumerate(cols):
            if o >> i & 1:
                x ^= c
        if x == target:
            return o
    raise AssertionError("swizzle is not a bijection")


@pytest.mark.parametrize("swizzle,load_per_step", [("unswizzled", 16), ("classic", 2), ("optimal", 1)])
def test_transpose_16x32_wavefronts(swizzle, load_per_step):
    p = plan_conversion(A16, B16, "f32", "sm_90", path="shared", swizzle=swizzle, matrix=False)
    r = simulate(p)
    assert r.ok
    d = p.detail
    assert len(d.store.instrs) == len(d.load.instrs) == 16
    assert r.store_instr_wavefronts == (1,) * 16
    assert r.load_instr_wavefronts == (load_per_step,) * 16
    assert (d.store.wavefronts_per_instr, d.load.wavefronts_per_instr) == (1, load_per_step)
    assert (d.predicted_store_wavefronts, d.predicted_load_wavefronts) == (r.store_wavefronts, r.load_wavefronts)
    assert (r.store_wavefronts, r.load_wavefronts) == (16, 16 * load_per_step)


def test_transpose_16x32_optimal_offset():
    p = plan_conversion(A16, B16, "f32", "sm_90", path="shared", swizzle="optimal", matrix=False)
    for m in range(16):
        for n in range(32):
            assert _offset_of(p, m, n) == 32 * m + (n ^ (2 * m))
    assert p.detail.lower_bound_extra == 0


@pytest.mark.parametrize("dtype,wavefronts,instrs,widened", [("i8", 640, 136, True), ("f16", 768, 192, False)])
def test_narrow_transpose_widens_one_side_only_for_fewer_wavefronts(dtype, wavefronts, instrs, widened):
    """A 128x128 transpose of narrow elements shares no register bit between the sides. With the common span the
    best stores elements and loads pairs: 768 wavefronts, 192 instructions a thread, i8 and f16 alike. One side
    widened to 16 bytes takes the data-volume minimum on that side: i8 then needs 640 wavefronts (bench case
    b2bT_i8); f16 would need the same 768 in fewer instructions, and keeps the common span (a tie stays common)."""
    src = parse_layout("blocked:spt=1x16,tpw=4x8,wpc=4x1,order=1x0", (128, 128), 4)
    dst = parse_layout("blocked:spt=16x1,tpw=8x4,wpc=1x4,order=0x1", (128, 128), 4)
    p = plan_conversion(src, dst, dtype, "sm_90", path="shared", matrix=False)
    r = simulate(p)
    assert r.ok
    d = p.detail
    assert (max(d.store.width, d.load.width) * p.dtype.bytes == 16) == widened
    assert (d.predicted_store_wavefronts, d.predicted_load_wavefronts) == (r.store_wavefronts, r.load_wavefronts)
    assert d.predicted_store_wavefronts + d.predicted_load_wavefronts == wavefronts
    assert len(d.store.instrs) + len(d.load.instrs) == instrs
    common = plan_conversion(src, dst, dtype, "sm_90", path="shared", matrix=False, one_sided=False).detail
    assert common.predicted_store_wavefronts + common.predicted_load_wavefronts == 768


# ---------------------------------------------------------------- broadcast 16-byte loads (docs/design.md §7.2)
def _broadcast_1d(zero_lanes: int) -> tuple[L, L]:
    """The probe's 1-D tile (bench/probes/wavefront_model.py): 256 elements on 2 warps, B holding 4 consecutive
    elements a thread and broadcasting its lowest ``zero_lanes`` lane bits."""
    spec = importlib.util.spec_from_file_location(
        "wavefront_probe", Path(__file__).parents[1] / "bench/probes/wavefront_model.py"
    )
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    return probe._broadcast_1d(zero_lanes, 2)


# (load bytes, ncu's load wavefronts on an H100; bench/runs/2026-11-25-probe-wavefronts.txt): at 1-4 broadcast lane
# bits a 16-byte load's quarter-warp reads 4, 2, 1 and 1 addresses; halves serve two addresses a quarter or fewer
# (z2 f16/i8, z3, z4) unless a half's words share a bank (z2 i32: the same count either way); four go by quarters
PROBE_LOAD_WAVEFRONTS = {
    (1, "i32"): (16, 32), (1, "f16"): (8, 16), (1, "i8"): (4, 8),
    (2, "i32"): (16, 64), (2, "f16"): (16, 16), (2, "i8"): (16, 8),
    (3, "i32"): (16, 64), (3, "f16"): (16, 32), (3, "i8"): (16, 16),
    (4, "i32"): (16, 128), (4, "f16"): (16, 64), (4, "i8"): (16, 32),
}  # fmt: skip


@pytest.mark.parametrize("zero,dtype", sorted(PROBE_LOAD_WAVEFRONTS))
def test_broadcast_16_byte_loads_take_the_wavefronts_the_h100_counted(zero, dtype):
    a, b = _broadcast_1d(zero)
    p = plan_conversion(a, b, dtype, "sm_90", path="shared", matrix=False)
    d = p.detail
    assert (d.load.op, d.load.width * p.dtype.bytes, d.predicted_load_wavefronts) == (
        "ld.shared",
        *PROBE_LOAD_WAVEFRONTS[zero, dtype],
    )
    assert simulate(p).load_wavefronts == d.predicted_load_wavefronts


def test_two_addresses_a_quarter_warp_load_in_half_warps_and_four_in_quarters():
    """r18_7_i8's B -> A loads (two addresses a quarter, bench/report.md: 16 measured, 32 by the quarter rule) and
    r1_slice_256_f16's B -> A loads (the same four addresses in every quarter: 128 measured, as quarters)."""
    from llgen.cases.suite import suite

    cases = {c.id: c for c in suite("wide")}
    for cid, wavefronts in (("r18_7_i8", 16), ("r1_slice_256_f16", 128)):
        c = cases[cid]
        p = plan_conversion(c.dst, c.src, c.dtype, "sm_90", path="shared")
        assert (p.detail.load.op, p.detail.load.width * p.dtype.bytes) == ("ld.shared", 16)
        assert p.detail.predicted_load_wavefronts == wavefronts, cid
        assert simulate(p).load_wavefronts == wavefronts, cid


# ---------------------------------------------------------------- paper Figure 3: warp shuffles in 2 rounds
def _lay(reg, lane, warp, shape):
    """Bases from bit names: x<k> is flat logical bit k (dim0 outermost)."""
    sizes = [s.bit_length() - 1 for s in shape.values()]

    def v(s):
        if s == "0":
            return [0] * len(sizes)
        bit, out, pos = int(s[1:]), [], sum(sizes)
        for k in sizes:
            pos -= k
            out.append(((1 << bit) >> pos) & ((1 << k) - 1))
        return out

    return L.from_bases(
        {"register": [v(s) for s in reg.split()], "lane": [v(s) for s in lane.split()], "warp": [v(s) for s in warp.split()]},
        shape,
    )


@pytest.mark.parametrize(
    "a,b",
    [
        # Figure 3 as drawn: 8 elements t0..t7, 4 threads x 2 registers (the other lanes broadcast)
        (("x0", "x1 x2 0 0 0"), ("x2", "x0 x1 0 0 0")),
        # the same shape over a full warp: V and the common part aside, one E/F pair and one round vector
        (("x0", "x1 x2 x3 x4 x5"), ("x5", "x0 x1 x2 x3 x4")),
    ],
)
@pytest.mark.parametrize("dtype", ["f32", "f16", "f64"])
def test_figure3_two_rounds(a, b, dtype):
    n = 6 if "x5" in a[1] else 3
    shape = {"dim0": 1 << n}
    A, B = _lay(*a, "", shape), _lay(*b, "", shape)
    p = plan_conversion(A, B, dtype, "sm_90", path="shuffle")
    assert p.path == "shuffle" and p.detail.num_rounds == 2 and not p.detail.pack_a
    r = simulate(p)
    assert r.ok
    assert r.shuffles == p.detail.shuffles
    auto = plan_conversion(A, B, dtype, "sm_90")
    # 16-bit elements that travel alone in a word take one PRMT each way (plan/shuffle_words.py), and shuffles win:
    # the wide suite's tiny_8x8_f16 measured 1.0 ns against shared memory's 2.2 on the H100 (with a shift, a mask and
    # a select each way instead of the PRMT, 2.9)
    assert auto.path == "shuffle" and simulate(auto).ok


# ---------------------------------------------------------------- real layouts, every way they can be planned
CONFIGS = (
    [{"path": None}, {"path": "shuffle"}]
    + [{"path": "shared", "swizzle": s, "matrix": m} for s in ("optimal", "unswizzled", "classic") for m in (True, False)]
    + [{"path": "shared", "scalar": True}]
)
TARGETS = ("sm_90", "sm_80", "gfx942")


def check_pair(a, b, dt, tgt, replay_every: bool = False) -> tuple[list[str], int, int]:
    """Plan the pair every valid way and check each plan: the simulator (data of every slot and replica, barriers,
    wavefronts) and the JSON replay. Returns (failures, plans, refusals): a forced shuffle across warps and a tile
    with no way to fit the target's shared memory are refusals, anything else that raises is a failure."""
    fails, nplans, refused = [], 0, 0
    seen = {}
    for cfg in CONFIGS:
        try:
            p = plan_conversion(a, b, dt, tgt, **cfg)
        except LlgenError as e:
            if "cannot" in str(e) and (cfg["path"] == "shuffle" or "budget" in str(e)):
                refused += 1
                continue
            fails.append(f"{cfg}: {e}")
            continue
        nplans += 1
        key = (p.path, p.detail)
        if key in seen:  # the same plan again (path=None's choice; matrix=True without a tile)
            continue
        seen[key] = True
        tag = f"{dt} {tgt} {cfg} A={a.to_dict()['bases']} B={b.to_dict()['bases']} shape={a.shape}"
        try:
            r = simulate(p)
            if replay_every or p.path != "shuffle":  # a shuffle's JSON lists every thread of every round
                replay(p.to_json())
        except AssertionError as e:
            fails.append(f"{tag}: {e}")
            continue
        if not r.ok:
            fails.append(f"{tag}: wrong data {r.first_mismatch()}")
            continue
        if p.path != "shared":
            continue
        d = p.detail
        if (d.predicted_store_wavefronts, d.predicted_load_wavefronts) != (r.store_wavefronts, r.load_wavefronts):
            fails.append(
                f"{tag}: predicted {(d.predicted_store_wavefronts, d.predicted_load_wavefronts)} "
                f"counted {(r.store_wavefronts, r.load_wavefronts)}"
            )
        # conflict-free where Lemma 9.5 allows it: no instruction over the data-volume minimum (one wavefront per
        # 128 bytes; a broadcast read may take fewer)
        over = [
            w > ph
            for w, ph in zip(
                r.store_instr_wavefronts + r.load_instr_wavefronts, r.store_instr_phases + r.load_instr_phases, strict=True
            )
        ]
        if d.swizzle.name == "optimal" and d.lower_bound_extra == 0 and any(over):
            fails.append(f"{tag}: conflicts where Lemma 9.5 allows none")
    return fails, nplans, refused


def run_pairs(seed: int, count: int) -> tuple[list[str], int, int]:
    """``count`` pairs from the generator of real layouts, spread over the targets (wave32 and wave64)."""
    fails, nplans, refused = [], 0, 0
    for i, tgt in enumerate(TARGETS):
        for j, pair in enumerate(random_pairs(count // len(TARGETS) + (i < count % len(TARGETS)), seed, tgt)):
            f, k, s = check_pair(pair.a, pair.b, pair.dtype, tgt, replay_every=j % 8 == 0)
            fails += [f"{pair.label} ({pair.family_a} -> {pair.family_b}): {x}" for x in f]
            nplans += k
            refused += s
    return fails, nplans, refused


# random pairs of real layouts in the property run: 3,000 in `make test` (under its five minutes on two cores),
# 10,000 in `make test-deep` (LLGEN_PROPERTY_PAIRS); the same seeds, so the deep run's first pairs are these
PAIRS = int(os.environ.get("LLGEN_PROPERTY_PAIRS", "3000"))
CHUNKS = 16  # seeds 1000..1015, one test each, so pytest-xdist spreads them over the cores (short ones: an even finish)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_pairs_property(chunk):
    """PAIRS pairs of real layouts in all (seeded, PAIRS / 16 a chunk), each by every path and shared layout it
    allows: zero failures. (Its time is `make perf`'s business, not this test's.)"""
    fails, nplans, _ = run_pairs(1000 + chunk, PAIRS // CHUNKS)
    assert not fails, f"{len(fails)} failures, first: {fails[:3]}"
    assert nplans > 4 * PAIRS // CHUNKS


def test_random_pairs_smoke():
    """A quick in-process run (for failures with a readable traceback)."""
    fails, _, _ = run_pairs(7, 150)
    assert not fails, fails[:3]


# ---------------------------------------------------------------- 128x128: speed and scratch rounds
def _lay128(reg, lane, warp):
    def v(s):
        return [1 << int(s[1:]), 0] if s[0] == "m" else [0, 1 << int(s[1:])]

    return L.from_bases(
        {"register": [v(s) for s in reg.split()], "lane": [v(s) for s in lane.split()], "warp": [v(s) for s in warp.split()]},
        {"dim0": 128, "dim1": 128},
    )


BLOCKED = _lay128("n0 n1 n2 m3 m4 m5 m6", "n3 n4 n5 n6 m0", "m1 m2")  # sizePerThread [1,8], 2x16 lanes, 4x1 warps
MMA = _lay128("n0 m3 n4 n5 n6 m5 m6", "n1 n2 m0 m1 m2", "m4 n3")  # mma v2 accumulator, 2x2 warps
BLOCKED_T = _lay128("m0 m1 m2 n3 n4 n5 n6", "m3 m4 m5 m6 n0", "n1 n2")  # column-major blocked
BLOCKED64 = _lay128("n0 n1 n2 m4 m5 m6", "n3 n4 n5 n6 m0 m1", "m2 m3")  # 64 lanes


@pytest.mark.parametrize(
    "dtype,budget,rounds",
    [
        ("f32", None, 1),
        ("f32", 48 * 1024, 2),
        ("f64", None, 1),
        ("f64", 48 * 1024, 4),
        ("f16", 48 * 1024, 1),
        ("f32", 8 * 1024, 8),
    ],
)
def test_128x128_scratch_rounds(dtype, budget, rounds):
    """The budget is the target's per-CTA limit (227 KiB on sm_90): a 64 or 128 KiB tile goes in one piece, as
    Triton converts it; a lower --smem-budget splits it into store/barrier/load rounds, each exact."""
    p = plan_conversion(BLOCKED, MMA, dtype, "sm_90", path="shared", smem_budget=budget)
    d = p.detail
    assert d.rounds == rounds and d.scratch_bytes <= (budget or 227 * 1024)
    r = simulate(p)
    assert r.ok
    assert (d.predicted_store_wavefronts, d.predicted_load_wavefronts) == (r.store_wavefronts, r.load_wavefronts)


def test_rounds_number_the_same_bits_on_both_sides():
    """A store and a load that hold the round bits in different register orders must still agree which round is
    which (mma -> column-major blocked, 256x256 f32, in 2 to 32 rounds)."""
    a = parse_layout("mma", (256, 256), 4, 32, where=Where(dtype_bytes=4))
    b = parse_layout("blocked:spt=1x4,tpw=2x16,order=0x1", (256, 256), 4, 32, where=Where(dtype_bytes=4))
    for budget, rounds in ((None, 2), (64 * 1024, 4), (32 * 1024, 8), (8 * 1024, 32)):
        p = plan_conversion(a, b, "f32", "sm_90", path="shared", smem_budget=budget)
        assert p.detail.rounds == rounds and simulate(p).ok


def test_budget_outside_the_target_is_refused():
    for budget in (0, 228 * 1024):
        with pytest.raises(LlgenError, match="budget"):
            plan_conversion(BLOCKED, MMA, "f32", "sm_90", smem_budget=budget)


# ---------------------------------------------------------------- bad input: one sentence each
def test_bad_input():
    other_shape = L.from_bases(
        {"register": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], "lane": A16.to_dict()["bases"]["lane"], "warp": []},
        {"dim0": 16, "dim1": 64},
    )
    cases = [
        ({"a": A16, "b": other_shape}, "different tensors"),
        (
            {"a": _lay("x0", "x1 x2 x3 x4 x5", "x6", {"dim0": 128}), "b": _lay("x0 x6", "x1 x2 x3 x4 x5", "0 0", {"dim0": 128})},
            "warp counts",
        ),
        (
            {
                "a": A16,
                "b": L.from_bases(
                    {"register": [[1, 0], [2, 0], [4, 0], [0, 0]], "lane": B16.to_dict()["bases"]["lane"], "warp": []},
                    {"dim0": 16, "dim1": 32},
                ),
            },
            "not surjective",
        ),
        ({"a": A16, "b": B16, "dtype": "f12"}, "unknown dtype"),
        ({"a": A16, "b": B16, "target": "sm_70"}, "unknown target"),
        (
            {
                "a": _lay("x0", "x1 x2 x3 x4 x5", "x6", {"dim0": 128}),
                "b": _lay("x6", "x1 x2 x3 x4 x5", "x0", {"dim0": 128}),
                "path": "shuffle",
            },
            "cross warps",
        ),
        ({"a": A16, "b": B16, "path": "registers"}, "registers path cannot"),
        ({"a": A16, "b": B16, "path": "teleport"}, "unknown path"),
    ]
    for kw, words in cases:
        kw = dict(kw)
        args = (kw.pop("a"), kw.pop("b"), kw.pop("dtype", "f32"), kw.pop("target", "sm_90"))
        with pytest.raises(LlgenError) as e:
            plan_conversion(*args, **kw)
        assert words in one_sentence(e.value), str(e.value)


def test_many_scratch_rounds_prefer_plain_vectors_to_matrix_tiles_at_equal_wavefronts():
    """mma -> blocked in f16: stmatrix/ldmatrix and plain 16-byte vectors take the same wavefronts. In one or two
    rounds the matrix tiles stay (fewer instructions); in four (an 8 KB budget) a barrier follows every few accesses,
    and there the matrix plan measured 4.6% slower on the H100 (bench case mma2b_f16_b8k), so vectors win the tie."""
    src = parse_layout("mma", (128, 128), 4)
    dst = parse_layout("blocked:spt=1x8,tpw=2x16,wpc=4x1,order=1x0", (128, 128), 4)
    ops = {}
    for budget in (None, 16384, 8192):
        d = plan_conversion(src, dst, "f16", "sm_90", path="shared", smem_budget=budget).detail
        ops[budget] = (d.rounds, d.store.op, d.load.op, d.predicted_store_wavefronts + d.predicted_load_wavefronts)
    assert ops[None][:2] == (1, "stmatrix") and ops[16384][:2] == (2, "stmatrix")
    assert ops[8192] == (4, "st.shared", "ld.shared", ops[16384][3])


# ---------------------------------------------------------------- registers a thread holds (llgen plan's registers line)
@pytest.mark.parametrize(
    "dtype, path, regs",
    [
        ("f32", "shuffle", 32),  # shuffles read A and fill B in every round: 16 + 16 words
        ("f32", "shared", 16),  # one round: A is stored before B is loaded, the larger side counts
        ("f16", "shuffle", 16),  # two f16 elements a word
        ("f16", "shared", 8),
        ("f64", "shuffle", 64),  # two words an element
        ("f64", "registers", None),  # not a permutation: an error, not a count
    ],
)
def test_registers_count_the_live_words_of_a_and_b(dtype, path, regs):
    from llgen.plan.explain import registers

    if regs is None:
        with pytest.raises(LlgenError):
            plan_conversion(A16, B16, dtype, "sm_90", path=path)
        return
    p = plan_conversion(A16, B16, dtype, "sm_90", path=path)
    assert registers(p) == regs and p.to_json()["registers_per_thread"] == regs
    assert f"registers: {regs} per thread at the peak" in p.explain()


TRANSPOSE = ("blocked:spt=1x4,tpw=1x32,wpc=4x1,order=1x0", "blocked:spt=4x1,tpw=32x1,wpc=1x4,order=0x1")


def test_scratch_rounds_free_a_as_they_store_it():
    """The 256x256 f32 transpose over 4 warps: 512 elements a thread on each side; in 2 or 4 rounds each round's
    stores free what its loads fill, so the peak stays 512, not 1024."""
    from llgen.plan.explain import registers

    a, b = (parse_layout(s, (256, 256), 4, 32, where=Where(dtype_bytes=4)) for s in TRANSPOSE)
    for budget, rounds in ((None, 2), (64 * 1024, 4)):
        p = plan_conversion(a, b, "f32", "sm_90", smem_budget=budget)
        assert (p.detail.rounds, p.n_in, p.n_out, registers(p)) == (rounds, 512, 512, 512)


def test_a_plan_over_255_registers_warns_in_plan_and_emit(tmp_path):
    from click.testing import CliRunner

    from llgen.cli import main

    args = ["--src", TRANSPOSE[0], "--dst", TRANSPOSE[1], "--shape", "256x256", "--dtype", "f32", "--warps", "4"]
    warning = "warning: the conversion holds 512 registers a thread at its peak, over the 255 a thread can hold"
    for cmd in (["plan"], ["plan", "--json"], ["emit", "-o", str(tmp_path / "t.cu")]):
        res = CliRunner().invoke(main, [*cmd, *args])
        assert res.exit_code == 0, res.output
        assert res.stderr.splitlines()[0].startswith(warning) and res.stderr.count("warning:") == 1, res.stderr
    res = CliRunner().invoke(main, ["plan", *args])
    assert "registers: 512 per thread at the peak (A 512, B 512 words), over the 255 a thread can hold" in res.stdout
    small = CliRunner().invoke(main, ["plan", *args[:-4], "--shape", "64x64"])
    assert small.exit_code == 0 and small.stderr == "" and "registers: 32 per thread at the peak" in small.stdout
