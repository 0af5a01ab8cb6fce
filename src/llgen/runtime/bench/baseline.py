"""Triton's own convert_layout between the same layouts (Gluon, src/llgen/runtime/gluon.py), checked against NumPy as ours is
and timed as ours is: the bench's baseline."""

from __future__ import annotations

from llgen.core.errors import error_line
from llgen.runtime.bench.buffers import Measurement
from llgen.runtime.bench.loopcheck import check_loop
from llgen.runtime.bench.rules import short
from llgen.runtime.bench.timing import loop_times, median_ms


def conversion_case(case):
    """Triton's convert_layout LOOP and STREAM between the case's two layouts (src/llgen/runtime/gluon.py)."""
    from llgen.runtime.gluon import TritonCase  # imports Triton: only where Triton runs

    return TritonCase(case.src, case.dst, case.warps, case.dtype)


def triton_row(m: Measurement, log, triton_case=conversion_case) -> dict:
    """Triton's LOOP (and STREAM, where m has its buffers) for the case, by ``triton_case(case)``'s kernels; a
    failure is the row's "error". Its LOOP launcher joins m.launches."""
    case = m.case
    r = {"path": "triton"}
    try:
        import torch

        from llgen.runtime.gluon import TORCH_DTYPES  # imports Triton: only where Triton runs

        tdt = getattr(torch, TORCH_DTYPES[case.dtype])
        tx = torch.as_tensor(m.x, device="cuda").view(tdt)
        ty = torch.as_tensor(m.y, device="cuda").view(tdt)  # y's memory: the check reads it with CuPy
        tc = triton_case(case)

        def run(k, g):
            tc.loop(tx, ty, k, g)

        r.update(check_loop(lambda k: run(k, m.grid), m.y, m.loop_ref, case.shape))
        loop_times(r, run, m.sms, m.rep)
        m.launches["triton"] = run
        r.update(tc.resources())
        if m.xs is not None:
            txs = torch.as_tensor(m.xs, device="cuda").view(tdt)
            tys = torch.empty_like(txs)
            r["stream_ms"] = median_ms(lambda: tc.stream(txs, tys, 0.0, m.nstream), m.rep)
            r["copy_ms"] = median_ms(lambda: tc.stream(txs, tys, 0.0, m.nstream, convert=False), m.rep)
            r["stream_ratio"] = r["stream_ms"] / r["copy_ms"]
    except Exception as e:  # noqa: BLE001 - Triton's failure is reported, the rest of the run goes on
        r["error"] = error_line(e)
    log(f"  {case.id} / triton: {short(r)}")
    return r
