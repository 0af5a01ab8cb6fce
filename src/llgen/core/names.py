"""Names llgen writes into C++ and file names: `check_identifier` refuses what a compiler would
(a keyword, an invalid or reserved identifier), and `identifier` makes one from free text, such as
an op's source location."""

from __future__ import annotations

import re

from llgen.core.errors import LlgenError
from llgen.core.limits import MAX_NAME_CHARS

# C++23 keywords and alternative tokens, CUDA's and HIP's own qualifiers, and names the generated code
# uses inside its namespace (a namespace of the same name would hide them)
KEYWORDS = frozenset(
    """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template
    this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
    while xor xor_eq override final import module
    __global__ __device__ __host__ __shared__ __constant__ __managed__ __restrict__ __forceinline__ __noinline__
    __launch_bounds__ NULL std threadIdx blockIdx blockDim gridDim warpSize
    """.split()
)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_identifier(name: str, what: str = "--name") -> str:
    """``name`` itself when a C++ compiler takes it as a namespace and kernel name; otherwise one sentence."""
    shown = name if len(name) <= 40 else name[:37] + "..."
    if not name:
        raise LlgenError(f"{what} is empty; give a C++ identifier such as cvt_a_to_b.")
    if len(name) > MAX_NAME_CHARS:
        raise LlgenError(f"{what} '{shown}' is longer than {MAX_NAME_CHARS} characters.")
    if not _IDENT.fullmatch(name):
        raise LlgenError(f"{what} '{shown}' is not a C++ identifier (letters, digits and _, not starting with a digit).")
    if name in KEYWORDS:
        raise LlgenError(f"{what} '{name}' is a C++ keyword or a name CUDA/HIP code already uses.")
    if name.startswith("__") or re.match(r"_[A-Z]", name) or "__" in name:
        raise LlgenError(f"{what} '{shown}' is reserved in C++ (a double underscore, or _ and a capital letter).")
    return name


def identifier(text: str) -> str:
    """A valid identifier from free text: other characters become _, runs of _ shrink to one, a leading
    digit gets a ``k`` in front, a keyword ``_cvt`` behind."""
    name = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", text)).strip("_") or "cvt"
    if name[0].isdigit():
        name = "k" + name
    name = name[: MAX_NAME_CHARS - 8]
    return name if name not in KEYWORDS else name + "_cvt"


def ttgir_name(func: str, location, ir_line: int, digest: str | None = None, prefix: str | None = None) -> str:
    """The header name of an op of a TTGIR dump: ``<function>[_<location name>]_l<line>c<col>`` from its source
    location (``_ir<its line in the dump>`` without one), then ``_<digest>``, a short hash of what the header holds,
    so that headers of several dumps of one source never share a name unless they share their code. ``prefix``
    (the user's --name) stands in place of the function, and the name has no digest."""
    parts = [prefix or func or "kernel", *([location.name] if location.name else [])]
    parts.append(f"l{location.line}c{location.col}" if location.line is not None else f"ir{ir_line}")
    base = identifier("_".join(parts))
    return f"{base}_{digest}" if digest else base
