"""Element types: name, bit width, and the C types the generated code uses for them."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LlgenError


@dataclass(frozen=True)
class DType:
    name: str
    bits: int
    cuda: str  # C++ type in CUDA code (headers are templated; this is the kernel's type)
    hip: str

    @property
    def bytes(self) -> int:
        return self.bits // 8

    @property
    def raw(self) -> str:
        """Unsigned integer type of the same width: data moves as raw bits."""
        return {8: "unsigned char", 16: "unsigned short", 32: "unsigned", 64: "unsigned long long"}[self.bits]


DTYPES = {d.name: d for d in (
    DType("f64", 64, "double", "double"),
    DType("i64", 64, "long long", "long long"),
    DType("f32", 32, "float", "float"),
    DType("i32", 32, "int", "int"),
    DType("f16", 16, "__half", "__half"),
    DType("bf16", 16, "__nv_bfloat16", "__hip_bfloat16"),
    DType("i16", 16, "short", "short"),
    DType("f8e4m3", 8, "__nv_fp8_e4m3", "unsigned char"),
    DType("f8e5m2", 8, "__nv_fp8_e5m2", "unsigned char"),
    DType("i8", 8, "signed char", "signed char"),
)}


def dtype(name: str | DType) -> DType:
    if isinstance(name, DType):
        return name
    try:
        return DTYPES[name]
    except KeyError:
        raise LlgenError(f"unknown dtype '{name}'; known: {', '.join(DTYPES)}.") from None
