"""``llgen swizzle --family``: a family's shared layouts for one tile, each planned as a store from --src and
a load into --dst (llgen.plan.endpoint), ranked by the cost model's cycles of both, and printed as #ttg text that parses
back to the layout that was planned."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from llgen.cli import main
from llgen.core.dtypes import dtype as to_dtype
from llgen.plan.endpoint import plan_load
from llgen.spec import Where, parse_encoding, parse_layout

A = "#ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>"
B = "#ttg.linear<{register = [[0, 2], [0, 4], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], warp = [], block = []}>"
ROW = re.compile(r"([* ]) +(\d+)  (\w+) +(?:not usable: (.*)|(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)  (.*))")


def table(*args):
    res = CliRunner().invoke(main, ["swizzle", *args])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    rows = []
    for i, line in enumerate(lines[2:], start=2):
        m = ROW.fullmatch(line)
        if m:
            text = lines[i + 1].strip()
            # store, load, total, floor, kSmemBytes (wavefronts and bytes); the modelled cycles apart
            nums = [int(x) for x in m.group(5, 6, 7, 8, 10)] if m.group(5) else None
            cycles = int(m.group(9)) if m.group(5) else None
            rows.append(
                {"best": m.group(1) == "*", "family": m.group(3), "why": m.group(4), "nums": nums, "cycles": cycles,
                 "steps": m.group(11), "text": text}
            )  # fmt: skip
    return rows, lines


def check_ranking(rows):
    """One row is marked best: the fewest modelled cycles, then the fewest total wavefronts, then the smallest
    kSmemBytes, then the first listed. A row's cycles are at least its wavefronts (a wavefront a cycle), and exactly
    them where both endpoints are direct (no in-warp step: shuffles, or selects of registers by lane)."""
    usable = [r for r in rows if r["nums"]]
    best = min(usable, key=lambda r: (r["cycles"], r["nums"][2], r["nums"][4]))
    assert [r["best"] for r in rows].count(True) == 1 and best["best"]
    for r in usable:
        store, load, total, floor, _ = r["nums"]
        assert total == store + load >= floor
        assert r["cycles"] >= total and (r["cycles"] == total) == r["steps"].startswith("direct, direct")
    return best


def test_the_transpose_finds_layouts_at_the_floor_and_llgen_s_swizzle_among_them():
    rows, lines = table("--src", A, "--dst", B, "--shape", "16x32", "--dtype", "f32", "--family", "any")
    assert lines[0].startswith("any shared layouts for tensor<16x32xf32>, sm_90")
    best = check_ranking(rows)
    assert best["nums"][2] == best["nums"][3] == 32  # 16 store + 16 load wavefronts, the floor
    assert {r["family"] for r in rows} == {"nvmma", "swizzled", "padded", "optimal"}
    [optimal] = [r for r in rows if r["family"] == "optimal"]
    assert optimal["text"].startswith("#ttg.shared_linear<") and optimal["nums"][2] == 32
    too_small = [r for r in rows if r["why"]]
    assert len(too_small) == 1 and "too small for a 128-byte swizzle" in too_small[0]["why"]
    unswizzled = next(r for r in rows if r["text"].startswith("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1"))
    assert unswizzled["nums"][2] == 32  # the planner's two-step access makes up for the conflicts


@pytest.mark.parametrize(
    ("src", "dst", "shape", "dtype", "family"),
    [
        (A, B, "16x32", "f32", "any"),
        ("mma", "blocked", "128x128", "f16", "nvmma"),
        ("blocked", "dot:op=1,parent=(mma)", "64x128", "i8", "any"),
    ],
)
def test_every_printed_layout_parses_back_to_the_one_planned(src, dst, shape, dtype, family):
    rows, _ = table("--src", src, "--dst", dst, "--shape", shape, "--dtype", dtype, "--family", family, "--target", "sm_80")
    dims = tuple(int(x) for x in shape.split("x"))
    q = parse_layout(dst, dims, 4 if src != A else 1, 32, where=Where(dtype_bytes=to_dtype(dtype).bytes))
    for r in rows:
        if r["nums"] is None:
            continue
        load = plan_load(
            parse_encoding(r["text"], dims, 4 if src != A else 1, 32, where=Where(dtype_bytes=to_dtype(dtype).bytes)),
            q,
            dtype,
            "sm_80",
        )
        assert load.wavefronts == r["nums"][1], r["text"]


def test_an_mma_v2_accumulator_into_a_coalesced_tile_is_best_through_the_128_byte_swizzle():
    rows, _ = table(
        "--src", "mma", "--dst", "blocked", "--shape", "128x128", "--dtype", "f16", "--target", "sm_80", "--family", "nvmma"
    )
    best = check_ranking(rows)
    wide = next(r for r in rows if "swizzlingByteWidth = 128, transposed = false" in r["text"])
    assert wide["nums"][2] == best["nums"][2] == best["nums"][3]  # best or tied, and at the floor
    assert all(r["family"] == "nvmma" for r in rows) and len(rows) == 8


WGMMA_ACC = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>"
ROWS_COALESCED = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_a_wgmma_accumulator_into_coalesced_rows_is_best_through_the_128_byte_swizzle(dtype):
    """The 128-byte swizzle is best, what Gluon's NVMMASharedLayout.get_default_for picks for this tile. For f16 the
    unswizzled layout ties or beats it on wavefronts, but only through a two-step endpoint whose in-warp shuffles cost
    hundreds of cycles, while the 128-byte swizzle stores and loads directly. For f32 every layout reaches the floor,
    the 128-byte swizzle with the fewest selects of registers by lane."""
    rows, lines = table("--src", WGMMA_ACC, "--dst", ROWS_COALESCED, "--shape", "128x128", "--dtype", dtype, "--family", "nvmma")
    best = check_ranking(rows)
    bits = 16 if dtype == "f16" else 32
    assert best["text"] == f"#ttg.nvmma_shared<{{swizzlingByteWidth = 128, transposed = false, elementBitWidth = {bits}}}>"
    assert all(r["cycles"] > best["cycles"] for r in rows if r is not best)
    if dtype == "f16":
        assert best["steps"] == "direct, direct" and best["cycles"] == best["nums"][2]
        assert any(r["nums"][2] <= best["nums"][2] and "two-step (shuffles)" in r["steps"] for r in rows)  # the old pick
    else:
        assert best["steps"] == "select, select" and best["nums"][2] == best["nums"][3] < best["cycles"]
    assert lines[-1].startswith("best: 7 (fewest modelled cycles;") and "cycles" in lines[1].split()


def test_triton_s_pick_for_an_ampere_dot_operand_is_the_one_the_matmul_dump_holds():
    """tests/data/ttgir/matmul.sm80.ttgir: #shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>."""
    for op, shape in (("0", "128x64"), ("1", "64x128")):
        _, lines = table(
            "--src", "blocked", "--dst", f"dot:op={op},parent=(mma)", "--shape", shape, "--dtype", "f16", "--target", "sm_80",
            "--family", "swizzled",
        )  # fmt: skip
        i = next(i for i, x in enumerate(lines) if x.endswith("(Triton's default for this mma v2 dot operand)"))
        assert lines[i + 1].strip() == "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


def test_an_8_bit_tile_is_listed_at_8_bits():
    rows, lines = table("--src", "blocked", "--dst", "dot:op=1,parent=(mma)", "--shape", "64x128", "--dtype", "i8",
                        "--target", "sm_80", "--family", "any")  # fmt: skip
    check_ranking(rows)
    nvmma = [r for r in rows if r["family"] == "nvmma"]
    assert len(nvmma) == 8 and all("elementBitWidth = 8}" in r["text"] for r in nvmma)
    assert any(r["text"].startswith("#ttg.swizzled_shared<{vec = 16,") for r in rows)  # 16-byte vectors of i8
    assert any("(Triton's default for this mma v2 dot operand)" in x for x in lines)


def test_family_needs_one_pair():
    res = CliRunner().invoke(main, ["swizzle", "--ttgir", "tests/data/ttgir/matmul.ttgir", "--family", "nvmma"])
    assert (
        res.exit_code == 2
        and res.stderr == "error: --family lists the shared layouts of one pair: give --src and --dst with --ttgir.\n"
    )
    plain = CliRunner().invoke(main, ["swizzle", "--src", A, "--dst", B, "--shape", "16x32", "--dtype", "f32"])
    assert plain.stdout.startswith("layout ") and "best:" not in plain.stdout  # without --family: the table as before
