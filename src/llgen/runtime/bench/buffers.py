"""What every variant of one case is measured on: the device's SM count, LOOP's and STREAM's buffers on the GPU, the
reference LOOP is checked against, and the run's settings. One record, made once a case."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from llgen.runtime.bench.loopcheck import LoopReference
from llgen.runtime.bench.rules import stream_tiles
from llgen.runtime.reference import loop_input, raw_dtype


@dataclass
class Measurement:
    case: object
    measures: set[str]  # of loop, stream (wavefronts and gather are measured after the cases)
    rep: int  # do_bench's repetition time (ms) per measurement
    sms: int
    x: object  # LOOP's input: a tile for each of 32 CTAs an SM
    y: object  # LOOP's output
    loop_ref: LoopReference
    nstream: int  # tiles STREAM walks
    xs: object = None  # STREAM's input and output (1 GiB each), where "stream" is measured
    ys: object = None
    launches: dict = field(default_factory=dict)  # LOOP launchers (k, grid) of llgen's pick and Triton's
    lat_launches: dict = field(default_factory=dict)  # the same, of each variant's LOOP built for one CTA (lat_build)

    @property
    def threads(self) -> int:
        return self.case.warps * 32

    @property
    def grid(self) -> int:
        """LOOP's CTAs for throughput: 32 an SM, one tile each."""
        return self.sms * 32

    @classmethod
    def allocate(cls, case, measures: set[str], rep: int) -> Measurement:
        """The buffers for ``case`` on the GPU: LOOP's drawn on the host (its reference needs them there), STREAM's
        any bits drawn on the GPU (STREAM adds s = 0 in the raw bits)."""
        import cupy as cp

        sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
        tile = math.prod(case.shape)  # a conversion's Case or the endpoint suite's EndpointSuiteCase
        raw = raw_dtype(case.dtype).type
        x_host = loop_input(case.dtype, raw, tile * sms * 32, np.random.default_rng())
        x = cp.asarray(x_host)
        m = cls(case, measures, rep, sms, x, cp.empty_like(x), LoopReference(case.dtype, x_host, tile), 0)
        m.nstream = stream_tiles(tile * raw().itemsize)
        if "stream" in measures:
            nbytes = tile * m.nstream * raw().itemsize
            m.xs = cp.random.randint(0, 1 << 31, size=max(1, nbytes // 4), dtype=cp.int32).view(cp.uint8)[:nbytes].view(raw)
            m.ys = cp.empty_like(m.xs)
        return m
