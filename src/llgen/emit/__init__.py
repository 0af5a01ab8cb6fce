"""Plan -> template context -> CUDA or HIP source (kernel and vendorable header).

The planner decides; this package only spells the plan's numbers as C expressions and hands a plain dict to
the Jinja templates. Same inputs, same bytes. One idea per module:

- spelling: C spelling of numbers, affine maps, packed registers, vector accesses and addresses;
- kinds: emit(), default_name(), file_names() and dynamic_smem() for every plan kind, each kind's module below
  spelling it (its name, render and dynamic_smem);
- conversion, endpoint, tile, gather: those modules, one a plan kind;
- context: the template context of a conversion plan, and the scratch its kernels declare;
- environment: the Jinja environment and the check of a C++ name;
- bench: the LOOP, STREAM and copy kernels in the plan's bench shape (plan/benchshape.py): emit_bench().
"""

from __future__ import annotations

from llgen.emit.bench import emit_bench
from llgen.emit.context import global_ctx, plan_scratch_bytes, scratch_bytes
from llgen.emit.environment import check_name, environment
from llgen.emit.kinds import EMITTERS, FORMS, default_name, dynamic_smem, emit, file_names
from llgen.emit.spelling import VEC_TYPES, RegArray, address, affine_expr, hexu, run_term, vector_access

__all__ = [
    "EMITTERS",
    "FORMS",
    "VEC_TYPES",
    "RegArray",
    "address",
    "affine_expr",
    "check_name",
    "default_name",
    "dynamic_smem",
    "emit",
    "emit_bench",
    "environment",
    "file_names",
    "global_ctx",
    "hexu",
    "plan_scratch_bytes",
    "run_term",
    "scratch_bytes",
    "vector_access",
]
