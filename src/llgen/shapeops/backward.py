"""Triton 3.6's backward inference (inferSrcEncoding, what its layout engine uses to push a wanted layout up
through an op): the source encoding that makes the op a no-op producing the given result encoding.

Per op, as Triton defines it: trans by the inverse permutation; reshape back from the result shape; join by
split's inference and split by join's (each the other's inverse); expand_dims by slicing the result along the
axis; broadcast keeps the encoding; fp4_to_fp halves the kWidth or sizePerThread, or divides the pair register
off the linear layout, over the result shape (as Fp4ToFpOp's verifier does)."""

from __future__ import annotations

from collections.abc import Sequence

from llgen import layouts as L
from llgen.shapeops import forward as F
from llgen.shapeops.ops import Op

Shape = tuple[int, ...]


def infer_source(enc, src: Sequence[int], op: Op):
    """The encoding of the op's source (of shape ``src``) for result encoding ``enc`` (over ``op``'s result shape)."""
    src = tuple(src)
    out = op.result_shape(src)
    k = op.kind
    if k == "trans":
        return F.trans(enc, out, _inverse(op.arg))
    if k == "reshape":
        return F.reshape(enc, out, src)
    if k == "join":
        return F.split(enc, out)
    if k == "split":
        return F.join(enc, out)
    if k == "expand_dims":
        return L.Slice(op.arg, enc)
    if k == "broadcast":
        return enc
    return F.fp4_to_fp(enc, out, op.arg, forward=False)


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)
