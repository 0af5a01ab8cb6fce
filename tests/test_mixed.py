"""The mixed suite's LOOP kernels (llgen.cases.mixed, llgen.runtime.bench.mixed) without a GPU: llgen's two paths run on
CPU threads and equal NumPy step by step, Triton's path compiles with the layouts it is given, and the plans the
timings rest on are at their floors."""

from __future__ import annotations

import re

import numpy as np
import pytest

from llgen.cases.mixed import CASES, N, plain_image, plain_plan, plain_source, preshuffle_plan, preshuffled_source, tiles
from llgen.runtime import host
from llgen.runtime.bench.mixed import expected_words, preshuffled_image

SMALL = [c for c in CASES if c.k == 64]


def _run(case, source, image, fn, x, steps):
    mod = host.compile(source(case), "sm_90")
    want = expected_words(case, x, steps)
    y = mod.filled(want.size, np.uint32, 0xDEADBEEF)
    mod.launch(fn, 1, 128, (mod.to_device(image(case, x)), y, np.int32(steps)))
    mod.synchronize()
    return mod.to_host(y).reshape(want.shape), want


@pytest.mark.parametrize("case", SMALL, ids=lambda c: c.id)
def test_llgen_paths_equal_numpy_step_by_step(case):
    x = tiles(case, 3)
    for source, image, fn in ((plain_source, plain_image, "mixed_plain"), (preshuffled_source, preshuffled_image, "mixed_g")):
        for steps in (1, 2, 3):
            got, want = _run(case, source, image, fn, x, steps)
            assert np.array_equal(got, want), (case.id, fn, steps)


def test_a_buffer_in_the_wrong_order_is_seen():
    case = SMALL[0]
    x = tiles(case, 3)
    got, want = _run(case, preshuffled_source, lambda c, t: plain_image(c, t), "mixed_g", x, 1)
    assert not np.array_equal(got, want)


def test_triton_path_compiles_with_its_own_dot_operand_and_nvmma_buffer():
    pytest.importorskip("triton")
    from llgen.runtime.gluon_mixed import compile_offline

    for case in (c for c in SMALL if c.dtype == "e2m1"):
        ptx = compile_offline(case).asm["ptx"]
        if case.kmajor:  # K-contiguous bytes: Triton reads them with ldmatrix
            assert "ldmatrix" in ptx and not re.search(r"ld\.shared", ptx)
        else:  # N-contiguous: byte by byte
            assert re.search(r"ld\.shared\.u8|ld\.shared\.b8", ptx), case.id


@pytest.mark.parametrize("case", [c for c in CASES if c.kmajor], ids=lambda c: c.id)
def test_llgen_reads_at_the_shared_memory_floor(case):
    """Path 2 from Triton's K-major buffer and path 3 from G both read the tile at the wavefront (sector) floor."""
    plain = plain_plan(case)
    inner = plain.inner if plain.kind == "packed" else plain
    assert inner.wavefronts == inner.floor, (case.id, inner.explain())
    traffic = preshuffle_plan(case).loader.traffic()
    assert traffic["sectors_per_load"] == traffic["floor_sectors_per_load"] and traffic["vector_bytes"] == 16
    assert case.tile_bytes * (2 if case.packed else 1) == case.shape[0] * case.shape[1] == case.k * N
