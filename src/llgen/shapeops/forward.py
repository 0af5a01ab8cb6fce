"""Triton 3.6's forward layout inference for the shape ops (TritonGPUInferLayoutInterface and the op builders):
given a tensor's encoding and shape, the encoding of the result that makes the op a no-op, each thread keeping
its registers. A legacy family survives where Triton keeps one (a transposed or reshaped blocked layout, a slice's
parent, a joined or split blocked layout, a dot operand or blocked layout upcast along its fastest dim); anything
else becomes the ``#ttg.linear`` Triton builds from ``toLinearLayout``. Where Triton refuses, an LlgenError says
why in one sentence."""

from __future__ import annotations

from collections.abc import Sequence

from llgen import layouts as L
from llgen.core.errors import LlgenError
from llgen.shapeops import linear as LL
from llgen.shapeops.legacy_reshape import ctas_per_cga, reshape_blocked
from llgen.shapeops.ops import Op

Shape = tuple[int, ...]


def infer(enc, shape: Sequence[int], op: Op) -> tuple[object, Shape]:
    """(encoding, shape) of ``op`` applied to a tensor of ``shape`` in ``enc``."""
    shape = tuple(shape)
    out = op.result_shape(shape)
    k = op.kind
    if k == "trans":
        return trans(enc, shape, op.arg), out
    if k == "reshape":
        return reshape(enc, shape, out), out
    if k == "join":
        return join(enc, shape), out
    if k == "split":
        return split(enc, shape), out
    if k == "expand_dims":
        return expand_dims(enc, op.arg), out
    if k == "broadcast":  # tt.broadcast keeps the operand's encoding, which must lay over the larger shape
        _aborts_unless_built(enc, out, "laying the layout over the broadcast shape")
        return enc, out
    return fp4_upcast(enc, shape, out, op.arg), out


def trans(enc, shape: Shape, perm: Sequence[int]):
    """inferTransOpEncoding: the identity order keeps the encoding; a blocked layout permutes its fields (and its
    order through the inverse permutation); anything else is the transposed linear layout."""
    perm = tuple(perm)
    if perm == tuple(range(len(perm))):
        return enc
    if isinstance(enc, L.Blocked):
        inv = _inverse(perm)
        cga = tuple(tuple(v[p] for p in perm) for v in enc.cga_layout)
        return L.Blocked(
            tuple(enc.size_per_thread[p] for p in perm),
            tuple(enc.threads_per_warp[p] for p in perm),
            tuple(enc.warps_per_cta[p] for p in perm),
            tuple(inv[o] for o in enc.order),
            cga,
        )
    return LL.transposed(enc.to_linear(shape), perm)


def reshape(enc, src: Shape, dst: Shape):
    """inferReshapeOpEncoding (no reordering): the legacy blocked reshape where it exists, else the linear layout
    with its row-major element index re-split."""
    if isinstance(enc, L.Blocked):
        got = reshape_blocked(enc, src, dst)
        if got is not None:
            return got
    return LL.reshaped(enc.to_linear(src), dst)


def join(enc, shape: Shape):
    """inferDefaultJoinOpEncoding: a slice that dropped the last dim of a parent whose split gives exactly it back
    joins to that parent; a blocked layout gains a last dim of 2 elements per thread, fastest; anything else gets a new
    lowest register walking the pair."""
    rank = len(shape)
    if isinstance(enc, L.Slice) and enc.dim == rank:
        joined = (*shape, 2)
        _aborts_unless_built(enc.parent, joined, "laying the slice's parent over the joined shape")
        try:
            split_enc = split(enc.parent, joined)
        except LlgenError:  # Triton's split inference fails: the join falls back to the linear layout
            split_enc = None
        if split_enc is not None and same_layout(shape, split_enc, enc):
            return enc.parent
    elif isinstance(enc, L.Blocked):
        if enc.cga_layout and rank > 1:
            raise LlgenError(
                "Triton 3.6 aborts (a C++ assertion) joining a blocked layout split over CTAs at rank 2 or more: it "
                "builds the cluster layout of the result with one dim too few."
            )
        return L.Blocked(
            (*enc.size_per_thread, 2),
            (*enc.threads_per_warp, 1),
            (*enc.warps_per_cta, 1),
            (rank, *enc.order),
            tuple((*v, 0) for v in enc.cga_layout),
        )
    return LL.joined(enc.to_linear(shape))


def split(enc, shape: Shape):
    """inferSplitOpEncoding: a blocked layout whose last dim is exactly 2 registers of one thread drops it;
    otherwise the linear layout loses the register that walks the pair, and Triton refuses where no register does
    (the pair sits on lanes or warps)."""
    if (
        isinstance(enc, L.Blocked)
        and enc.size_per_thread[-1] == 2
        and enc.threads_per_warp[-1] == 1
        and enc.warps_per_cta[-1] == 1
        and ctas_per_cga(enc.cga_layout, enc.rank)[-1] == 1
    ):
        if enc.cga_layout:
            raise LlgenError(
                "Triton 3.6 aborts (a C++ assertion) splitting a blocked layout split over CTAs: it drops the last "
                "dim of the cluster layout's shape but not of its bases."
            )
        last = enc.rank - 1
        return L.Blocked(
            enc.size_per_thread[:-1],
            enc.threads_per_warp[:-1],
            enc.warps_per_cta[:-1],
            tuple(o for o in enc.order if o != last),
            tuple(v[:-1] for v in enc.cga_layout),
        )
    if shape[-1] != 2:
        raise LlgenError(f"split needs a last dim of size 2, but the tensor is {'x'.join(map(str, shape))}.")
    got = LL.split_last(enc.to_linear(shape))
    if got is None:
        raise LlgenError(
            f"split needs the pair along the last dim in one thread's registers, but {_where_pair(enc, shape)}, "
            "so Triton refuses to infer the split."
        )
    return got


def expand_dims(enc, axis: int):
    """inferExpandDimsOpEncoding: only a slice along ``axis`` expands, back to its parent."""
    if not isinstance(enc, L.Slice):
        raise LlgenError(
            f"expand_dims needs a slice layout (Triton 3.6 infers expand_dims only for #ttg.slice), not {_family(enc)}."
        )
    if enc.dim != axis:
        raise LlgenError(f"expand_dims={axis} needs a slice along dim {axis}, but the layout slices dim {enc.dim}.")
    return enc.parent


def fp4_to_fp(enc, shape: Shape, axis: int, forward: bool):
    """inferFp4ToFpOpEncoding over ``shape`` (the upcast tensor's: Triton passes the result shape both ways).
    Where the order Triton reads for ``shape`` has 0 at index ``axis``, a dot operand doubles (halves) its kWidth
    and a blocked layout its sizePerThread along ``axis``; otherwise the linear layout gains (loses) a lowest
    register walking each packed pair. Forward, Triton builds that linear layout from the source encoding laid over
    the result shape, so it may print a register past the tensor's edge (which the result shape drops)."""
    lay = enc.to_linear(shape)
    if LL.rep_order(lay)[axis] == 0:
        if isinstance(enc, L.DotOperand):
            if not forward and enc.k_width == 1:
                raise LlgenError(f"fp4_to_fp needs 2 elements per thread along axis {axis}, but the dot operand has kWidth 1.")
            got = L.DotOperand(enc.operand_index, enc.parent, enc.k_width * 2 if forward else enc.k_width // 2)
            _aborts_unless_built(got, shape, f"building the dot operand of kWidth {got.k_width} over")
            return got
        if isinstance(enc, L.Blocked):
            spt = list(enc.size_per_thread)
            if forward:
                spt[axis] *= 2
            elif spt[axis] > 1:
                spt[axis] //= 2
            else:
                raise LlgenError(f"fp4_to_fp needs 2 elements per thread along axis {axis}, but sizePerThread is {list(spt)}.")
            return L.Blocked(tuple(spt), enc.threads_per_warp, enc.warps_per_cta, enc.order, enc.cga_layout)
    if forward:
        return LL.times_pair(lay, axis)
    got = LL.fp4_down(lay, axis)
    if got is None:
        raise LlgenError(
            f"fp4_to_fp's result must hold each upcast pair along axis {axis} in its first two registers, and this "
            "layout does not, so Triton defines no packed source layout for it."
        )
    return got


def fp4_upcast(enc, src: Shape, out: Shape, axis: int):
    """Fp4ToFpOp's builder and verifier: the forward inference, which its verifier then checks by inferring the
    source back from the result (over the result shape). Where Triton's forward layout fails its own check (the
    source laid over the larger result shape does not hold the same registers), Triton refuses the op, and so
    does llgen."""
    got = fp4_to_fp(enc, out, axis, forward=True)
    try:
        back = fp4_to_fp(got, out, axis, forward=False)
    except LlgenError:
        back = None
    if back is None or back.to_linear(src) != enc.to_linear(src):
        raise LlgenError(
            f"Triton 3.6 rejects this fp4_to_fp: it builds the result from the source layout laid over the upcast "
            f"shape {'x'.join(map(str, out))}, which here does not keep each thread's registers, and its verifier "
            "then reports the source and result encodings incompatible."
        )
    return got


def _aborts_unless_built(enc, shape: Shape, doing: str) -> None:
    """Triton builds ``enc`` over ``shape`` here and aborts (a C++ assertion) where it cannot; llgen refuses with
    its own reason instead."""
    try:
        enc.to_linear(shape)
    except LlgenError as e:
        raise LlgenError(f"Triton 3.6 aborts (a C++ assertion) {doing} {'x'.join(map(str, shape))}: {e}") from None


def same_layout(shape: Shape, a, b) -> bool:
    """Triton 3.6's check that a join's slice is what splitting its parent gives: the same encoding, or the same
    linear layout over ``shape``, broadcast registers included (a parent with more registers than the slice keeps
    does not join back to itself)."""
    return a == b or a.to_linear(shape) == b.to_linear(shape)


def _where_pair(enc, shape: Shape) -> str:
    lay = enc.to_linear(shape)
    axis = len(shape) - 1
    for n in ("lane", "warp", "block"):
        for i in range(lay.in_bits(n)):
            if lay.basis(n, i)[axis] == 1:
                return f"{n} {i} holds it"
    return "no register holds it"


def _family(enc) -> str:
    return {
        L.Blocked: "a blocked layout",
        L.Linear: "a linear layout",
        L.NvidiaMma: "an nvidia_mma layout",
        L.AmdMfma: "an amd_mfma layout",
        L.AmdWmma: "an amd_wmma layout",
        L.DotOperand: "a dot operand layout",
    }.get(type(enc), f"a {type(enc).__name__} layout")


def _inverse(perm: Sequence[int]) -> list[int]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv
