"""The pre-shuffle cases: operand families (mma v2 A and B, wgmma A from registers, a blocked layout, mfma A and B)
by element type, each over a tile and a tensor of two tiles along every dim, for the loader checks; and the
mma.sync cases (mma v2 B of one warp, K x N) whose product must come out exact."""

from __future__ import annotations

from llgen.core.dtypes import dtype
from llgen.plan.preshuffle import decodes_of
from llgen.spec import parse_encoding, parse_layout

MMA2 = "#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {w}, instrShape = [16, 8]}}>"
MMA3 = "#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = {w}, instrShape = [16, 64, 16]}}>"
MFMA = "#ttg.amd_mfma<{{version = 3, warpsPerCTA = {w}, instrShape = [32, 32, 8], isTransposed = false}}>"

# name -> (spec, tile, warps); the tile is M x K for an A operand, K x N for B
FAMILIES = {
    "mma2A": (f"#ttg.dot_op<{{opIdx = 0, parent = {MMA2.format(w='[4, 1]')}, kWidth = 2}}>", (64, 64), 4),
    "mma2B": (f"#ttg.dot_op<{{opIdx = 1, parent = {MMA2.format(w='[1, 4]')}, kWidth = 2}}>", (64, 64), 4),
    "wgmmaA": (f"#ttg.dot_op<{{opIdx = 0, parent = {MMA3.format(w='[4, 1]')}, kWidth = 2}}>", (64, 64), 4),
    "blocked": (
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        (64, 64),
        4,
    ),
    "mfmaA": (f"#ttg.dot_op<{{opIdx = 0, parent = {MFMA.format(w='[2, 2]')}, kWidth = 8}}>", (64, 64), 4),
    "mfmaB": (f"#ttg.dot_op<{{opIdx = 1, parent = {MFMA.format(w='[2, 2]')}, kWidth = 8}}>", (64, 64), 4),
}
NVIDIA = ("mma2A", "mma2B", "wgmmaA", "blocked")  # 32-lane families: what runs on an NVIDIA GPU
DTYPES = ("e2m1", "i4", "u4", "i8", "f8e4m3", "f16", "bf16")
SINGLE_WARP_B = f"#ttg.dot_op<{{opIdx = 1, parent = {MMA2.format(w='[1, 1]')}, kWidth = 2}}>"


def plan_family(family: str, dt: str, decode: str = "plain", tiles: int = 2, scale_block: int | None = None):
    """The PreshufflePlan of ``family`` for ``dt`` over a tensor of ``tiles`` tiles along each dim (with e8m0
    scales, one per ``scale_block`` along K, where given)."""
    from llgen.layouts.dot import DotOperand
    from llgen.plan.preshuffle import PreshufflePlan

    spec, tile, warps = FAMILIES[family]
    enc = parse_encoding(spec, tile, warps)
    k_dim = None if not isinstance(enc, DotOperand) else (1 if enc.operand_index == 0 else 0)
    shape = tuple(t * tiles for t in tile)
    return PreshufflePlan(parse_layout(spec, tile, warps), shape, dtype(dt), k_dim, decode, scale_block)


def scale_plan(family: str, block: int = 32):
    """The PreshufflePlan of ``family``'s e8m0 scales, one per ``block`` elements along K (an mx type's), over the
    tensor of plan_family: what ``llgen preshuffle --scale-block`` plans."""
    return plan_family(family, "e2m1", scale_block=block).scales


MX_TYPES = (("e2m1", "plain"), ("e2m1", "fast"), ("f8e4m3", "plain"), ("i8", "plain"), ("i8", "fast"))  # mxfp4, mxfp8, mxint8


def load_cases(families=NVIDIA) -> list[tuple[str, object, str]]:
    """(label, plan, memory) for every family x dtype x decode x memory the loader emits, and each dot operand
    family's mx scales from G."""
    out = []
    for fam in (f for f in families if f != "blocked"):
        plan = scale_plan(fam)
        if plan.loader.vector_bytes >= 4:
            out.append((f"{fam}/e8m0-scales/plain/g", plan, "g"))
    for fam in families:
        for dt in DTYPES:
            for decode in decodes_of(dt):
                plan = plan_family(fam, dt, decode)
                for memory in ("g", "k"):
                    loader = plan.loader if memory == "g" else plan.k_loader
                    if loader is not None and loader.vector_bytes >= 4:
                        out.append((f"{fam}/{dt}/{decode}/{memory}", plan, memory))
    for fam in (f for f in families if f != "blocked"):  # the values times their scales (the header's scale_bf16)
        for dt, decode in MX_TYPES:
            plan = plan_family(fam, dt, decode, scale_block=32)
            if plan.loader.vector_bytes >= 4:
                out.append((f"{fam}/{dt}/{decode}/g/mx", plan, "g"))
    return out


def mma_cases() -> list[tuple[str, object, str, str]]:
    """(label, plan, memory, out): one warp's mma v2 B over K x N = 128 x 16 (and 64 x 32), every 4-bit type and
    decode into f16 and bf16, and the 16-bit types as they are, from G and from the K-contiguous store."""
    from llgen.plan.preshuffle import PreshufflePlan

    out = []
    for tile in ((128, 16), (64, 32)):
        op = parse_layout(SINGLE_WARP_B, tile, 1)
        for dt, outs in (
            ("i4", ("f16", "bf16")),
            ("u4", ("f16",)),
            ("e2m1", ("f16", "bf16")),
            ("f16", ("f16",)),
            ("bf16", ("bf16",)),
        ):
            for decode in decodes_of(dt):
                plan = PreshufflePlan(op, tile, dtype(dt), 0, decode)
                for memory in ("g", "k"):
                    loader = plan.loader if memory == "g" else plan.k_loader
                    if loader is None or loader.vector_bytes < 4:
                        continue
                    for o in outs:
                        out.append((f"{'x'.join(map(str, tile))}/{dt}/{decode}/{memory}->{o}", plan, memory, o))
    return out


def wgmma_cases() -> list[tuple[str, object, str]]:
    """(label, plan, memory): wgmma's register A over 64 x 64 (4 warps), the 4-bit types by both decodes into bf16 and
    bf16 itself, from G and from the K-contiguous store (B's K permuted)."""
    from llgen.plan.preshuffle import PreshufflePlan

    spec, tile, warps = FAMILIES["wgmmaA"]
    op = parse_layout(spec, tile, warps)
    out = []
    for dt in ("i4", "e2m1", "bf16"):
        for decode in decodes_of(dt):
            plan = PreshufflePlan(op, tile, dtype(dt), 1, decode)
            for memory in ("g", "k"):
                loader = plan.loader if memory == "g" else plan.k_loader
                if loader is not None and loader.vector_bytes >= 4:
                    out.append((f"wgmmaA/{dt}/{decode}/{memory}->bf16", plan, memory))
    return out
