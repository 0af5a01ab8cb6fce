"""Element types: name, bit width, and the C types the generated code uses for them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from llgen.core.errors import LlgenError


@dataclass(frozen=True)
class DType:
    name: str
    bits: int
    cuda: str  # C++ type in CUDA code (headers are templated; this is the kernel's type)
    hip: str

    @property
    def bytes(self) -> int:
        if self.bits < 8:
            raise LlgenError(f"{self.name} is a {self.bits}-bit type, two elements to a byte; this step takes whole-byte types.")
        return self.bits // 8

    @property
    def unit_bytes(self) -> int:
        """Bytes of the smallest unit holding whole elements: a 4-bit type's byte holds two. A layout's defaults (vector
        widths, kWidth) for a 4-bit type are those of the bytes holding it."""
        return max(1, self.bits // 8)

    @property
    def sub_byte(self) -> bool:
        """Two elements to a byte (4-bit types): a layout's register bit 0 says which two share one."""
        return self.bits < 8

    @property
    def raw(self) -> str:
        """Unsigned integer type of the same width: data moves as raw bits."""
        return {8: "unsigned char", 16: "unsigned short", 32: "unsigned", 64: "unsigned long long"}[self.bits]


DTYPES = {
    d.name: d
    for d in (
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
        DType("e8m0", 8, "unsigned char", "unsigned char"),  # mx scales: an exponent only, 2**(e - 127)
        DType("i4", 4, "unsigned char", "unsigned char"),  # packed two to a byte, element 2i in the low nibble
        DType("u4", 4, "unsigned char", "unsigned char"),
        DType("e2m1", 4, "unsigned char", "unsigned char"),  # fp4: sign, 2 exponent bits (bias 1), 1 mantissa bit
    )
}


# the spellings users type, for the names above (Triton's, NumPy's and PyTorch's)
ALIASES = {
    "fp64": "f64",
    "float64": "f64",
    "double": "f64",
    "int64": "i64",
    "fp32": "f32",
    "float32": "f32",
    "float": "f32",
    "int32": "i32",
    "fp16": "f16",
    "float16": "f16",
    "half": "f16",
    "bfloat16": "bf16",
    "int16": "i16",
    "e4m3": "f8e4m3",
    "fp8e4m3": "f8e4m3",
    "f8e4m3fn": "f8e4m3",
    "float8_e4m3fn": "f8e4m3",
    "e5m2": "f8e5m2",
    "fp8e5m2": "f8e5m2",
    "float8_e5m2": "f8e5m2",
    "int8": "i8",
    "float8_e8m0fnu": "e8m0",
    "int4": "i4",
    "uint4": "u4",
    "fp4": "e2m1",
    "fp4e2m1": "e2m1",
    "mxfp4": "e2m1",
    "float4_e2m1fn_x2": "e2m1",
}


def dtype(name: str | DType) -> DType:
    """The element type of a name or alias (``fp16``, ``float16``, ``bf16``, ``e4m3``, ...)."""
    if isinstance(name, DType):
        return name
    key = ALIASES.get(name, name)
    if key not in DTYPES:
        raise LlgenError(f"unknown dtype '{name}'; known: {', '.join(DTYPES)} (or an alias such as fp16, float16, e4m3).")
    return DTYPES[key]


# MLIR element types (as TTGIR prints them) -> llgen's names
MLIR = {
    "f64": "f64",
    "i64": "i64",
    "f32": "f32",
    "i32": "i32",
    "f16": "f16",
    "bf16": "bf16",
    "i16": "i16",
    "f8E4M3FN": "f8e4m3",
    "f8E5M2": "f8e5m2",
    "i8": "i8",
}


def from_mlir(element: str) -> DType:
    """The element type of an MLIR tensor type, or one sentence why llgen cannot move it."""
    if element in MLIR:
        return DTYPES[MLIR[element]]
    if element.startswith("!tt.ptr"):
        raise LlgenError(f"{element} is a tensor of pointers, which llgen does not move.")
    if re.fullmatch(r"(?:[su]?i[1-7])|(?:f[1-7]E.*)", element):
        raise LlgenError(f"{element} is a sub-byte type, which llgen does not move.")
    shown = element if len(element) <= 40 else element[:37] + "..."
    raise LlgenError(f"element type {shown} has no llgen dtype (llgen moves {', '.join(DTYPES)}).")
