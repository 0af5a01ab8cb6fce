"""PreshufflePlan -> three texts: the loader header (memory -> registers in B, with the upcast), the repack kernel
(row-major <-> memory) and the same repack as a NumPy module.

Every number here is the plan's: a load's constant byte offset, the bit fields of the lane, warp and tile index, and
which register word each loaded word becomes. The header's memory is G (``memory="g"``) or the K-contiguous store
of the K permutation (``memory="k"``); the texts are the same otherwise.
"""

from __future__ import annotations

import hashlib
import json

from llgen.core.errors import LlgenError
from llgen.emit.environment import check_name, environment
from llgen.plan.loader import Loader
from llgen.plan.preshuffle import PreshufflePlan

UPCASTS = {"i4": ("f16", "bf16"), "u4": ("f16", "bf16"), "e2m1": ("f16", "bf16")}
MEMORIES = ("g", "k")


def name(plan: PreshufflePlan, kind: str = "op") -> str:
    """``preshuffle_<kind>_<dtype>_<shape>_<hash>``: the hash covers B over its tile, the shape, dtype, decode and
    scale block."""
    fields = [plan.operand.to_dict(), list(plan.shape), plan.dtype.name, plan.decode, plan.k_dim]
    key = json.dumps(fields + ([plan.scale_block] if plan.scale_block else []), sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    return f"preshuffle_{kind}_{plan.dtype.name}_{'x'.join(map(str, plan.shape))}_{digest}"


def loader_of(plan: PreshufflePlan, memory: str) -> Loader:
    if memory not in MEMORIES:
        raise LlgenError(f"memory '{memory}' is not one of {', '.join(MEMORIES)}.")
    loader = plan.loader if memory == "g" else plan.k_loader
    if loader is None:
        raise LlgenError("B's bases mix K with another dim (or K is unknown): there is no K permutation to load by.")
    return loader


# ---------------------------------------------------------------------- the loader header
UPCAST_8BIT = ("i8", "f8e4m3")  # the 8-bit types whose loader header carries upcasts


def header(plan: PreshufflePlan, ns: str, memory: str = "g", command: str | None = None) -> str:
    """The loader header: ``load`` (memory -> the thread's registers in B) and, for 4-bit types, i8 and f8e4m3,
    ``upcast_f16`` and ``upcast_bf16`` (the registers -> 16-bit registers in B's order, two to a word); with the plan's
    scales, ``scale_bf16`` (the bf16 pairs times their e8m0 scales) and, for e2m1, the scaled ``upcast_bf16``."""
    loader = loader_of(plan, memory)
    if plan.dtype.bits > 32:
        raise LlgenError(f"a direct load holds elements of at most 32 bits; {plan.dtype.name} has {plan.dtype.bits}.")
    if loader.vector_bytes < 4:
        raise LlgenError(
            f"a thread holds only {loader.vector_bytes} contiguous bytes of a tile: widen the tile (along K) so each "
            "load brings a whole 32-bit word."
        )
    upcast = plan.dtype.sub_byte or plan.dtype.name in UPCAST_8BIT
    ctx = {
        "ns": check_name(ns),
        "command": command,
        "plan": plan,
        "loader": loader,
        "memory": memory,
        "memory_bases": _bases_text(loader.memory),
        "operand_bases": _bases_text(plan.operand),
        "traffic": loader.traffic(),
        "lane_term": _bit_fields("lane", _byte_offsets(loader, loader.offsets("lane"))),
        "warp_term": _bit_fields("warp", _byte_offsets(loader, loader.offsets("warp"))),
        "tile_terms": [
            _bit_fields(f"t{d}", _byte_offsets(loader, offs), wide=True) for d, offs in enumerate(loader.tile_offsets())
        ],
        "loads": _loads(loader),
        "upcasts": _upcasts(plan, loader) if upcast else [],
        "scale_of": plan.scale_of_pairs() if upcast and plan.scales else None,
        "scale_words": plan.scales.loader.words if plan.scales else 0,
        "k_permutation": plan.k_permutation() if memory == "k" else None,
    }
    return environment().get_template("preshuffle.j2").render(**ctx)


def _byte_offsets(loader: Loader, offsets) -> list[int]:
    """Element offsets as byte offsets; a permutation's offsets are distinct single bits, so a sum adds them."""
    for o in offsets:
        if o & (o - 1):
            raise LlgenError("the memory layout is not a permutation of the tensor's index bits; a direct load adds offsets.")
    return [o * loader.dtype.bits // 8 for o in offsets]


def _bit_fields(var: str, offsets: list[int], wide: bool = False) -> str:
    """``var``'s bits placed at their byte offsets, as shifts of runs of bits: ``((lane >> 0) & 31u) << 4``."""
    cast = "(unsigned long long)" if wide else ""
    terms, i = [], 0
    while i < len(offsets):
        if not offsets[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(offsets) and offsets[j + 1] == offsets[j] * 2:
            j += 1
        mask = (1 << (j - i + 1)) - 1
        shift = offsets[i].bit_length() - 1
        src = f"({var} >> {i})" if i else var
        terms.append(f"(({cast}{src} & {mask}u) << {shift})")
        i = j + 1
    return " + ".join(terms) or "0"


def _loads(loader: Loader) -> list[dict]:
    """Each load instruction: its constant byte offset, its vector type and the register word each loaded word fills
    (4-bit: words in load order, which the upcast reads)."""
    vec = {16: "uint4", 8: "uint2", 4: "unsigned"}[loader.vector_bytes]
    per = loader.vector_bytes // 4
    epw = 32 // loader.dtype.bits
    out = []
    for h, off in enumerate(loader.load_offsets()):
        if loader.dtype.sub_byte:
            words = [h * per + q for q in range(per)]
        else:
            words = [loader.register_at(h, q * epw) // epw for q in range(per)]
        regs = sorted(loader.register_at(h, p) for p in range(1 << loader.vector_bits))
        out.append({"offset": off * loader.dtype.bits // 8, "type": vec, "words": words, "registers": _ranges(regs)})
    return out


def _ranges(regs: list[int]) -> str:
    runs, start = [], regs[0]
    for a, b in zip(regs, regs[1:] + [None], strict=True):
        if b != a + 1:
            runs.append(f"{start}" if start == a else f"{start}-{a}")
            start = b
    return ",".join(runs)


def pair_upcasts(dt: str, ns: str) -> str:
    """The 8-bit pair upcasts alone, ``pair_f16<AT>`` and ``pair_bf16<AT>`` (bytes 2AT and 2AT + 1 of a word to a
    16-bit pair), in namespace ``ns``: what a kernel that holds the bytes another way (an endpoint load) calls. The
    loader header carries the same functions."""
    if dt not in UPCAST_8BIT:
        raise LlgenError(f"pair upcasts are emitted for {', '.join(UPCAST_8BIT)}; not for {dt}.")
    text = (
        '{% import "upcast.j2" as up %}{{ up.includes() }}namespace llgen {\nnamespace {{ ns }} {\n{{ up.bit_casts() }}'
        "{% for out, one, mul in up.outputs %}{{ up.pair8_function(dt, out, one) }}{% endfor %}}  // namespace {{ ns }}\n"
        "}  // namespace llgen\n"
    )
    return environment().from_string(text).render(dt=dt, ns=check_name(ns))


def _upcasts(plan: PreshufflePlan, loader: Loader) -> list[dict]:
    """For each 16-bit output word j (registers 2j and 2j+1): the loaded word and the pair's place in it (plain: the
    byte; fast: the nibble q of each 16-bit half; 8-bit: the 16-bit half, words in register order)."""
    if not plan.dtype.sub_byte:
        return [{"out": j, "word": j // 2, "at": j % 2} for j in range(loader.registers // 2)]
    where = {}
    per = loader.vector_bytes // 4
    for h in range(len(loader.load_offsets())):
        for p in range(1 << loader.vector_bits):
            where[loader.register_at(h, p)] = (h * per + p // 8, p % 8)
    pairs = []
    for j in range(loader.registers // 2):
        word, nib = where[2 * j]
        pairs.append({"out": j, "word": word, "at": nib // 2 if plan.decode == "plain" else nib})
    return pairs


def _bases_text(lay) -> str:
    return "; ".join(f"{n}: " + " ".join(str(list(lay.basis(n, i))) for i in range(k)) for n, k in lay.ins if k)


# ---------------------------------------------------------------------- the repack, CUDA and NumPy
def repack_tables(plan: PreshufflePlan, memory: str = "g") -> tuple[list[int], list[int]]:
    """Offset bit -> row-major flat index bit, and back: the memory layout and its inverse, both as flat columns."""
    mem = loader_of(plan, memory).memory
    to_flat = list(mem.flat_cols("offset"))
    to_offset = [0] * len(to_flat)
    for i, c in enumerate(to_flat):
        if c & (c - 1):
            raise LlgenError("the memory layout is not a permutation of the tensor's index bits.")
        to_offset[c.bit_length() - 1] = 1 << i
    return to_flat, to_offset


def repack_kernel(plan: PreshufflePlan, ns: str, memory: str = "g", command: str | None = None) -> str:
    return _repack("preshuffle_repack.j2", plan, ns, memory, command)


def repack_numpy(plan: PreshufflePlan, ns: str, memory: str = "g", command: str | None = None) -> str:
    return _repack("preshuffle_numpy.j2", plan, ns, memory, command)


def _repack(template: str, plan: PreshufflePlan, ns: str, memory: str, command: str | None) -> str:
    """The repack as ``template`` spells it (CUDA kernels or a NumPy module), from the memory layout's tables."""
    to_flat, to_offset = repack_tables(plan, memory)
    ctx = {"ns": check_name(ns), "command": command, "plan": plan, "to_flat": to_flat, "to_offset": to_offset, "memory": memory}
    return environment().get_template(template).render(**ctx)
