"""A Triton TTGIR dump (``--ttgir FILE``): a ``.ttgir`` file (``compiled.asm["ttgir"]``) or MLIR_ENABLE_DUMP
output, read into its modules: each one's layout aliases (``#blocked = #ttg.blocked<{...}>``), module
attributes (ttg.num-warps, ttg.threads-per-warp, ttg.target), ``ttg.convert_layout`` ops and the local ops that
move a tensor to or from shared memory (``ttg.local_alloc`` of a value and ``ttg.local_store``: registers -> shared;
``ttg.local_load``: shared -> registers), each with its line in the file, tensor shape, element type, source and
destination encodings and source location. A local op's shared side is its ``!ttg.memdesc``'s encoding, over the
memdesc shape the op sees (one buffer of a multi-buffered allocation once ``ttg.memdesc_index`` picked it).

Triton 3.0-3.2's spellings read the same: the ``triton_gpu.`` dialect prefix of ops, aliases and module attributes
(``"triton_gpu.num-warps" = 4 : i32``) and their ``!tt.memdesc<64x64xf16, #shared[, #triton_gpu.shared_memory]>``.

An MLIR_ENABLE_DUMP file holds the module once per pass; the TTGIR llgen reads is the last dump of each
kernel that still has ``tt.func`` (the input of ConvertTritonGPUToLLVM). Aliases and locations are each
module's own. An op whose types cannot be read is kept with a one-sentence ``problem``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from llgen.core.errors import LlgenError
from llgen.core.files import read_text
from llgen.core.limits import MAX_CONVERSIONS, MAX_NUMBER, MAX_TTGIR_BYTES, ascii_int
from llgen.spec.location import Location, loc_body, resolve, split_top
from llgen.spec.ttgir import Alias, Aliases, AttrParser

_ALIAS_LINE = re.compile(r"(#[A-Za-z_][A-Za-z0-9_$.-]*)\s*=\s*(.*)")
_CONVERT = re.compile(r'=\s*"?(?:ttg|triton_gpu)\.convert_layout"?[\s(]')
_CONVERT_NAME = re.compile(r'"?((?:ttg|triton_gpu)\.convert_layout)"?[\s(]')
# a local op that moves a value (a local_alloc without one allocates only)
_LOCAL = re.compile(r'"?((?:ttg|triton_gpu)\.(?:local_alloc|local_store|local_load))"?(?:\s+|\()%')
_FUNC = re.compile(r"\btt\.func\b[^@]*@([A-Za-z0-9_$.-]+)")
_ATTRS = {
    "num_warps": re.compile(r'"(?:ttg|triton_gpu)\.num-warps"\s*=\s*([0-9]+)'),
    "threads_per_warp": re.compile(r'"(?:ttg|triton_gpu)\.threads-per-warp"\s*=\s*([0-9]+)'),
    "num_ctas": re.compile(r'"(?:ttg|triton_gpu)\.num-ctas"\s*=\s*([0-9]+)'),
}
_TARGET = re.compile(r'"?(?:ttg|triton_gpu)\.target"?\s*=\s*"([^"]*)"')
# the shape ops (llgen.shapeops.ttgir checks each result against the layout Triton infers for it)
_SHAPE = re.compile(
    r'=\s*"?(tt\.(?:trans|reshape|join|split|expand_dims|broadcast)|(?:ttg|triton_gpu)\.(?:fp4_to_fp|memdesc_trans|memdesc_reshape))"?[\s(]'
)
_TYPES_AT = re.compile(r" : \(?(?=(?:tensor|!ttg\.memdesc|!tt\.memdesc)<)")  # where the types start, past any {axis = 1 : i32}
_MEMDESCS = ("!ttg.memdesc<", "!tt.memdesc<")  # Triton 3.3 on, and 3.0-3.2
_TENSOR = re.compile(r"((?:[-+?0-9][^x]*x)*)(.*)")  # dims (MLIR's are integers or ?, each followed by x), element


@dataclass(frozen=True)
class ConvertOp:
    line: int  # 1-based, in the file
    func: str  # the tt.func it is in ('' when none)
    shape: tuple[int, ...]
    element: str  # the MLIR element type, e.g. f16
    src: str  # the encodings as written: an alias (#mma) or an attribute
    dst: str
    location: Location
    problem: str = ""  # one sentence when the op's types could not be read
    tensor: str = ""  # the source tensor type as written, less its encoding: 128x128xf16
    name: str = "ttg.convert_layout"  # or ttg.local_alloc, ttg.local_store, ttg.local_load (triton_gpu. before 3.3)
    memdesc: str = ""  # a local op's !ttg.memdesc type as written: 128x64xf16, #shared, #smem, mutable
    memdesc_type: str = "!ttg.memdesc"  # !tt.memdesc in Triton 3.0-3.2

    @property
    def local(self) -> bool:
        """Whether the op moves the tensor to or from shared memory (a local_store or local_load)."""
        return ".local_" in self.name

    @property
    def path(self) -> str:
        """The plan path a local op's endpoint has: "local_store" (a store: local_alloc of a value or local_store) or
        "local_load" (a load)."""
        return "local_load" if self.name.endswith(".local_load") else "local_store"

    def types(self) -> str:
        """``tensor<128x64xf16>, #mma -> #blocked``, or for a local op its types as written in the dump."""
        tensor = f"tensor<{self.tensor or '?'}, {(self.dst if self.path == 'local_load' else self.src) or '?'}>"
        if not self.local:
            return f"tensor<{self.tensor or '?'}>, {self.src or '?'} -> {self.dst or '?'}"
        memdesc = f"{self.memdesc_type}<{self.memdesc or '?'}>"
        return f"{memdesc} -> {tensor}" if self.path == "local_load" else f"{tensor} -> {memdesc}"

    def where(self) -> str:
        """``line 62 (kernel.py:13:48)``."""
        loc = self.location.short()
        return f"line {self.line}" + (f" ({loc})" if loc else "")


@dataclass(frozen=True)
class ShapeOp:
    """A shape op as the dump writes it: ``name`` (tt.trans, tt.reshape, tt.join, tt.split, tt.expand_dims,
    tt.broadcast, ttg.fp4_to_fp, ttg.memdesc_trans, ttg.memdesc_reshape), its source and result types, each as
    (type text less its encoding, shape, element type, encoding as written), and the attributes llgen reads:
    ``order`` (trans), ``axis`` (expand_dims, fp4_to_fp), ``flags`` (reshape's allow_reorder, efficient_layout)."""

    line: int
    func: str
    name: str
    location: Location
    src: tuple[str, tuple[int, ...], str, str] = ("", (), "", "")
    dst: tuple[str, tuple[int, ...], str, str] = ("", (), "", "")
    order: tuple[int, ...] | None = None
    axis: int | None = None
    flags: tuple[str, ...] = ()
    problem: str = ""  # one sentence when the op's types or attributes could not be read

    @property
    def memdesc(self) -> bool:
        return ".memdesc_" in self.name

    def where(self) -> str:
        loc = self.location.short()
        return f"line {self.line}" + (f" ({loc})" if loc else "")


@dataclass(frozen=True)
class Module:
    path: str
    line: int  # the module's first line in the file
    aliases: Aliases  # "#name" -> Alias
    num_warps: int | None
    threads_per_warp: int | None
    num_ctas: int | None
    target: str | None  # Triton's ttg.target, e.g. "cuda:90"
    funcs: tuple[str, ...]
    ops: tuple[ConvertOp, ...]
    local_ops: tuple[ConvertOp, ...] = ()  # ttg.local_alloc of a value, ttg.local_store, ttg.local_load
    shape_ops: tuple[ShapeOp, ...] = ()  # tt.trans, tt.reshape, ..., ttg.memdesc_reshape

    def all_ops(self) -> list[ConvertOp]:
        """The convert_layout and local ops in file order."""
        return sorted([*self.ops, *self.local_ops], key=lambda o: o.line)

    def ops_between(self, a: str, b: str) -> list[ConvertOp]:
        """The readable ops whose two encodings are ``a`` and ``b`` as written (either way round, spaces aside): the
        ops of the dump that move a tensor between those layouts, whose element type is the one such a move has."""
        want = sorted(("".join(a.split()), "".join(b.split())))
        return [o for o in self.all_ops() if not o.problem and sorted(("".join(o.src.split()), "".join(o.dst.split()))) == want]


def read_ttgir(path: str) -> list[Module]:
    """The TTGIR modules of the file at ``path`` (at least one; otherwise an LlgenError)."""
    return parse_ttgir(read_text(path, MAX_TTGIR_BYTES, "TTGIR file"), path)


def parse_ttgir(text: str, path: str = "<text>") -> list[Module]:
    lines = text.splitlines()
    sections = _sections(lines)
    chosen = _last_per_kernel(lines, [s for s in sections if _is_ttgir(lines, s)])
    if not chosen:
        chosen = [s for s in sections if any(_layout_alias(lines[i]) for i in range(*s))][-1:]
    if not chosen:
        raise LlgenError(f"'{path}' is not a TTGIR dump: it has no module with ttg.num-warps and no #ttg layout alias.")
    modules = [_module(lines, s, path) for s in chosen]
    count = sum(len(m.ops) + len(m.local_ops) for m in modules)
    if count > MAX_CONVERSIONS:
        raise LlgenError(f"'{path}' holds {count} layout ops (convert_layout, local), over llgen's limit of {MAX_CONVERSIONS}.")
    return modules


def _sections(lines: list[str]) -> list[tuple[int, int]]:
    """[start, end) line ranges between MLIR_ENABLE_DUMP headers and ``// -----`` separators."""
    cuts = [i for i, line in enumerate(lines) if line.startswith("// -----")]
    bounds = [0, *cuts, len(lines)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def _module_line(lines: list[str], section: tuple[int, int]) -> str:
    return next((lines[i] for i in range(*section) if lines[i].startswith("module")), "")


def _is_ttgir(lines: list[str], section: tuple[int, int]) -> bool:
    head = _module_line(lines, section)
    return ('"ttg.num-warps"' in head or '"triton_gpu.num-warps"' in head) and any(
        _FUNC.search(lines[i]) for i in range(*section) if "tt.func" in lines[i]
    )


def _funcs(lines: list[str], section: tuple[int, int]) -> tuple[str, ...]:
    return tuple(m.group(1) for i in range(*section) if "tt.func" in lines[i] for m in [_FUNC.search(lines[i])] if m)


def _last_per_kernel(lines: list[str], sections: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The last section of each kernel (its set of functions), in file order (a .ttgir file: its one module)."""
    last = {_funcs(lines, s): s for s in sections}
    return sorted(last.values())


def _layout_alias(line: str) -> bool:
    m = _ALIAS_LINE.fullmatch(line.strip())
    return bool(m) and m.group(2).startswith(("#ttg.", "#triton_gpu."))


def _module(lines: list[str], section: tuple[int, int], path: str) -> Module:
    start, end = section
    layout_lines, loc_aliases = [], {}
    for i in range(start, end):
        if not lines[i].startswith("#"):
            continue
        m = _ALIAS_LINE.fullmatch(lines[i].strip())
        if m and m.group(2).startswith("loc("):
            loc_aliases[m.group(1)] = m.group(2)[4:-1]
        elif m:
            layout_lines.append((m.group(1), m.group(2)))
    aliases: Aliases = {}
    for name, text in layout_lines:
        aliases[name] = _alias(name, text, aliases)
    head = _module_line(lines, section)
    attrs = {k: _number(r, head, k, path) for k, r in _ATTRS.items()}
    target = _TARGET.search(head)
    ops, local_ops, shape_ops, func = [], [], [], ""
    for i in range(start, end):
        line = lines[i]
        if "tt.func" in line:
            m = _FUNC.search(line)
            func = m.group(1) if m else func
        if "convert_layout" in line and _CONVERT.search(line):
            ops.append(_op(line, i + 1, func, loc_aliases))
        elif ".local_" in line and (m := _LOCAL.search(line)):
            local_ops.append(_local_op(line, i + 1, func, loc_aliases, m.group(1)))
        elif (" tt." in line or "_fp" in line or ".memdesc_" in line) and (m := _SHAPE.search(line)):
            shape_ops.append(_shape_op(line, i + 1, func, loc_aliases, m.group(1)))
    return Module(
        path,
        start + 1,
        aliases,
        attrs["num_warps"],
        attrs["threads_per_warp"],
        attrs["num_ctas"],
        target.group(1) if target else None,
        _funcs(lines, section),
        tuple(ops),
        tuple(local_ops),
        tuple(shape_ops),
    )


def _alias(name: str, text: str, aliases: Aliases) -> Alias:
    """A layout alias, or why llgen does not read it."""
    if not text.startswith(("#ttg.", "#triton_gpu.")) or ("<{" not in text and "<[" not in text):  # padded_shared: <[..] {
        return Alias(None, why=f"alias '{name}' is '{text[:60]}', not a layout attribute llgen reads.")
    parser = AttrParser(text, aliases)
    try:
        attr = parser.parse_attr_all()
    except LlgenError as e:
        return Alias(None, why=f"alias '{name}' cannot be read: {str(e).rstrip('.')}.")
    return Alias(attr, parser.max_depth)


def _number(pattern: re.Pattern, head: str, key: str, path: str) -> int | None:
    m = pattern.search(head)
    return ascii_int(m.group(1), f"ttg.{key.replace('_', '-')} of {path}") if m else None


def _location(line: str, loc_aliases: dict[str, str]) -> Location:
    body = loc_body(line)
    try:
        return resolve(body, loc_aliases) if body is not None else Location()
    except LlgenError:
        return Location()


def _op(line: str, number: int, func: str, loc_aliases: dict[str, str]) -> ConvertOp:
    location = _location(line, loc_aliases)
    m = _CONVERT_NAME.search(line)
    name = m.group(1) if m else "ttg.convert_layout"
    types = line.split(" : ", 1)[1] if " : " in line else ""
    tensors = _tensors(types)
    if len(tensors) != 2:
        return ConvertOp(number, func, (), "", "", "", location, "the op's types are not two tensor types.", name=name)
    (text_a, dims_a, elem_a, src), (text_b, dims_b, elem_b, dst) = tensors
    problem = _dims_problem(dims_a, text_a, "source") or _dims_problem(dims_b, text_b, "destination")
    shape = () if problem else tuple(int(d) for d in dims_a)
    if not problem and (not src or not dst):
        problem = f"the op's {'source' if not src else 'destination'} tensor type has no layout encoding."
    elif not problem and (dims_a, elem_a) != (dims_b, elem_b):
        problem = f"the op's source tensor<{text_a}> and destination tensor<{text_b}> differ in shape or element type."
    return ConvertOp(number, func, shape, elem_a, src, dst, location, problem, text_a, name)


def _local_op(line: str, number: int, func: str, loc_aliases: dict[str, str], name: str) -> ConvertOp:
    """A local_alloc (of a value), local_store or local_load: the tensor's layout on one side, the memdesc's shared
    encoding on the other, over the memdesc shape the op sees."""
    location = _location(line, loc_aliases)
    types = line.split(" : ", 1)[1] if " : " in line else ""
    tensors = _tensors(types)
    found = [(opener[:-1], inner) for opener in _MEMDESCS for inner in _bracketed(types, opener)]
    if len(tensors) != 1 or len(found) != 1:
        return ConvertOp(number, func, (), "", "", "", location, "the op's types are not a tensor and a !ttg.memdesc.", name=name)
    memdesc_type, memdescs = found[0][0], [found[0][1]]
    text, dims, elem, encoding = tensors[0]
    parts = split_top(memdescs[0])
    m = _TENSOR.fullmatch(parts[0].strip())
    mem_dims = m.group(1)[:-1].split("x") if m.group(1) else []
    shared = parts[1].strip() if len(parts) > 1 else ""
    src, dst = (shared, encoding) if name.endswith(".local_load") else (encoding, shared)
    problem = _dims_problem(dims, text, "tensor") or _dims_problem(mem_dims, parts[0].strip(), "memdesc")
    if not problem and not encoding:
        problem = "the op's tensor type has no layout encoding."
    elif not problem and not shared.startswith("#"):
        problem = "the op's !ttg.memdesc has no shared-memory encoding."
    elif not problem and (dims, elem) != (mem_dims, m.group(2).strip()):
        problem = f"the op's tensor<{text}> and !ttg.memdesc<{parts[0].strip()}> differ in shape or element type."
    shape = () if problem else tuple(int(d) for d in dims)
    memdesc = ", ".join(p.strip() for p in parts)
    return ConvertOp(number, func, shape, elem, src, dst, location, problem, text, name, memdesc, memdesc_type)


def _shape_op(line: str, number: int, func: str, loc_aliases: dict[str, str], name: str) -> ShapeOp:
    """A shape op: its first and last types (a join's two operands share one type) and its attributes."""
    location = _location(line, loc_aliases)
    body = line.split(" loc(", 1)[0]
    m = _TYPES_AT.search(body)
    head, types = (body[: m.start()], body[m.end() :]) if m else (body, "")
    memdesc = ".memdesc_" in name
    sides = [_memdesc_side(inner) for o in _MEMDESCS for inner in _bracketed(types, o)] if memdesc else _tensors(types)
    out = ShapeOp(number, func, name, location)
    if len(sides) < 2:
        return replace(out, problem=f"the op's types are not a source and a result {'!ttg.memdesc' if memdesc else 'tensor'}.")
    (ta, da, ea, enc_a), (tb, db, eb, enc_b) = sides[0], sides[-1]
    problem = _dims_problem(da, ta, "source") or _dims_problem(db, tb, "result")
    if problem:
        return replace(out, problem=problem)
    out = replace(out, src=(ta, tuple(int(d) for d in da), ea, enc_a), dst=(tb, tuple(int(d) for d in db), eb, enc_b))
    if not enc_a or not enc_b:
        return replace(out, problem=f"the op's {'source' if not enc_a else 'result'} type has no layout encoding.")
    if name.endswith((".trans", ".memdesc_trans")):
        o = re.search(r"order\s*=\s*array<i32:\s*([0-9,\s]*)>", head)
        if not o:
            return replace(out, problem="the op has no order = array<i32: ...> attribute.")
        return replace(out, order=tuple(int(v) for v in o.group(1).replace(",", " ").split()))
    if name.endswith((".expand_dims", ".fp4_to_fp")):
        a = re.search(r"\baxis\s*=\s*([0-9]{1,2})\s*:", head)
        if not a:
            return replace(out, problem="the op has no axis = N : i32 attribute.")
        return replace(out, axis=int(a.group(1)))
    if name.endswith(".reshape"):
        return replace(out, flags=tuple(f for f in ("allow_reorder", "efficient_layout") if re.search(rf"\b{f}\b", head)))
    return out


def _memdesc_side(inner: str) -> tuple[str, list[str], str, str]:
    """(type text less its encoding, dims, element type, shared encoding) of a memdesc type's inside."""
    parts = split_top(inner)
    m = _TENSOR.fullmatch(parts[0].strip())
    dims = m.group(1)[:-1].split("x") if m.group(1) else []
    return parts[0].strip(), dims, m.group(2).strip(), parts[1].strip() if len(parts) > 1 else ""


def _dims_problem(dims: list[str], text: str, side: str) -> str:
    """Why a tensor's dimensions are not a tile's fixed, positive sizes ("" when they are)."""
    for k, d in enumerate(dims):
        where = f"dimension {k} of the op's {side} tensor<{text}>"
        if d == "?":
            return f"{where} is dynamic (?): llgen moves tiles of a fixed shape."
        if not re.fullmatch(r"[0-9]+", d):
            return f"{where} is {d[:20]}, not a positive size."
        if len(d) > 12 or int(d) > MAX_NUMBER:
            return f"{where} is {d[:20]}, over llgen's limit of {MAX_NUMBER}."
        if int(d) == 0:
            return f"{where} is 0: the tensor holds no element."
    return ""


def _bracketed(text: str, opener: str) -> list[str]:
    """The insides of every ``opener...>`` in ``text`` (``opener`` ends with its ``<``), nested brackets kept."""
    out, at = [], 0
    while (at := text.find(opener, at)) >= 0:
        start = at + len(opener)
        depth, i = 1, start
        while i < len(text) and depth:
            depth += {"<": 1, ">": -1}.get(text[i], 0)
            i += 1
        out.append(text[start : i - 1])
        at = i
    return out


def _tensors(text: str) -> list[tuple[str, list[str], str, str]]:
    """(type text less its encoding, dimensions as written, element type, encoding) of every ``tensor<...>`` in ``text``."""
    out = []
    for inner in _bracketed(text, "tensor<"):
        head, encoding = (split_top(inner, 1) + [""])[:2]
        m = _TENSOR.fullmatch(head.strip())
        dims = m.group(1)[:-1].split("x") if m.group(1) else []
        out.append((head.strip(), dims, m.group(2).strip(), encoding.strip()))
    return out
