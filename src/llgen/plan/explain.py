"""A plan in words (``llgen plan``) and as JSON (docs/plan-schema.md)."""

from __future__ import annotations

from llgen.core.layout import unflatten
from llgen.core.view import logical_bit_names as bit_names  # the one naming of logical bits: m0.., n0.. or dim<k>[i]
from llgen.plan.pairing import free_order, word_bits


def plural(n: int, word: str) -> str:
    """``1 warp``, ``4 warps``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


MAX_REGISTERS = 255  # 32-bit registers a thread can address on sm_80/sm_90 (gfx9 has 256 VGPRs): past it, spills


def words(elements: int, bits: int) -> int:
    """32-bit registers holding ``elements`` elements of ``bits`` bits, packed as the emitted code packs them
    (llgen.emit.spelling.RegArray: 8- and 16-bit elements share words, a 64-bit one takes two)."""
    return max(1, -(-elements * bits // 32))


def registers(plan) -> int:
    """The 32-bit registers a thread holds at once for the conversion's data, at its peak: A's words until they
    are sent or stored, B's once they are received or loaded. A permutation renames A's words (the larger of A and
    B); shuffles read A and fill B in every round (both); shared memory frees A's words as each round stores them
    and fills B's as it loads, so with one round the larger side, with several the fullest moment between."""
    bits = plan.dtype.bits
    a, b = words(plan.n_in, bits), words(plan.n_out, bits)
    if plan.path == "shuffle":
        return a + b
    if plan.path != "shared":
        return max(a, b)
    d, per = plan.detail, max(1, 32 // bits)
    scale = 2 if bits == 64 else 1
    stored = {}  # A's word -> the last round that stores an element of it (instructions come round by round)
    for ins in d.store.instrs:
        for r in ins.regs:
            stored[r // per] = ins.round
    loaded = {}  # B's word -> the first round that loads an element of it
    for ins in reversed(d.load.instrs):
        for r in ins.regs:
            loaded[r // per] = ins.round
    between = [
        sum(last > rnd for last in stored.values()) + sum(first <= rnd for first in loaded.values()) for rnd in range(d.rounds)
    ]
    return max(a, b, *(n * scale for n in between))


def registers_text(plan) -> str:
    """``registers: 64 per thread at the peak (A 64, B 64 words)``, with a note past MAX_REGISTERS."""
    bits, n = plan.dtype.bits, registers(plan)
    text = f"registers: {n} per thread at the peak (A {words(plan.n_in, bits)}, B {words(plan.n_out, bits)} words)"
    return text + (f", over the {MAX_REGISTERS} a thread can hold" if n > MAX_REGISTERS else "")


def registers_warning(plan) -> str | None:
    """One line for stderr when the plan needs more registers than a thread has, else None."""
    if plan.kind == "packed":  # its byte plan holds the registers
        return registers_warning(plan.inner)
    n = registers(plan)
    if n <= MAX_REGISTERS:
        return None
    return (
        f"warning: the conversion holds {n} registers a thread at its peak, over the {MAX_REGISTERS} a thread can "
        "hold: the compiler will spill to local memory (a smaller tile or more warps needs fewer)."
    )


def vec_name(x: int, names: list[str]) -> str:
    if not x:
        return "0"
    return "^".join(names[i] for i in range(len(names)) if x >> i & 1)


def _cols(layout, dim: str, names: list[str]) -> str:
    return " ".join(vec_name(c, names) for c in layout.flat_cols(dim)) or "-"


def pairing_text(plan) -> str | None:
    """A free-paired plan's words in one sentence (None for natural ones): which tensor bits both sides' words
    span, and the register orders that make them so; or, where it kept the natural words, why."""
    if plan.register_order is None:
        return None
    oa, ob = plan.register_order
    k = word_bits(plan.dtype)
    src, dst = plan.src.flat_cols("register"), plan.dst.flat_cols("register")
    if oa == tuple(sorted(oa)) and ob == tuple(sorted(ob)):
        if src[:k] == dst[:k]:
            why = "A's and B's words already span the same tensor bits"
        elif free_order(plan.src, plan.dst, plan.dtype) is None:
            why = f"fewer than {k} tensor bit(s) are register bits of both A and B"
        else:
            why = "on tensor bits both hold in registers, a round trip would take more accesses or more of the latency model's cycles"
            if plan.options.path is not None:
                why += f", or the forced {plan.options.path} path could not take them"
        return f"pairing: free, and the natural words are kept: {why}"
    paired = " ".join(vec_name(c, bit_names(plan.src)) for c in src[:k])
    return (
        f"pairing: free: A's and B's words both span {paired}, so no word is rebuilt. The plan holds A's register bits "
        f"in the order {list(oa)} and B's in {list(ob)}: its A and B (A' and B'), as coord_a/coord_b and "
        "load_a/store_b see them"
    )


def explain(plan) -> str:
    a, b = plan.src, plan.dst
    names = bit_names(a)
    lines = [
        (
            f"conversion: {dict(zip(a.out_names, a.shape, strict=True))} {plan.dtype.name}, {plural(plan.warps, 'warp')} x {plan.lanes} lanes, "
            f"{plan.target.name}"
        ),
        f"path: {plan.path} ({plan.why})",
    ]
    if plan.costs:
        lines.append("cost model, throughput (cycles of an SM's pipes): " + ", ".join(f"{k} {v:.0f}" for k, v in plan.costs))
        lines.append("cost model, one CTA's latency (cycles): " + ", ".join(f"{k} {v:.0f}" for k, v in plan.latencies))
        lines.append(f"objective: {plan.objective}")
    lines.append(registers_text(plan))
    if (pairing := pairing_text(plan)) is not None:
        lines.append(pairing)
    lines.append("")
    lines.append("C = B^-1 A, by labelled blocks (each A bit -> where B holds that element):")
    c = a.invert_and_compose(b)
    for dim in ("register", "lane", "warp"):
        if dim in c.in_names and c.in_bits(dim):
            cols = [
                ", ".join(f"{o}{c.basis(dim, i)[j]}" for j, o in enumerate(c.out_names) if c.basis(dim, i)[j]) or "0"
                for i in range(c.in_bits(dim))
            ]
            lines.append(f"  A.{dim:<8} " + " | ".join(cols))
    lines.append(f"  A: register {_cols(a, 'register', names)}; lane {_cols(a, 'lane', names)}; warp {_cols(a, 'warp', names)}")
    lines.append(f"  B: register {_cols(b, 'register', names)}; lane {_cols(b, 'lane', names)}; warp {_cols(b, 'warp', names)}")
    d = plan.detail
    if plan.path in ("noop", "registers"):
        lines.append(f"registers: out[j] = in[perm[j]], perm = {list(d.perm)}")
    elif plan.path == "shuffle":
        lines.append(
            f"shuffle: {d.num_rounds} rounds, {d.shuffles} SHFL per thread, "
            f"{1 << len(d.pack_a)} element(s) per 32-bit word x {d.words_per_element} word(s)"
        )
        lines.append(f"  words: {_words_text(plan)}")
        for r in d.rounds:
            lb = plan.target.lane_bits
            lines.append(
                f"  round {r.index}: {r.op:<5} src_lane = {affine_text(r.src_lane, lb)}; "
                f"send in[{affine_text(r.send_reg, lb)}]; recv out[{affine_text(r.recv_reg, lb)}]"
            )
    else:
        sw = d.swizzle
        interleaved = " interleaved (each one's loads right after its stores)" if d.interleaved else ""
        lines.append(
            f"shared memory: {d.scratch_bytes} bytes scratch, {d.rounds} round(s){interleaved}, {d.barrier.call} between "
            "store and load"
        )
        sets = {k: v for k, v in sw.sets}
        if sets:
            lines.append(
                "  swizzle sets: " + "; ".join(f"{k} = {{{', '.join(vec_name(x, names) for x in v)}}}" for k, v in sets.items())
            )
        lines.append(f"  swizzle {sw.name}: offset bits [vec {sw.vec} | bank {sw.bank} | seg {sw.seg}]")
        lines.append("  offset bit -> element: " + ", ".join(f"o{i}={vec_name(x, names)}" for i, x in enumerate(sw.columns)))
        lines.append("  offset(element) = " + _offset_formula(sw, names))
        for side, name in ((d.store, "store"), (d.load, "load")):
            what = f"{side.op} x{side.matrices}" if side.matrices else f"{side.op} {side.width * plan.dtype.bits}-bit"
            lines.append(f"  {name}: {len(side.instrs)} x {what} per thread, {side.wavefronts_per_instr} wavefront(s) each")
        lines.append(
            f"  wavefronts for the tile: store {d.predicted_store_wavefronts}, load {d.predicted_load_wavefronts}; "
            f"data-volume floor {d.floor_wavefronts}; Lemma 9.5 extra doublings at least {d.lower_bound_extra}"
        )
    return "\n".join(lines)


def affine_text(aff, lane_bits: int) -> str:
    """An affine map of the thread bits in words: ``c ^ (laneb<i>?col) ^ (warpb<j>?col)``."""
    terms = [
        f"({'lane' if i < lane_bits else 'warp'}b{i if i < lane_bits else i - lane_bits}?{c})"
        for i, c in enumerate(aff.cols)
        if c
    ]
    return " ^ ".join([str(aff.const)] + terms) if terms else str(aff.const)


def _offset_formula(sw, names: list[str]) -> str:
    """offset bit i = parity of (element bits selected by row i of S^-1)."""
    inv = sw.inverse_cols()
    n = len(sw.columns)
    terms = []
    for i in range(n):
        bits = [names[j] for j in range(n) if inv[j] >> i & 1]
        terms.append(f"o{i}={'^'.join(bits)}")
    return ", ".join(terms)


def to_json(plan) -> dict:
    d = plan.detail
    out = {
        "schema": "llgen.plan/1",
        "path": plan.path,
        "why": plan.why,
        "dtype": plan.dtype.name,
        "target": plan.target.name,
        "warps": plan.warps,
        "lanes": plan.lanes,
        "src": plan.src.to_dict(),
        "dst": plan.dst.to_dict(),
        "registers_in": plan.n_in,
        "registers_out": plan.n_out,
        "registers_per_thread": registers(plan),
        "out_copies": [list(x) for x in plan.out_copies],
        "costs": dict(plan.costs),
        "latencies": dict(plan.latencies),
        "objective": plan.objective,
    }
    if plan.register_order is not None:  # free pairing: src and dst are the asked layouts with these register orders
        out["register_order"] = {"src": list(plan.register_order[0]), "dst": list(plan.register_order[1])}
    if plan.fallback is not None:
        out["fallback"] = to_json(plan.fallback)
    if plan.path in ("noop", "registers"):
        out["perm"] = list(d.perm)
    elif plan.path == "shuffle":
        lanes, warps = plan.lanes, plan.warps
        out["shuffle"] = {
            "pack_a": list(d.pack_a),
            "pack_b": list(d.pack_b),
            "words_per_element": d.words_per_element,
            "rounds": [
                {
                    "index": r.index,
                    "op": r.op,
                    "xor_mask": r.xor_mask,
                    "src_lane": _affine_json(r.src_lane),
                    "send_reg": _affine_json(r.send_reg),
                    "recv_reg": _affine_json(r.recv_reg),
                    "table": [
                        {"lane": t % lanes, "warp": t // lanes, "src_lane": s, "send_reg": x, "recv_reg": y}
                        for t, (s, x, y) in enumerate(
                            zip(*(f.values(lanes * warps) for f in (r.src_lane, r.send_reg, r.recv_reg)), strict=True)
                        )
                    ],
                }
                for r in d.rounds
            ],
        }
    else:
        out["shared"] = {
            "swizzle": d.swizzle.name,
            "offset_bases": [_unflat(x, plan.src) for x in d.offset_vectors()],
            "round_bases": [_unflat(x, plan.src) for x in d.round_vectors],
            "scratch_bytes": d.scratch_bytes,
            "rounds": d.rounds,
            "warp_sync": d.warp_sync,
            "barrier": d.barrier.call,
            "store_warps": [w for w in range(plan.warps) if not w & d.store.predicate_warp_mask],
            "store": _side_json(d.store),
            "load": _side_json(d.load),
            "predicted_wavefronts": {"store": d.predicted_store_wavefronts, "load": d.predicted_load_wavefronts},
            "floor_wavefronts": d.floor_wavefronts,
            "lower_bound_extra": d.lower_bound_extra,
        }
    return out


def _unflat(x: int, layout) -> list[int]:
    return list(unflatten(x, layout.outs))


def _affine_json(aff) -> dict:
    return {"const": aff.const, "cols": list(aff.cols)}


def _side_json(side) -> dict:
    return {
        "op": side.op,
        "vector_elems": side.width,
        "matrices": side.matrices,
        "thread_offset": _affine_json(side.thread_offset),
        "wavefronts_per_instr": side.wavefronts_per_instr,
        "instructions": [{"regs": list(i.regs), "xor": i.xor_const, "add": i.add_const, "round": i.round} for i in side.instrs],
    }


def _words_text(plan) -> str:
    """How the shuffle plan's words are built (plan/shuffle_words.py): thread classes, and the kinds of word."""
    asm = plan.detail.assembly
    kinds: dict[str, int] = {}
    for w in asm.words:
        kinds[w.kind()] = kinds.get(w.kind(), 0) + 1
    names = {"copy": "whole", "select": "selected", "prmt": "byte-permuted", "join": "joined", "zero": "empty"}
    return (
        f"{asm.classes} thread class(es); "
        + ", ".join(f"{kinds[k]} {v}" for k, v in names.items() if k in kinds)
        + f"; {asm.instructions()} SEL/PRMT per thread (docs/design.md §4.5)"
    )
