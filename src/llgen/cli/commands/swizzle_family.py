"""``llgen swizzle --family``: the shared layouts of one family a tile could live in between P (the layout that
stores it) and Q (the layout that loads it), each planned as two endpoints
(llgen.plan.endpoint: plan_store(P, S) and plan_load(S, Q), direct or two-step as the planner picks) and ranked
by the planner's modelled cost of both (plan/cost.py: a wavefront a cycle, plus the in-warp conversion of a two-step
plan), not by wavefronts alone: a two-step store can match a direct one's wavefronts and still pay a thousand cycles
of shuffles. Each is printed as the #ttg attribute a user pastes into TTGIR.

Families: nvmma (the 0/32/64/128-byte swizzles TMA and wgmma read, plain and transposed), swizzled (Triton's
(vec, perPhase, maxPhase) at 16-, 8- and 4-byte vectors in P's and Q's order, unswizzled, and the one Triton's
heuristic picks for an mma v2 dot operand), padded (a row or 128 bytes, padded by 4 or 16 bytes), and any (all
of them and llgen's own optimal swizzle as a shared_linear)."""

from __future__ import annotations

from dataclasses import dataclass

from llgen import layouts as L
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout, unflatten
from llgen.core.options import Options
from llgen.layouts.common import dim_name
from llgen.plan.packed import byte_plan
from llgen.plan.request import plan_pair
from llgen.spec.defaults import default_max_phase, default_per_phase

FAMILIES = ("nvmma", "swizzled", "padded", "any")


@dataclass(frozen=True)
class Candidate:
    family: str
    encoding: object | None  # an llgen.layouts shared encoding; None when the family has no such layout here
    note: str = ""  # e.g. "Triton's default for this dot operand"
    store: object | None = None  # EndpointPlan of P -> S
    load: object | None = None  # EndpointPlan of S -> Q
    why: str = ""  # why the candidate cannot be used for this tile

    @property
    def total(self) -> int:
        return self.store.wavefronts + self.load.wavefronts

    @property
    def cost(self) -> float:
        """The modelled cycles of the store and the load (EndpointPlan.cost: wavefronts, plus a two-step plan's
        conversion between its staging layout and the registers)."""
        return self.store.cost + self.load.cost


def dist_order(lay: LinearLayout) -> list[int]:
    """The dims in the order P's registers, then lanes, then warps first move along them (the fastest first),
    then the others from the last to the first: the order a shared layout of P's tile follows."""
    names = [dim_name(d) for d in range(len(lay.shape))]
    seen: list[int] = []
    for kind in ("register", "lane", "warp"):
        if kind not in lay.in_names:
            continue
        for col in lay.flat_cols(kind):
            coords = dict(zip(lay.out_names, unflatten(col, lay.outs), strict=True))
            seen += [d for d, n in enumerate(names) if coords[n] and d not in seen][:1]
    return seen + [d for d in range(len(names) - 1, -1, -1) if d not in seen]


def nvmma(shape, dtype) -> list[Candidate]:
    if len(shape) != 2:
        return [Candidate("nvmma", None, why=f"nvmma_shared layouts are rank 2, the tile is rank {len(shape)}.")]
    out = []
    for width in (0, 32, 64, 128):
        for transposed in (False, True):
            enc = L.NvmmaShared(width, dtype.bytes * 8, transposed)
            try:
                enc.to_linear(shape)
            except LlgenError as e:
                out.append(Candidate("nvmma", enc, why=str(e)))
                continue
            out.append(Candidate("nvmma", enc))
    return out


def swizzled(shape, dtype, orders: list[list[int]], dst_encoding) -> list[Candidate]:
    """Per order (P's, then Q's): unswizzled, then the 128-byte swizzle at 16-, 8- and 4-byte vectors; then
    Triton's pick for an mma v2 dot operand where the list does not hold it yet."""
    default = ampere_default(shape, dtype, orders[0], dst_encoding)
    encodings = []
    for order in orders:
        encodings.append(L.SwizzledShared(1, 1, 1, tuple(order)))
        cols = shape[order[0]] if len(shape) > 1 else 1
        for vec_bytes in (16, 8, 4) if len(shape) > 1 else ():
            per_phase = default_per_phase(cols, dtype.bytes)
            vec = max(1, min(cols, vec_bytes // dtype.bytes))
            encodings.append(L.SwizzledShared(vec, per_phase, default_max_phase(per_phase), tuple(order)))
    if default is not None:
        encodings.append(default)
    fallback = encodings[0] if default is None and not isinstance(dst_encoding, L.DotOperand) else None
    notes = {default: "Triton's default for this mma v2 dot operand", fallback: "Triton's default for a buffer no dot reads"}
    return [Candidate("swizzled", e, notes.get(e, "")) for e in dict.fromkeys(encodings)]


def ampere_default(shape, dtype, order: list[int], dst_encoding):
    """Triton's SwizzledSharedEncodingAttr::get for an mma v2 (Ampere) dot operand: rows of 128 bytes per phase, a
    vector of one mma k-step (or one m/n row), as many phases as the mma's stride holds; None for any other Q."""
    enc = dst_encoding
    if not isinstance(enc, L.DotOperand) or not isinstance(enc.parent, L.NvidiaMma) or enc.parent.version != 2:
        return None
    if len(shape) < 2:
        return None
    rank, inner = len(shape), len(shape) - 1
    per_phase = max(1, 128 // max(1, shape[order[0]] * 4 // enc.k_width))
    vec_width = max(1, 4 // dtype.bytes)
    if vec_width != enc.k_width and order[0] == inner:
        per_phase = max(per_phase, 2 * vec_width)
    mn, k = 8, 4 * enc.k_width
    fast_inner = order[0] == rank - 1
    if enc.operand_index == 0:
        vec, stride = (k, mn) if fast_inner else (mn, k)
    else:
        vec, stride = (mn, k) if fast_inner else (k, mn)
    return L.SwizzledShared(vec, per_phase, max(1, stride // per_phase), tuple(order))


def padded(shape, dtype, order: list[int]) -> list[Candidate]:
    """A row (the fastest dim) or 128 bytes, each padded by 4 or 16 bytes, offsets in P's order."""
    total = 1
    for s in shape:
        total *= s
    intervals = sorted({shape[order[0]], max(1, 128 // dtype.bytes)})
    out = []
    for interval in intervals:
        if interval >= total:
            continue
        for pad_bytes in (4, 16):
            pad = max(1, pad_bytes // dtype.bytes)
            out.append(Candidate("padded", L.PaddedShared.identity([(interval, pad)], order, shape)))
    return out


def optimal(pair) -> Candidate:
    """llgen's own swizzle for P -> Q (the shared path's plan) as a shared_linear over the whole tile."""
    try:
        p = byte_plan(plan_pair(pair, Options(path="shared")))
    except LlgenError as e:
        return Candidate("optimal", None, why=str(e))
    cols, lay = p.detail.swizzle.columns, p.src
    if len(cols) != lay.total_out_bits:
        return Candidate("optimal", None, why="llgen's swizzle covers one round of a tile split into rounds, not the tile.")
    names = [dim_name(d) for d in range(len(lay.shape))]
    bases = []
    for c in cols:
        coords = dict(zip(lay.out_names, unflatten(c, lay.outs), strict=True))
        bases.append(tuple(coords[n] for n in names))
    return Candidate("optimal", L.SharedLinear(tuple(bases)), "llgen's optimal swizzle")


def candidates(pair, family: str, dst_encoding) -> list[Candidate]:
    """The layouts of ``family`` for ``pair``'s tile, in the order the table lists them."""
    shape = pair.src.shape
    src_order = dist_order(pair.src)
    orders = [src_order] + ([dst] if (dst := dist_order(pair.dst)) != src_order else [])
    by_family = {
        "nvmma": lambda: nvmma(shape, pair.dtype),
        "swizzled": lambda: swizzled(shape, pair.dtype, orders, dst_encoding),
        "padded": lambda: padded(shape, pair.dtype, src_order),
    }
    if family != "any":
        return by_family[family]()
    return [c for f in ("nvmma", "swizzled", "padded") for c in by_family[f]()] + [optimal(pair)]


def planned(pair, cand: Candidate) -> Candidate:
    """The candidate with its store from P and load into Q, or why one of them cannot be planned."""
    from dataclasses import replace

    from llgen.plan.endpoint import plan_load, plan_store

    if cand.why:
        return cand
    try:
        store = plan_store(pair.src, cand.encoding, pair.dtype, pair.target)
        load = plan_load(cand.encoding, pair.dst, pair.dtype, pair.target)
    except LlgenError as e:
        return replace(cand, why=str(e))
    return replace(cand, store=store, load=load)


def encoding_of(spec: str, pair, module=None):
    """The encoding object of the --dst spec (Triton's default swizzle depends on a dot operand's parent and
    kWidth), or None for a spec with none (a @file.json layout)."""
    from llgen.spec import Where, parse_encoding

    aliases = module.aliases if module is not None else None
    try:
        return parse_encoding(spec, pair.dst.shape, pair.warps, pair.setting.lanes, where=Where(pair.dtype.bytes, aliases))
    except LlgenError:
        return None


def steps(plan) -> str:
    """How one endpoint moves the tile: direct, select (registers picked by lane), or two-step with the path of its
    in-warp conversion."""
    if plan.form != "two_step":
        return plan.form
    return f"two-step ({'shuffles' if plan.convert.path == 'shuffle' else 'registers'})"


def family_table(pair, family: str, dst_spec: str, module=None) -> str:
    """The table of ``family``'s layouts for ``pair`` (llgen.spec.pair.Pair of two distributed layouts, Q given as
    ``dst_spec``): per layout the wavefronts of the store from P and the load into Q, their sum, the floor, the
    modelled cycles of both and kSmemBytes, its #ttg text under it; the best (fewest modelled cycles, then fewest
    wavefronts, then the smaller buffer, then the first listed) marked *."""
    from llgen.spec.render import attribute

    if family not in FAMILIES:
        raise LlgenError(f"unknown family '{family}'; use {', '.join(FAMILIES)}.")
    if pair.dtype.sub_byte:
        raise LlgenError(
            f"--family ranks the shared layouts of whole-byte tiles; a tile of {pair.dtype.name} is held as bytes: rank "
            "those with --dtype i8 over the byte tensor, whose layouts `llgen plan --json` prints (bytes.src, bytes.dst)."
        )
    rows = [planned(pair, c) for c in candidates(pair, family, encoding_of(dst_spec, pair, module))]
    usable = [i for i, c in enumerate(rows) if not c.why]
    if not usable:
        raise LlgenError(f"no {family} shared layout can hold this tile: {rows[0].why.rstrip('.')}.")
    best = min(usable, key=lambda i: (rows[i].cost, rows[i].total, rows[i].store.smem_bytes, i))
    shape = "x".join(map(str, pair.src.shape))
    lines = [
        f"{family} shared layouts for tensor<{shape}x{pair.dtype.name}>, {pair.target}: wavefronts of the store from "
        "--src, the load into --dst and their sum; the cycles of both in the cost model (wavefronts, plus a "
        "two-step plan's conversion) rank them",
        f"{'':2}{'#':>3}  {'family':9} {'store':>6} {'load':>6} {'total':>6} {'floor':>6} {'cycles':>7} {'kSmemBytes':>10}  steps",
    ]
    for i, c in enumerate(rows):
        mark = "*" if i == best else " "
        text = attribute(c.encoding) if c.encoding is not None else ""
        if c.why:
            lines.append(f"{mark:2}{i + 1:>3}  {c.family:9} not usable: {c.why}")
        else:
            floor = c.store.floor + c.load.floor
            lines.append(
                f"{mark:2}{i + 1:>3}  {c.family:9} {c.store.wavefronts:>6} {c.load.wavefronts:>6} {c.total:>6} {floor:>6} "
                f"{c.cost:>7.0f} {c.store.smem_bytes:>10}  {steps(c.store)}, {steps(c.load)}" + (f" ({c.note})" if c.note else "")
            )
        if text:
            lines.append(f"{'':7}{text}")
    lines += [
        "",
        f"best: {best + 1} (fewest modelled cycles; ties go to fewer wavefronts, the smaller kSmemBytes, then the first listed)",
    ]
    return "\n".join(lines)
