"""Hardware facts per target. Everything the planner knows about a GPU lives here."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LlgenError


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
    def lane_bits(self) -> int:
        return self.lanes.bit_length() - 1

    @property
    def wavefront_bytes(self) -> int:
        return self.banks * self.bank_bytes

    def phase_lanes(self, access_bytes: int) -> int:
        """Lanes served together by a ld/st.shared of ``access_bytes`` per thread: a phase holds 128 bytes of
        accesses (a whole warp up to 4 bytes, half of it at 8). At 16 bytes an NVIDIA warp goes in half-warp
        phases too, not quarter-warps: an H100 counted 2 wavefronts, not 4, for a 128-bit load whose eight lanes
        per quarter read one address, and the same as quarters wherever quarters are conflict-free (bench/NOTES.md,
        session 6). For AMD's LDS the 128-byte phase is a stated model, not a measurement."""
        if self.lang == "cuda" and access_bytes >= 16:
            return self.lanes // 2
        return min(self.lanes, self.wavefront_bytes // max(self.bank_bytes, access_bytes))


TARGETS = {t.name: t for t in (
    Target("sm_80", "cuda", 32, smem_per_cta=163 * 1024, ldmatrix=True),
    Target("sm_90", "cuda", 32, smem_per_cta=227 * 1024, ldmatrix=True, stmatrix=True),
    Target("gfx90a", "hip", 64, static_smem=64 * 1024),  # 64 KB of LDS, static arrays included
    Target("gfx942", "hip", 64, static_smem=64 * 1024),
)}


def target(name: str | Target) -> Target:
    if isinstance(name, Target):
        return name
    try:
        return TARGETS[name]
    except KeyError:
        raise LlgenError(f"unknown target '{name}'; known: {', '.join(TARGETS)}.") from None
