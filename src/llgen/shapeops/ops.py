"""The shape operations as values: what each is called on the command line (``trans=1,0``, ``reshape=64x2x32``,
``join``, ``split``, ``expand_dims=1``, ``broadcast=32x64``, ``fp4_to_fp=1``), what shape it makes from a shape,
and the one-sentence errors for an op that cannot apply to a tensor of that shape (the checks Triton's frontend
makes before any layout is inferred)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from llgen.core.errors import LlgenError

Shape = tuple[int, ...]

KINDS = ("trans", "reshape", "join", "split", "expand_dims", "broadcast", "fp4_to_fp")
_TAKES = {  # what the text after '=' is: a permutation, a shape, an axis, or nothing
    "trans": "perm",
    "reshape": "shape",
    "join": None,
    "split": None,
    "expand_dims": "axis",
    "broadcast": "shape",
    "fp4_to_fp": "axis",
}
MAX_OP_CHARS = 200


@dataclass(frozen=True)
class Op:
    """One shape operation: ``kind`` (one of KINDS) and its argument (a permutation or a shape as a tuple, an
    axis as an int, None for join and split)."""

    kind: str
    arg: tuple[int, ...] | int | None = None

    def __post_init__(self):  # an Op built in Python gets the checks parse_op makes
        takes = _TAKES.get(self.kind, "?")
        if takes == "?":
            raise LlgenError(f"op '{self.kind}' is not one of {', '.join(KINDS)}.")
        a = self.arg
        if takes is None and a is not None:
            raise LlgenError(f"{self.kind} takes no value, got {a!r}.")
        if takes == "axis" and (not isinstance(a, int) or isinstance(a, bool)):
            raise LlgenError(f"{self.kind} takes an axis (an int), got {a!r}.")
        if takes in ("perm", "shape"):
            if not isinstance(a, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool) for v in a):
                raise LlgenError(f"{self.kind} takes a tuple of ints, got {a!r}.")
            object.__setattr__(self, "arg", tuple(a))

    def __str__(self) -> str:
        if self.arg is None:
            return self.kind
        if isinstance(self.arg, int):
            return f"{self.kind}={self.arg}"
        sep = "," if self.kind == "trans" else "x"
        return f"{self.kind}={sep.join(map(str, self.arg))}"

    def result_shape(self, shape: Sequence[int]) -> Shape:
        """The shape the op makes from a tensor of ``shape``; an LlgenError names the first thing that does not fit
        (llgen's caps included: rank 8, MAX_TILE_ELEMENTS)."""
        from llgen.core.limits import MAX_RANK, check_tile

        out = self._result_shape(tuple(shape))
        if len(out) > MAX_RANK:
            raise LlgenError(f"{self} makes a tensor of rank {len(out)}, over llgen's limit of {MAX_RANK}.")
        return check_tile(out)

    def _result_shape(self, shape: Shape) -> Shape:
        rank = len(shape)
        k, a = self.kind, self.arg
        if k == "trans":
            if sorted(a) != list(range(rank)):
                raise LlgenError(f"trans={','.join(map(str, a))} is not a permutation of the {rank} dims of {_dims(shape)}.")
            return tuple(shape[d] for d in a)
        if k == "reshape":
            if math.prod(a) != math.prod(shape):
                raise LlgenError(
                    f"reshape={_dims(a)} has {math.prod(a)} elements but the tensor {_dims(shape)} has {math.prod(shape)}."
                )
            return tuple(a)
        if k == "join":
            return (*shape, 2)
        if k == "split":
            if shape[-1] != 2:
                raise LlgenError(f"split needs a last dim of size 2, but the tensor is {_dims(shape)}.")
            if rank == 1:
                raise LlgenError("split of a rank-1 tensor would leave a scalar; split needs rank 2 or more.")
            return shape[:-1]
        if k == "expand_dims":
            if not 0 <= a <= rank:
                raise LlgenError(f"expand_dims={a} is outside 0..{rank} for the tensor {_dims(shape)}.")
            return (*shape[:a], 1, *shape[a:])
        if k == "broadcast":
            if len(a) != rank:
                raise LlgenError(f"broadcast={_dims(a)} has rank {len(a)} but the tensor {_dims(shape)} has rank {rank}.")
            for d, (s, t) in enumerate(zip(shape, a, strict=True)):
                if s != t and s != 1:
                    raise LlgenError(f"broadcast={_dims(a)} changes dim {d} from {s} to {t}; only a dim of size 1 can broadcast.")
            return tuple(a)
        if k == "fp4_to_fp":
            if not 0 <= a < rank:
                raise LlgenError(f"fp4_to_fp={a} is outside the axes 0..{rank - 1} of the tensor {_dims(shape)}.")
            return tuple(s * 2 if d == a else s for d, s in enumerate(shape))
        raise LlgenError(f"unknown shape op '{k}'.")


def parse_op(text: str) -> Op:
    """``trans=1,0`` / ``reshape=64x2x32`` / ``join`` / ``split`` / ``expand_dims=1`` / ``broadcast=1x64`` /
    ``fp4_to_fp=1`` as an `Op`; anything else is an LlgenError naming it."""
    if not isinstance(text, str) or len(text) > MAX_OP_CHARS:
        raise LlgenError(f"op '{str(text)[:40]}...' is too long to be a shape op.")
    name, eq, value = text.strip().partition("=")
    name = name.strip().lower().replace("-", "_")
    aliases = {"permute": "trans", "transpose": "trans", "broadcast_to": "broadcast"}
    name = aliases.get(name, name)
    if name not in _TAKES:
        raise LlgenError(f"op '{text.strip()}' is not one of {', '.join(_usage(k) for k in KINDS)}.")
    takes = _TAKES[name]
    if takes is None:
        if eq:
            raise LlgenError(f"op '{text.strip()}': {name} takes no value.")
        return Op(name)
    if not eq or not value.strip():
        raise LlgenError(f"op '{text.strip()}' needs a value, like {_usage(name)}.")
    value = value.strip()
    if takes == "axis":
        return Op(name, _int(value, f"the axis of {name}"))
    sep = "," if takes == "perm" else "x"
    parts = value.lower().split(sep)
    if takes == "perm" and len(parts) == 1 and "x" in value:
        parts = value.lower().split("x")
    if not all(p.strip() for p in parts) or len(parts) > 8:
        raise LlgenError(f"op '{text.strip()}': '{value}' is not of the form {_usage(name).split('=', 1)[1]}.")
    vals = tuple(_int(p.strip(), f"an entry of {name}") for p in parts)
    if takes == "shape":
        for s in vals:
            if s < 1 or s & (s - 1):
                raise LlgenError(f"op '{text.strip()}' holds {s}, which is not a power of two.")
    return Op(name, vals)


def result_shapes(shape: Sequence[int], ops: Sequence[Op]) -> list[Shape]:
    """The shape before every op and after the last: ``len(ops) + 1`` shapes, the first ``shape``."""
    out = [tuple(shape)]
    for op in ops:
        out.append(op.result_shape(out[-1]))
    return out


def _int(text: str, what: str) -> int:
    from llgen.core.limits import ascii_int

    return ascii_int(text, what)


def _usage(kind: str) -> str:
    return {
        "trans": "trans=1,0",
        "reshape": "reshape=64x2x32",
        "join": "join",
        "split": "split",
        "expand_dims": "expand_dims=AXIS",
        "broadcast": "broadcast=SHAPE",
        "fp4_to_fp": "fp4_to_fp=AXIS",
    }[kind]


def _dims(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))
