"""Plan -> template context -> CUDA or HIP source (kernel and vendorable header).

The planner decides; this package only spells the plan's numbers as C expressions and hands a plain dict to
the Jinja templates. Same inputs, same bytes. One idea per module:

- spelling: C spelling of numbers, affine maps, packed registers, vector accesses and addresses;
- context: the template context of a conversion plan, and the scratch its kernels declare;
- conversion: the Jinja environment, names and file names, and emit();
- bench: the LOOP, STREAM and copy kernels in the plan's bench shape (plan/benchshape.py): emit_bench();
- gather: the gather emitter (import it as llgen.emit.gather).
"""

from __future__ import annotations

from llgen.emit.bench import emit_bench
from llgen.emit.context import global_ctx, kernel_dynamic_smem, plan_scratch_bytes, scratch_bytes
from llgen.emit.conversion import FORMS, default_name, emit, file_names
from llgen.emit.environment import check_name, environment
from llgen.emit.spelling import VEC_TYPES, RegArray, address, affine_expr, hexu, run_term, vector_access

__all__ = [
    "FORMS",
    "VEC_TYPES",
    "RegArray",
    "address",
    "affine_expr",
    "check_name",
    "default_name",
    "emit",
    "emit_bench",
    "environment",
    "file_names",
    "global_ctx",
    "hexu",
    "kernel_dynamic_smem",
    "plan_scratch_bytes",
    "run_term",
    "scratch_bytes",
    "vector_access",
]
