"""What a spec alone decides: the warp count and warp size `llgen.parse_layout` infers from it (as the
command line does), and the one sentence a shared-memory layout gets as a conversion endpoint."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import llgen
from llgen.cli import main
from llgen.spec import Where

MFMA = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"
BLOCKED64 = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [2, 1], order = [1, 0]}>"
LINEAR64 = (
    "#ttg.linear<{register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0]], warp = [[2, 0], [4, 0]], block = []}>"
)


@pytest.mark.parametrize(
    "spec,shape,lanes,warps",
    [
        ("mfma", [64, 64], 64, 4),
        (MFMA, [64, 64], 64, 4),
        ("dot:op=1,k_width=4,parent=(mfma)", [64, 64], 64, 4),
        (BLOCKED64, [64, 64], 64, 2),
        ("blocked:tpw=8x8,wpc=1x1", [64, 64], 64, 1),
        (LINEAR64, [8, 32], 64, 4),
        ("blocked", [64, 64], 32, 4),
    ],
)
def test_parse_layout_infers_warp_size_and_count(spec, shape, lanes, warps):
    lay = llgen.parse_layout(spec, shape)
    assert (lay.in_size("lane"), lay.in_size("warp")) == (lanes, warps)


def test_parse_layout_takes_the_targets_warp_size():
    assert llgen.parse_layout("blocked", [64, 64], where=Where(target="gfx942")).in_size("lane") == 64
    assert llgen.parse_layout("blocked", [64, 64], where=Where(target="sm_90")).in_size("lane") == 32


def test_a_stated_warp_size_still_meets_a_given_one():
    with pytest.raises(llgen.LlgenError, match="not the warp size 32"):
        llgen.parse_layout(BLOCKED64, [64, 64], threads_per_warp=32)


@pytest.mark.parametrize(
    "side,spec,named",
    [
        ("--dst", "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>", "#ttg.swizzled_shared<...>"),
        ("--src", "nvmma:128", "nvmma"),
        ("--dst", "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [128, 64]}>", "#ttg.padded_shared<...>"),
        ("--dst", "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0]]}, alignment = 16>", "#ttg.shared_linear<...>"),
        (
            "--src",
            "#ttg.amd_rotating_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
            "#ttg.amd_rotating_shared<...>",
        ),
    ],
)
def test_a_shared_endpoint_is_one_sentence(side, spec, named):
    args = {"--src": "blocked", "--dst": "blocked", side: spec}
    res = CliRunner().invoke(main, ["swizzle", "--src", args["--src"], "--dst", args["--dst"]])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.strip().splitlines() == [
        f"error: {side} is a shared-memory layout ({named}); `llgen swizzle` chooses a shared layout and takes two "
        "distributed ones."
    ]


def test_plan_conversion_names_a_shared_layout():
    a, b = llgen.parse_layout("blocked", [64, 64]), llgen.parse_layout("swizzled", [64, 64])
    with pytest.raises(llgen.LlgenError, match="the destination layout is a shared-memory layout"):
        llgen.plan_conversion(a, b, "f16", "sm_90")
