"""Shared-memory plans: store in A, barrier, load in B, through a swizzled scratch buffer.

Each side (store, load) is a list of instructions. An instruction moves registers to or from
``smem[(thread_offset ^ xor_const) + add_const]`` (element offsets): ``thread_offset`` is an
affine map of the lane and warp bits computed once; the constant splits into the bits the
thread part can touch (XOR) and the rest (an immediate the compiler folds into the address).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from llgen.core import f2
from llgen.core.dtypes import DType
from llgen.core.errors import LlgenError
from llgen.core.options import DEFAULTS, Options
from llgen.core.target import Target
from llgen.plan.affine import Affine
from llgen.plan.hw import Hw
from llgen.plan.swizzle import Access, Swizzle, classic, optimal_swizzle, unswizzled, wavefronts_per_phase
from llgen.plan.tiles import Tile, ldmatrix_tile


class Barrier(StrEnum):
    """What orders a conversion's shared-memory stores and loads (and its loads before the next stores)."""

    NONE = "none"  # no shared memory
    WARP = "warp"  # __syncwarp: each warp reads only the words it wrote itself (CUDA)
    CTA = "cta"  # the group's barrier: __syncthreads, or a named barrier on CUDA

    @property
    def call(self) -> str:
        """The barrier as `llgen plan` and the plan's JSON name it."""
        return {"warp": "__syncwarp", "cta": "__syncthreads"}.get(self.value, "no barrier")


@dataclass(frozen=True)
class Instr:
    """One shared-memory instruction of one side. ``regs`` are element registers in memory
    order (for ldmatrix/stmatrix: word i's low then high elements, matrix by matrix)."""

    regs: tuple[int, ...]
    xor_const: int
    add_const: int
    round: int


@dataclass(frozen=True)
class Side:
    """All instructions of the store or the load side."""

    op: str  # st.shared | stmatrix | stmatrix.trans | ld.shared | ldmatrix | ldmatrix.trans
    width: int  # elements per thread per instruction (vector width, or 8 bytes' worth x matrices)
    matrices: int  # 1/2/4 for ldmatrix/stmatrix, else 0
    thread_offset: Affine
    instrs: tuple[Instr, ...]
    predicate_warp_mask: int  # the instruction runs only where (warp & mask) == 0
    wavefronts_per_instr: int
    phases: int  # the data-volume minimum: wavefronts an access of this width takes when nothing conflicts

    def wavefronts(self, warps_active: int) -> int:
        return self.wavefronts_per_instr * len(self.instrs) * warps_active


@dataclass(frozen=True)
class SharedPlan:
    kind = "shared"
    swizzle: Swizzle  # over the tile less its round bits: offset bit -> logical vector with those bits removed
    round_vectors: tuple[int, ...]  # round bit j -> logical vector (single bits, ascending); both sides agree
    scratch_elems: int
    scratch_bytes: int
    store: Side
    load: Side
    rounds: int
    warp_sync: bool  # each warp reads only what it wrote itself: a warp barrier would suffice
    barrier: Barrier  # WARP where warp_sync and the target has __syncwarp (Target.warp_barrier), else CTA
    predicted_store_wavefronts: int
    predicted_load_wavefronts: int
    floor_wavefronts: int  # data volume: tile once in, once per destination warp replica out
    lower_bound_extra: int
    scalar: bool  # one element per access, through volatile so ptxas cannot merge neighbours (the naive baseline)

    @property
    def wavefronts(self) -> int:
        """Predicted wavefronts of one conversion: its stores' and its loads'."""
        return self.predicted_store_wavefronts + self.predicted_load_wavefronts

    @property
    def interleaved(self) -> bool:
        """Rounds that only __syncwarp orders: each round's loads follow its own stores (docs/design.md §5.4)."""
        return self.rounds > 1 and self.barrier == Barrier.WARP

    @property
    def drop(self) -> list[int]:
        """The logical bit positions of the round vectors (ascending): the tile's scratch index is the
        logical index with these bits removed."""
        return [c.bit_length() - 1 for c in self.round_vectors]

    def offset_vectors(self) -> list[int]:
        """Offset bit i -> the logical vector (in the whole tile's flat index) stored at offset ``1 << i``
        in round 0; round r adds XOR(round_vectors[j] for set bits j of r)."""
        return [expand(c, self.drop) for c in self.swizzle.columns]


def repacked_words(side: Side, dt: DType) -> int:
    """32-bit words of ``side`` that are not one register word in order: each costs a byte permute
    (PRMT). After a load it also keeps the loaded vector live beside the destination registers
    (ptxas issues the loads first), so ties on wavefronts go to plans that repack before stores."""
    per = 32 // dt.bits if dt.bits < 32 else 1
    if per == 1:
        return 0
    n = 0
    for ins in side.instrs:
        for i in range(0, len(ins.regs), per):
            chunk = ins.regs[i : i + per]
            n += chunk[0] % per != 0 or chunk != tuple(range(chunk[0], chunk[0] + len(chunk)))
    return n


def split_const(const: int, thread_cols) -> tuple[int, int]:
    """(xor part, add part) of a constant offset. A bit no thread column can set is zero in every
    thread's base, so XOR there equals addition: those bits become an immediate the compiler folds
    into the address, and only the rest costs a XOR."""
    rt_mask = 0
    for c in thread_cols:
        rt_mask |= c
    return const & rt_mask, const & ~rt_mask


def _compress(x: int, drop: list[int]) -> int:
    """Remove the single bits ``drop`` (sorted ascending) from x, shifting higher bits down."""
    for b in reversed(drop):
        x = (x & ((1 << b) - 1)) | ((x >> (b + 1)) << b)
    return x


def expand(x: int, drop: list[int]) -> int:
    """The inverse of _compress: insert a zero bit at each position of ``drop`` (sorted ascending)."""
    for b in drop:
        x = (x & ((1 << b) - 1)) | ((x >> b) << (b + 1))
    return x


@dataclass(frozen=True)
class Problem:
    """What every step of a shared plan's search reads: both sides' hardware bits, the element type, the target, and
    the tile's column bits (the classic swizzle's row)."""

    a: Hw
    b: Hw
    dt: DType
    tgt: Target
    col_bits: int


def plan_shared(a: Hw, b: Hw, dt: DType, tgt: Target, col_bits: int, options: Options = DEFAULTS) -> SharedPlan:
    """The shared-memory plan, shaped by ``options``: ``swizzle`` = optimal | unswizzled | classic; ``matrix`` allows
    ldmatrix/stmatrix; ``scalar`` forces one element per access (the naive baseline); ``one_sided`` lets an optimal
    swizzle's Vec take one side's own register bits (vector_candidates); ``smem_budget`` caps the scratch."""
    return _planned(Problem(a, b, dt, tgt, col_bits), options)[0][1]


def interleaved_rounds(a: Hw, b: Hw, dt: DType, tgt: Target, col_bits: int, options: Options = DEFAULTS) -> list[SharedPlan]:
    """The plan (optimal swizzle) split into 2, 4, 8 rounds, as far as common register bits that its accesses leave
    alone allow: the same instructions, each round's loads issued right after its own stores (a warp-local plan waits
    on __syncwarp between them), so one warp's loads overlap its next stores where one round would wait for every
    store (docs/design.md §5.4)."""
    problem, options = Problem(a, b, dt, tgt, col_bits), replace(options, swizzle="optimal", scalar=False)
    best, common = _planned(problem, options)
    out: list[SharedPlan] = []
    while best[1].rounds < 8:
        drop = best[1].drop
        for c in reversed(common):
            if c & (c - 1) or c.bit_length() - 1 in drop:
                continue
            cand = _plan_dropping(problem, tuple(sorted((*drop, c.bit_length() - 1))), options)
            if cand is not None and _same_accesses(cand, best):
                best = cand
                out.append(cand[1])
                break
        else:
            break
    return out


def _planned(problem: Problem, options: Options) -> tuple[tuple, list[int]]:
    """((cost, plan), the common register bits): the plan in as few rounds as the scratch budget allows."""
    a, b, w, tgt = problem.a, problem.b, problem.dt.bytes, problem.tgt
    budget = tgt.smem_per_cta if options.smem_budget is None else options.smem_budget
    n = a.nbits
    common = [c for c in b.reg if c and c in set(a.reg)]

    # scratch rounds: split on common register bits (highest first) until the tile fits
    round_vecs: list[int] = []
    for c in reversed(common):
        if (1 << (n - len(round_vecs))) * w <= budget:
            break
        if c & (c - 1) == 0:
            round_vecs.append(c)
    if (1 << (n - len(round_vecs))) * w > budget:
        raise LlgenError(
            f"the tile needs {(1 << n) * w} bytes of shared memory and cannot be split to fit the {budget}-byte budget."
        )
    drop = tuple(sorted(c.bit_length() - 1 for c in round_vecs))  # round bit j: the j-th lowest, on both sides
    best = _plan_dropping(problem, drop, options)
    assert best is not None
    return best, common


def _same_accesses(x: tuple, y: tuple) -> bool:
    """Whether two (cost, plan) pairs move the tile by the same instructions: ops, wavefronts, counts and repacked
    words (the cost's round flag aside)."""
    return (x[0][0], *x[0][3:], x[1].store.op, x[1].load.op) == (y[0][0], *y[0][3:], y[1].store.op, y[1].load.op)


def _plan_dropping(problem: Problem, drop: tuple[int, ...], options: Options) -> tuple[tuple, SharedPlan] | None:
    """(cost, plan): the cheapest plan over the tile less the round bits ``drop``, by ldmatrix/stmatrix tiles where the
    layouts allow them, else vectors."""
    ac, bc = _compressed(problem.a, drop), _compressed(problem.b, drop)
    w, tgt = problem.dt.bytes, problem.tgt
    load_tiles: list[Tile | None] = [None]
    store_tiles: list[Tile | None] = [None]
    if options.matrix and not options.scalar:
        if tgt.ldmatrix:
            load_tiles = [t for t in (ldmatrix_tile(bc, ac, w, trans) for trans in (False, True)) if t] + [None]
        if tgt.stmatrix:
            store_tiles = [t for t in (ldmatrix_tile(ac, bc, w, trans) for trans in (False, True)) if t] + [None]
    # the search reads the memory layout's options alone: a plan without tiles is the same whatever else was asked
    layout = Options(swizzle=options.swizzle, scalar=options.scalar, one_sided=options.one_sided)
    best = None
    for st_tile in store_tiles:
        for ld_tile in load_tiles:
            if st_tile and ld_tile and st_tile.vec != ld_tile.vec:
                continue
            cand = _best_with_tiles(problem, (st_tile, ld_tile), drop, layout)
            if cand is not None and (best is None or cand[0] < best[0]):
                best = cand
    return best


def _compressed(hw: Hw, drop: tuple[int, ...]) -> Hw:
    """``hw`` over the tile less its round bits ``drop``: the scratch index of each element."""
    if not drop:
        return hw
    return Hw(*(tuple(_compress(x, drop) for x in cols) for cols in (hw.reg, hw.lane, hw.warp)), hw.nbits - len(drop))


# A plan without matrix tiles builds the same candidates whether tiles were allowed or not, and a pair's forced plans
# ask for what its unforced plan built already: the candidates depend on nothing but the arguments, all immutable, so
# the last few are kept.
@lru_cache(maxsize=64)
def _best_with_tiles(
    problem: Problem, tiles: tuple[Tile | None, Tile | None], drop: tuple[int, ...], options: Options
) -> tuple[tuple, SharedPlan] | None:
    """(cost, plan): the cheapest plan that stores by the first of ``tiles`` and loads by the second (None: vectors),
    over the tile less the round bits ``drop``; None where no memory layout suits them."""
    ac, bc = _compressed(problem.a, drop), _compressed(problem.b, drop)
    round_vecs = [1 << d for d in drop]
    tile = tiles[0] or tiles[1]
    one_sided = options.one_sided and options.swizzle == "optimal"
    vecs = [list(tile.vec)] if tile else vector_candidates(ac, bc, problem.dt.bytes, problem.tgt, options.scalar, one_sided)
    best = None
    for i, vec in enumerate(vecs):
        plan = _build(problem, (ac, bc), tiles, vec, (round_vecs, list(drop)), options)
        if plan is None:
            continue
        head = (
            plan.wavefronts,
            i > 0,  # one side widened alone: only for fewer wavefronts (vector_candidates)
            # past two scratch rounds (a barrier every few accesses) plain vectors win over matrix tiles at equal
            # wavefronts, even where the tiles take fewer instructions: mma2b_f16 in 4 rounds ran 4.6% slower with
            # them, in 2 and 1 as fast (docs/design.md §8.1); ranking them by instructions first measured slower on
            # wl1_tpw8x4's free pairing, wl1_swap5_bf16 and mma2b_f16_b8k (bench/NOTES.md, session 26)
            len(round_vecs) > 1 and tile is not None,
        )
        if best is not None and head > best[0][:3]:
            continue  # it loses before the counts of repacked words (the costly part) could matter
        cost = head + (
            repacked_words(plan.load, problem.dt),
            len(plan.store.instrs) + len(plan.load.instrs) + repacked_words(plan.store, problem.dt),
        )
        if best is None or cost < best[0]:
            best = (cost, plan)
    return best


def vector_candidates(ac: Hw, bc: Hw, w: int, tgt: Target, scalar: bool, one_sided: bool) -> list[list[int]]:
    """The Vec choices (the lowest offset bits) for a plan without matrix tiles. The register bits both sides
    hold give both sides vectors; past them, one side's own register bits widen that side alone (its stores or
    loads move more bytes an instruction, the other side keeps its width). That matters where the common span is
    short: an 8-bit transpose holds none, and a byte an instruction takes a wavefront per 32 bytes, so storing
    16 bytes a thread and loading bytes takes 1.25 wavefronts per 128 bytes where bytes both ways take 2.
    A widened plan wins only on fewer wavefronts: at equal wavefronts its fewer instructions measured faster on some
    cases and 9.6% slower on b2dotB_f8e4m3 (a 4x4 byte transpose in every 16-byte load; bench/NOTES.md).
    The baselines (unswizzled, classic) keep the common span alone, as the textbook layouts do."""
    cap = 0 if scalar else (tgt.max_access_bytes // w).bit_length() - 1
    common = [c for c in bc.reg if c and c in set(ac.reg)][:cap]
    if not one_sided:
        return [common]
    out = [common]
    for hw in (ac, bc):
        own = [c for c in hw.reg if c and c not in common]
        out += [common + own[:k] for k in range(1, min(len(own), cap - len(common)) + 1)]
    return out


def _build(
    problem: Problem,
    compressed: tuple[Hw, Hw],
    tiles: tuple[Tile | None, Tile | None],
    vec: list[int],
    rounds: tuple[list[int], list[int]],
    options: Options,
) -> SharedPlan | None:
    """The plan whose memory layout puts ``vec`` lowest and swizzles as ``options`` say, over the ``compressed`` sides
    (the tile less the round bits); ``rounds``: the round bits as A's columns, and as bit positions."""
    a, b, dt, tgt, col_bits = problem.a, problem.b, problem.dt, problem.tgt, problem.col_bits
    (ac, bc), (st_tile, ld_tile), (round_vecs, drop) = compressed, tiles, rounds
    swizzle, scalar = options.swizzle, options.scalar
    nb = ac.nbits
    w = dt.bytes
    vbytes = (1 << len(vec)) * w
    bank_bits = max(0, (tgt.wavefront_bytes // vbytes).bit_length() - 1) if vbytes < tgt.wavefront_bytes else 0

    def bank_lanes(hw: Hw, tile: Tile | None) -> list[int]:
        if tile:
            return list(tile.row_lanes)
        # a side's accesses span the leading vec bits it holds in registers; one phase spans this many lanes
        held = next((i for i, c in enumerate(vec) if c not in hw.reg), len(vec))
        per_phase = tgt.phase_lanes((1 << held) * w).bit_length() - 1
        return [c for c in hw.lane[:per_phase] if c]

    if swizzle == "optimal":
        word_fill = (tgt.bank_bytes // vbytes).bit_length() - 1 if vbytes < tgt.bank_bytes else 0
        sw = optimal_swizzle(vec, bank_lanes(ac, st_tile), bank_lanes(bc, ld_tile), nb, bank_bits, word_fill)
    elif swizzle == "unswizzled":
        sw = unswizzled(nb)
    else:
        sw = classic_for(nb, col_bits - sum(1 for d in drop if d < col_bits), dt, vec)
    inv = sw.inverse_cols()
    if any(x is None for x in inv):
        return None

    def off(x: int) -> int:
        return f2.combine(x, inv)

    store = build_side(SideSpec(ac, a, st_tile, True, scalar, tuple(drop)), off, dt, tgt)
    load = build_side(SideSpec(bc, b, ld_tile, False, scalar, tuple(drop)), off, dt, tgt)
    if store is None or load is None:
        return None
    warps = 1 << len(a.warp)
    st_active = warps >> store.predicate_warp_mask.bit_count()
    st_wf = store.wavefronts(st_active)
    ld_wf = load.wavefronts(warps)
    scratch = 1 << nb
    rounds = 1 << len(round_vecs)
    tile_bytes = (1 << a.nbits) * w
    b_warp_replicas = 1 << sum(1 for c in b.warp if not c)
    floor = (
        tile_bytes // tgt.wavefront_bytes * (1 + b_warp_replicas) if tile_bytes >= tgt.wavefront_bytes else 1 + b_warp_replicas
    )
    warp_sync = reads_own_writes(a, b)
    barrier = Barrier.WARP if warp_sync and tgt.warp_barrier else Barrier.CTA
    return SharedPlan(
        sw,
        tuple(round_vecs),
        scratch,
        scratch * w,
        store,
        load,
        rounds,
        warp_sync,
        barrier,
        st_wf,
        ld_wf,
        floor,
        sw.lower_bound_extra,
        scalar,
    )


def classic_for(nb: int, col_bits: int, dt: DType, vec: list[int]) -> Swizzle:
    """The classic swizzle for the row-major 2-D view of the (compressed) tile: the last dim's
    bits are the columns."""
    col_bits = min(nb, max(1, col_bits))
    v = 1 << len(vec) if all(c == 1 << i for i, c in enumerate(vec)) else 1
    return classic(nb - col_bits, col_bits, dt.bytes, v)


def writer_warp(a: Hw, x: int) -> int:
    """The warp that stores element ``x``: A's warp holding it, with A's broadcast warp bits 0 (only that
    replica stores, see Side.predicate_warp_mask). Linear in x: each logical bit is one A column."""
    return sum(1 << i for i, c in enumerate(a.warp) if c and x & c)


def reads_own_writes(a: Hw, b: Hw) -> bool:
    """Does every warp load only words it stored itself? Then __syncwarp orders the stores and loads;
    otherwise a CTA barrier must. By linearity it is enough that B's register and lane vectors have
    writer 0 and B's warp bit i has writer 1 << i: a broadcast warp bit of B (or of A, whose replica
    does not store) reads what another warp wrote."""
    return all(writer_warp(a, c) == 0 for c in b.reg + b.lane) and all(writer_warp(a, c) == 1 << i for i, c in enumerate(b.warp))


@dataclass(frozen=True)
class SideSpec:
    """One side of a shared plan to lay out: its hardware bits over the scratch (``hw``) and over the whole tile
    (``full``, whose register bits in ``drop`` pick the round), its ldmatrix/stmatrix tile (None: vectors), whether it
    stores, and whether each access moves one element."""

    hw: Hw
    full: Hw
    tile: Tile | None
    store: bool
    scalar: bool
    drop: tuple[int, ...]


def build_side(spec: SideSpec, off, dt: DType, tgt: Target) -> Side | None:
    """Lay out one side's instructions over its registers; ``off`` maps an element to its scratch offset."""
    hw, full, tile, store, scalar, drop = spec.hw, spec.full, spec.tile, spec.store, spec.scalar, list(spec.drop)
    w = dt.bytes
    nl, _nw = len(hw.lane), len(hw.warp)
    reg_off, lane_off, warp_off = ([off(c) for c in cols] for cols in (hw.reg, hw.lane, hw.warp))
    # registers: broadcast register bits are skipped (replicas are copied after the load / not stored)
    live = [i for i, c in enumerate(full.reg) if c]
    round_of_bit = {}  # register bit -> the round bit it selects
    for i, c in enumerate(full.reg):
        if c and (c.bit_length() - 1) in drop and c & (c - 1) == 0:
            round_of_bit[i] = drop.index(c.bit_length() - 1)

    if tile:
        vec_bits = list(tile.reg_bits)
        lanes_map = tile.thread_lanes  # provider lane bit -> (kind, index)
        thread_cols = []
        for kind, idx in lanes_map:
            if kind == "lane":
                thread_cols.append(lane_off[idx])
            elif kind == "reg":
                thread_cols.append(reg_off[idx])
            else:
                thread_cols.append(0)
        thread_cols += warp_off
        matrices = tile.matrices
        width = len(vec_bits) and (1 << len(vec_bits))
        phases = matrices
        acc = Access(tuple(off(c) for c in tile.row_lanes), 16 // w, matrices)  # one 8x8 matrix a phase
        inner_bits = vec_bits
        # the tile's 16-byte rows must be contiguous and aligned in this memory layout
        if [off(c) for c in tile.vec] != [1 << i for i in range(len(tile.vec))]:
            return None
        in_row = set(tile.vec)  # the hardware bits that walk one 16-byte row
        others = [off(c) for c in hw.lane + hw.warp if c not in in_row] + [reg_off[i] for i in live if hw.reg[i] not in in_row]
        if any(o & ((1 << len(tile.vec)) - 1) for o in others):
            return None
    else:
        # vector: register bits mapping to offset bits 0, 1, ... in order (registers may be permuted)
        inner_bits = []
        cap = 0 if scalar else (tgt.max_access_bytes // w).bit_length() - 1
        while len(inner_bits) < cap:
            want = 1 << len(inner_bits)
            cand = [i for i in live if reg_off[i] == want and i not in inner_bits]
            if not cand:
                break
            inner_bits.append(cand[0])
        # a vector must be contiguous and aligned: no other bit may touch its low offset bits
        while inner_bits:
            others = lane_off + warp_off + [reg_off[i] for i in live if i not in inner_bits]
            if not any(o & ((1 << len(inner_bits)) - 1) for o in others):
                break
            inner_bits.pop()
        thread_cols = lane_off + warp_off
        matrices = 0
        width = 1 << len(inner_bits)
        vbytes = width * w
        groups = tgt.lanes // tgt.phase_lanes(vbytes)
        per_phase = nl - (groups.bit_length() - 1)
        acc = Access(tuple(lane_off[:per_phase]), width, groups)
        if half_warp_load(store, vbytes, tgt.lanes, 1 << f2.rank(acc.lanes)):
            acc = Access(tuple(lane_off[: per_phase + 1]), width, groups // 2)
        # the data-volume minimum in wavefronts, one per 128 bytes moved (what Side.phases reports)
        phases = max(1, tgt.lanes * max(vbytes, tgt.bank_bytes) // tgt.wavefront_bytes)
    wf = wavefronts_per_phase(acc, w, tgt.banks, tgt.bank_bytes) * acc.phases
    outer = [i for i in live if i not in inner_bits and i not in round_of_bit and i not in (tile.matrix_bits if tile else ())]
    rbits = sorted(round_of_bit, key=round_of_bit.get)  # round bit j first: store and load number rounds alike
    # instruction o of round rnd starts at register rbase | obase, at constant offset roff ^ ooff (f2.span lists a
    # span's elements in the order of their coefficients, as rnd and o count)
    in_access = _access_regs(inner_bits, tile)
    outer_regs, outer_offs = f2.span(f2.units(outer)), f2.span(reg_off[i] for i in outer)
    xor_mask = split_const(-1, thread_cols)[0]  # the bits a thread column can set (split_const)
    instrs = []
    for rnd, (rbase, roff) in enumerate(zip(f2.span(f2.units(rbits)), f2.span(reg_off[i] for i in rbits), strict=True)):
        for obase, ooff in zip(outer_regs, outer_offs, strict=True):
            base, const = rbase | obase, roff ^ ooff
            instrs.append(Instr(tuple(map(base.__or__, in_access)), const & xor_mask, const & ~xor_mask, rnd))
    op = (
        ("st.shared" if store else "ld.shared")
        if not tile
        else (("stmatrix" if store else "ldmatrix") + (".trans" if tile.trans else ""))
    )
    pred = full.warp_broadcast_mask if store else 0
    if tile:
        width = (1 << len(inner_bits)) * matrices
    return Side(op, width, matrices, Affine(0, tuple(thread_cols)), tuple(instrs), pred, wf, phases)


def half_warp_load(store: bool, vbytes: int, lanes: int, quarter_addresses: int) -> bool:
    """A 16-byte ld.shared whose quarter-warps each read at most two distinct addresses is served by half-warps on
    the H100: a half-warp is one phase, so a conflict-free one takes one wavefront where its two quarters take two
    (docs/design.md §7.2; r5_9, the broadcast probes, r1_slice_256_f16's and r18_7_i8's loads). Stores, and loads
    with four or more addresses a quarter (r1_slice_256_f16's other direction: four, the same in every quarter), go
    by quarter-warps. ``quarter_addresses``: the most distinct addresses any quarter-warp reads."""
    return not store and vbytes == 16 and lanes == 32 and quarter_addresses <= 2


def _access_regs(inner_bits: list[int], tile: Tile | None) -> list[int]:
    """The registers one access moves, in memory order, less its first register's outer bits: the vector's
    registers, matrix by matrix for a tile."""
    inner = f2.span(f2.units(inner_bits))
    matrices = f2.span(f2.units(tile.matrix_bits)) if tile else [0]
    return [r | m for m in matrices for r in inner]
