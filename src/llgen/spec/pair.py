"""A conversion's two layouts from what the user said: the specs, the shape and element type, the options
given (None: not given) and the TTGIR module read with --ttgir. Defaults and contradictions are
llgen.spec.request's; caps are checked before anything is built."""

from __future__ import annotations

from dataclasses import dataclass

from llgen import layouts as L
from llgen.core.dtypes import DTYPES, DType, from_mlir
from llgen.core.errors import LlgenError
from llgen.core.layout import LinearLayout
from llgen.core.limits import ascii_int, check_tile
from llgen.spec.context import Where
from llgen.spec.facts import spec_facts
from llgen.spec.parse import parse_encoding, parse_layout
from llgen.spec.request import Setting, resolve


@dataclass(frozen=True)
class Pair:
    src: LinearLayout
    dst: LinearLayout
    dtype: DType
    target: str
    warps: int
    kinds: tuple[str, str]  # the families of the two specs, e.g. ("blocked", "mma")
    setting: Setting
    shared: str | None = None  # "src" or "dst" (llgen.core.vocab.SHARED_SIDES): the side that is the shared tile
    encoding: object | None = None  # that side's encoding object (its padding, its swizzle width)


def parse_shape(text: str) -> tuple[int, ...]:
    """``128x128`` -> (128, 128): ASCII digits, every entry a power of two, at most MAX_TILE_ELEMENTS in all."""
    parts = text.strip().lower().split("x")
    if not text.strip() or len(parts) > 8 or not all(p.strip() for p in parts):
        raise LlgenError(f"shape '{text[:40]}' is not of the form 128x128.")
    shape = tuple(ascii_int(p.strip(), "shape entry") for p in parts)
    for s in shape:
        if s < 1 or s & (s - 1):
            raise LlgenError(f"shape '{text}' holds {s}, which is not a power of two.")
    return check_tile(shape)


DEFAULT_DTYPE = "f16"  # the element type of a conversion nothing states one for (--dtype's default)


@dataclass(frozen=True)
class Stated:
    """What a command stated about a conversion beyond its two specs and its shape; None: not stated, so the TTGIR
    module, the layouts or llgen's defaults decide (llgen.spec.request). ``module`` is the TTGIR module read with
    --ttgir; ``dtype_source`` says where a stated ``dtype`` came from, for errors (``--dtype i8`` unless told)."""

    dtype: DType | None = None
    warps: int | None = None
    threads_per_warp: int | None = None
    target: str | None = None
    module: object | None = None
    dtype_source: str | None = None


NOTHING_STATED = Stated()


def parse_pair(src: str, dst: str, shape: tuple[int, ...], stated: Stated = NOTHING_STATED, *, shared_ok: bool = False) -> Pair:
    """The layouts of ``src`` -> ``dst`` over ``shape`` and the target they are planned for. ``shared_ok`` (only
    `llgen plan` so far) takes a shared-memory layout on one side: the pair is then a shared-memory endpoint, a store
    (shared --dst) or a load (shared --src).
    ``stated.dtype`` None (--dtype not given): the element type of the ``stated.module``'s ops between the two specs,
    else f16; a dtype stated that the dump's ops or a shared layout's elementBitWidth contradict is an error naming
    both."""
    check_tile(shape)
    module = stated.module
    dtype, said = _element_type(stated.dtype, src, dst, module)
    said = stated.dtype_source or said
    aliases = module.aliases if module is not None else None
    facts = {"--src": spec_facts(src, aliases), "--dst": spec_facts(dst, aliases)}
    shared = [side for side in facts if facts[side].kind == "shared"]
    texts = {"--src": src, "--dst": dst}
    if len(shared) == 2:
        raise LlgenError("--src and --dst are both shared-memory layouts; one side must be a distributed (register) layout.")
    if shared and not shared_ok:
        raise LlgenError(
            f"{shared[0]} is a shared-memory layout ({_named(texts[shared[0]])}); `llgen swizzle` chooses a shared layout and takes two distributed ones."
        )
    setting = resolve(facts, warps=stated.warps, threads_per_warp=stated.threads_per_warp, target=stated.target, module=module)
    try:
        where = Where(dtype.unit_bytes, aliases)
        a = parse_layout(src, shape, setting.warps, setting.lanes, where=where)
        b = parse_layout(dst, shape, setting.warps, setting.lanes, where=where)
        enc = None
        if shared and not texts[shared[0]].strip().startswith("@"):
            enc = parse_encoding(texts[shared[0]], shape, setting.warps, setting.lanes, where=where)
    except LlgenError as e:
        raise setting.note(e) from None
    if shared:
        _check_element_width(enc, shared[0], dtype, said)
    kinds = (facts["--src"].kind, facts["--dst"].kind)
    side = shared[0].removeprefix("--") if shared else None  # one of SHARED_SIDES
    return Pair(a, b, dtype, setting.target, setting.warps, kinds, setting, side, enc)


def _element_type(dtype: DType | None, src: str, dst: str, module) -> tuple[DType, str]:
    """The conversion's element type and who said it (``--dtype i8``, ``the i8 of dump.ttgir's ttg.local_alloc at line
    9``, ``the default dtype f16 (--dtype not given)``): --dtype,
    else the element type of the dump's ops between ``src`` and ``dst`` (``tensor<128x64xi8, #blocked>`` is i8),
    else f16. A --dtype that those ops contradict, and ops that move two element types with no --dtype to choose
    between them, are errors."""
    ops = module.ops_between(src, dst) if module is not None else []
    found: dict[str, tuple[DType, object]] = {}
    why = None  # why llgen cannot move the element type of such an op (a pointer or sub-byte tensor)
    for op in ops:
        try:
            dt = from_mlir(op.element)
        except LlgenError as e:
            why = why or e
            continue
        found.setdefault(dt.name, (dt, op))
    if dtype is not None:
        if ops and dtype.name not in found:
            op = ops[0]
            raise LlgenError(
                f"--dtype {dtype.name} contradicts {module.path}, whose {op.name} at {op.where()} moves "
                f"tensor<{op.tensor}> between {src.strip()} and {dst.strip()}."
            )
        return dtype, f"--dtype {dtype.name}"
    if not found and why is not None:
        raise why
    if len(found) > 1:
        names = " and ".join(found)
        raise LlgenError(
            f"{module.path} moves {names} tensors between {src.strip()} and {dst.strip()}: pass --dtype to choose one."
        )
    if found:
        dt, op = next(iter(found.values()))
        return dt, f"the {dt.name} of {module.path}'s {op.name} at {op.where()}"
    return DTYPES[DEFAULT_DTYPE], f"the default dtype {DEFAULT_DTYPE} (--dtype not given)"


def _check_element_width(enc, side: str, dtype: DType, said: str) -> None:
    """An error when the shared layout of ``side`` states an element width (nvmma_shared's elementBitWidth) other
    than the element type's (a 4-bit type's: 8, the bytes that hold it, as Triton keeps fp4)."""
    if isinstance(enc, L.NvmmaShared) and enc.element_bitwidth != 8 * dtype.unit_bytes:
        fits = [d.name for d in DTYPES.values() if d.bits == enc.element_bitwidth]
        raise LlgenError(
            f"{said} has {dtype.bits}-bit elements, but the nvmma_shared layout of {side} states elementBitWidth = "
            f"{enc.element_bitwidth} (a dtype of that width: {', '.join(fits) or 'none llgen knows'})."
        )


def _named(spec: str) -> str:
    """A spec as an error names it: ``#ttg.padded_shared<...>`` for an attribute, the kind of a short form."""
    spec = spec.strip()
    if spec.startswith("#"):
        return spec.split("<", 1)[0].split("=", 1)[0].strip() + "<...>"
    return spec.split(":", 1)[0].strip()
