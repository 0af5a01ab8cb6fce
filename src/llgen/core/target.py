"""Hardware facts per target. Everything the planner knows about a GPU lives here."""

from __future__ import annotations

from dataclasses import dataclass

from llgen.core.errors import LlgenError


@dataclass(frozen=True)
class Target:
    name: str
    lang: str  # "cuda" or "hip"
    lanes: int  # threads per warp (wavefront)
    banks: int = 32
    bank_bytes: int = 4
    max_access_bytes: int = 16  # widest ld/st.shared per thread
    shuffle_bytes: int = 4  # one shuffle moves a 32-bit word
    static_smem: int = 48 * 1024  # the most a static __shared__ array may hold; above it, dynamic shared memory
    smem_per_cta: int = 64 * 1024  # the most shared memory one CTA may use (CUDA: with the opt-in attribute above
    #                                static_smem); the planner's default scratch budget
    ldmatrix: bool = False
    stmatrix: bool = False

    @property
    def is_hip(self) -> bool:
        return self.lang == "hip"

    @property
    def warp_barrier(self) -> bool:
        """Whether a warp that reads only the scratch words it wrote may synchronise alone (CUDA's __syncwarp). HIP
        plans always synchronise the group with __syncthreads."""
        return self.lang == "cuda"

    @property
    def lane_bits(self) -> int:
        return self.lanes.bit_length() - 1

    @property
    def wavefront_bytes(self) -> int:
        return self.banks * self.bank_bytes

    def phase_lanes(self, access_bytes: int) -> int:
        """Lanes served together by a ld/st.shared of ``access_bytes`` per thread: a phase holds 128 bytes of
        accesses (a whole warp up to 4 bytes, a half at 8, a quarter at 16). Nsight Compute on an H100 agrees on
        every conflict-free and conflicting access measured, except 128-bit loads whose quarter-warps read at most
        two addresses each, which half-warps serve (plan/shared.half_warp_load, docs/design.md §7.2)."""
        return min(self.lanes, self.wavefront_bytes // max(self.bank_bytes, access_bytes))


TARGETS = {
    t.name: t
    for t in (
        Target("sm_80", "cuda", 32, smem_per_cta=163 * 1024, ldmatrix=True),
        Target("sm_90", "cuda", 32, smem_per_cta=227 * 1024, ldmatrix=True, stmatrix=True),
        Target("gfx90a", "hip", 64, static_smem=64 * 1024),  # 64 KB of LDS, static arrays included
        Target("gfx942", "hip", 64, static_smem=64 * 1024),
    )
}


def target(name: str | Target) -> Target:
    if isinstance(name, Target):
        return name
    try:
        return TARGETS[name]
    except KeyError:
        raise LlgenError(f"unknown target '{name}'; known: {', '.join(TARGETS)}.") from None


# ---------------------------------------------------------------------------------- inference helpers
DEFAULT_TARGET = "sm_90"

# the layout families only some targets run (llgen.spec.facts names them); every other family runs anywhere
FAMILY_TARGETS = {
    "mma": ("sm_80", "sm_90"),  # mma.sync (NVIDIA mma v2)
    "wgmma": ("sm_90",),  # NVIDIA mma v3
    "mfma": ("gfx90a", "gfx942"),  # CDNA matrix cores
    "wmma": (),  # RDNA's wave32 matrix cores: none of the targets above
}

# Triton's ttg.target module attribute -> llgen's target
TRITON_TARGETS = {"cuda:80": "sm_80", "cuda:90": "sm_90", "hip:gfx90a": "gfx90a", "hip:gfx942": "gfx942"}


def runs(name: str, family: str) -> bool:
    """Whether target ``name`` runs layouts of ``family``."""
    return name in FAMILY_TARGETS.get(family, TARGETS)


def fitting(families, lanes: int | None) -> list[str]:
    """The targets that run every family in ``families`` with warps of ``lanes`` threads (None: any)."""
    return [n for n, t in TARGETS.items() if all(runs(n, f) for f in families) and lanes in (None, t.lanes)]


def preferred(names: list[str]) -> str:
    """The target chosen among several that fit: sm_90 where it fits, else gfx942, else the first."""
    for n in (DEFAULT_TARGET, "gfx942"):
        if n in names:
            return n
    return names[0]
