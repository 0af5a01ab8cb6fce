"""The 4-bit conversions and endpoints real kernels take (llgen.plan.packed): weights and activations packed two to
a byte along K or along the fast dim, into and out of dot operands, on NVIDIA and AMD. The tests simulate and run
them on CPU threads; bench/preshuffle_gpu.py runs them on the GPU."""

from __future__ import annotations

from llgen.plan import plan_conversion
from llgen.spec import parse_layout

ROW8 = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
ROW4 = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>"
COL8 = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
MMA_B = (
    "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>, kWidth = 8}>"
)
MMA_A = (
    "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
    "instrShape = [16, 8]}>, kWidth = 8}>"
)
WGMMA_A = (
    "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
    "instrShape = [16, 64, 32]}>, kWidth = 8}>"
)
MFMA_B = (
    "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 16], "
    "isTransposed = true}>, kWidth = 16}>"
)
BLK64 = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>"
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"

# (id, source, destination, target, the form its pairing gives), 64x64 tiles of 4 warps
CASES = [
    ("kmajor2mmaB", COL8, MMA_B, "sm_90", "pairs"),  # a K-major weight tile into mma v2 B: both pack along K
    ("rows2mmaA", ROW8, MMA_A, "sm_90", "pairs"),  # row-major activations into mma v2 A
    ("rows2wgmmaA", ROW8, WGMMA_A, "sm_90", "pairs"),  # into wgmma's register A
    ("nmajor2mmaB", ROW8, MMA_B, "sm_90", "nibbles"),  # an N-major weight into B: its bytes pair along N, B's along K
    ("rows2rows", ROW8, ROW4, "sm_80", "pairs"),
    ("mmaB2rows", MMA_B, ROW8, "sm_80", "nibbles"),
    ("kmajor2mfmaB", BLK64, MFMA_B, "gfx942", "pairs"),
]
SHAPE = (64, 64)


def packed_plan(src: str, dst: str, target: str, dtype: str = "i4", **options):
    """The 4-bit plan of two layout texts over a 64x64 tile of 4 warps."""
    lanes = 64 if target.startswith("gfx") else 32
    a, b = (parse_layout(s, SHAPE, 4, lanes) for s in (src, dst))
    return plan_conversion(a, b, dtype, target, **options)


def gpu_items(target: str = "sm_90") -> list[tuple[str, object]]:
    """(label, plan) of every NVIDIA case by its pick and its forced shared path, each of i4 and e2m1."""
    items = []
    for cid, src, dst, tgt, _ in CASES:
        if tgt.startswith("gfx"):
            continue
        for dt in ("i4", "e2m1"):
            items.append((f"{cid}_{dt}", packed_plan(src, dst, target, dt)))
            items.append((f"{cid}_{dt}_shared", packed_plan(src, dst, target, dt, path="shared")))
    return items
