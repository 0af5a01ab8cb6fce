"""In-warp conversions in turn: the second step of a two-step endpoint where its staging layout Q differs from the
registers' layout D by several register <-> lane swaps (llgen.plan.endpoint._swap_chain). One shuffle conversion that
swaps several sub-word register bits with lane bits at once packs no two elements into a word, so it moves one
element a round; one swap at a time keeps the other sub-word bits packed, and each round moves whole words (an 8-bit
tile's 4x4 byte transpose: two steps of a few shuffles where one step took a round an element)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chain:
    """Conversions (llgen.plan.Plan) each from the previous one's destination: steps[0].src to steps[-1].dst."""

    steps: tuple

    @property
    def path(self) -> str:
        """What moves the data: shuffles if any step shuffles, else registers."""
        return "shuffle" if any(s.path == "shuffle" for s in self.steps) else "registers"

    def describe(self) -> str:
        return f"{len(self.steps)} steps, one register <-> lane swap each (Q's end also orders its registers): " + ", ".join(
            s.path for s in self.steps
        )


def steps_of(convert) -> tuple:
    """An endpoint's in-warp conversion as its steps: a chain's, or the one conversion (none for a direct plan)."""
    if convert is None:
        return ()
    return convert.steps if isinstance(convert, Chain) else (convert,)
