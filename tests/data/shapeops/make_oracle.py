"""Write tests/data/shapeops/oracle.json: Triton 3.6's own layout inference for the shape ops, on the CPU (no GPU):

    .venv/bin/python tests/data/shapeops/make_oracle.py            # every case (a few minutes)
    .venv/bin/python tests/data/shapeops/make_oracle.py --check 20 # the first 20 again, compared with the file

Each case is a Gluon kernel that loads a tensor in a chosen layout, applies a chain of shape ops (gl.permute,
gl.reshape, gl.join, gl.split, gl.expand_dims, broadcast_to, gl.fp4_to_fp) and stores every intermediate
result (a value nobody stores is deleted by the compiler). It is compiled with triton.compile for sm_90 (NVIDIA
families), gfx942 (wave64: mfma, 64-lane blocked and linear layouts) or gfx1200 (wmma), stopped after the TTGIR
stage; the stored tensor types in that TTGIR are the layouts Triton inferred. A chain Triton refuses records the
error and the op it failed at.

Gluon types a split's results itself, as ``#ttg.slice<{dim = rank-1, parent = <input>}>``, and its verifier only
checks that this equals the inferred layout; so for every case ending in split the inferred layout itself is read
from TTGIR text too: a module whose tt.split has a deliberately wrong result type, which the verifier rejects with
"inferred type(s) '...'" (``split_inferred``).

Cases are drawn from a seeded generator over every distributed family (blocked, linear, slices, mma v2/v3, their
dot operands, mfma, wmma and theirs), ranks 1-4, every op (valid and refused), plus the two chains Triton's mxfp4
kernels run: the scale broadcast (expand_dims -> broadcast -> reshape) and the Hopper value unshuffle
(reshape -> trans -> reshape, rank 8 in the middle).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import tempfile
from pathlib import Path

import triton  # noqa: E402
from triton import knobs  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402
from triton.experimental.gluon.language import amd  # noqa: E402

import llgen.layouts as L  # noqa: E402
from llgen.spec.render import attribute  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "oracle.json"
SEED = 51  # the paper's §5.1
TARGETS = {
    "cuda:90": GPUTarget("cuda", 90, 32),
    "hip:gfx942": GPUTarget("hip", "gfx942", 64),
    "hip:gfx1200": GPUTarget("hip", "gfx1200", 32),
}
MAX_OPS = 6

# ---------------------------------------------------------------------- compiling up to TTGIR
_CAPTURED: list[str] = []


class _Stop(Exception):
    """Raised after the TTGIR stage: nothing later is needed (and the LLVM stages may not accept every layout)."""


def _stop_after_ttgir(backend, stages, options, language, capability):  # noqa: ARG001 - the hook's signature
    make = stages["ttgir"]

    def capture(src, metadata):
        _CAPTURED.append(str(make(src, metadata)))
        raise _Stop

    for name in list(stages):
        if name != "ttgir":
            stages.pop(name)
    stages["ttgir"] = capture


class _TtgirOnly:
    """While active, triton.compile stops after the TTGIR stage and never reads its cache; the knobs are put back
    after (the tests import this module beside others that compile to a cubin)."""

    def __enter__(self):
        self._saved = (knobs.runtime.add_stages_inspection_hook, knobs.compilation.always_compile)
        knobs.runtime.add_stages_inspection_hook = _stop_after_ttgir
        knobs.compilation.always_compile = True
        return self

    def __exit__(self, *exc):
        knobs.runtime.add_stages_inspection_hook, knobs.compilation.always_compile = self._saved
        return False


OPCODE = {"trans": 1, "reshape": 2, "join": 3, "split": 4, "expand_dims": 5, "broadcast": 6, "fp4_to_fp": 7}


@gluon.jit
def _keep(out_ptr, x):
    gl.store(out_ptr + gl.full(x.shape, 0, gl.int32, x.type.layout), x.to(gl.float32))


@gluon.jit
def _permute(x, P: gl.constexpr):
    """gl.permute with the order spelled out per rank (a constexpr tuple does not pass through permute's *dims)."""
    R: gl.constexpr = len(x.shape)
    if R == 1:
        y = gl.permute(x, P[0])
    elif R == 2:
        y = gl.permute(x, P[0], P[1])
    elif R == 3:
        y = gl.permute(x, P[0], P[1], P[2])
    elif R == 4:
        y = gl.permute(x, P[0], P[1], P[2], P[3])
    elif R == 5:
        y = gl.permute(x, P[0], P[1], P[2], P[3], P[4])
    elif R == 6:
        y = gl.permute(x, P[0], P[1], P[2], P[3], P[4], P[5])
    elif R == 7:
        y = gl.permute(x, P[0], P[1], P[2], P[3], P[4], P[5], P[6])
    else:
        y = gl.permute(x, P[0], P[1], P[2], P[3], P[4], P[5], P[6], P[7])
    return y


@gluon.jit
def _apply(x, OP: gl.constexpr, ARG: gl.constexpr):
    if OP == 1:
        y = _permute(x, ARG)
    elif OP == 2:
        y = gl.reshape(x, ARG)
    elif OP == 3:
        y = gl.join(x, x)
    elif OP == 4:
        y, _ = gl.split(x)
    elif OP == 5:
        y = gl.expand_dims(x, ARG)
    elif OP == 6:
        y = x.broadcast_to(ARG)
    else:
        y = gl.fp4_to_fp(x, gl.bfloat16, ARG)
    return y


@gluon.jit
def chain_kernel(
    in_ptr,
    out_ptr,
    SHAPE: gl.constexpr,
    A: gl.constexpr,
    N: gl.constexpr,
    O0: gl.constexpr,
    A0: gl.constexpr,
    O1: gl.constexpr,
    A1: gl.constexpr,
    O2: gl.constexpr,
    A2: gl.constexpr,
    O3: gl.constexpr,
    A3: gl.constexpr,
    O4: gl.constexpr,
    A4: gl.constexpr,
    O5: gl.constexpr,
    A5: gl.constexpr,
):
    """Load SHAPE in layout A (u8), then apply up to six ops, storing the input and every result."""
    x = gl.load(in_ptr + gl.full(SHAPE, 0, gl.int32, A))
    _keep(out_ptr, x)
    if N > 0:
        x = _apply(x, O0, A0)
        _keep(out_ptr, x)
    if N > 1:
        x = _apply(x, O1, A1)
        _keep(out_ptr, x)
    if N > 2:
        x = _apply(x, O2, A2)
        _keep(out_ptr, x)
    if N > 3:
        x = _apply(x, O3, A3)
        _keep(out_ptr, x)
    if N > 4:
        x = _apply(x, O4, A4)
        _keep(out_ptr, x)
    if N > 5:
        x = _apply(x, O5, A5)
        _keep(out_ptr, x)


def compile_chain(layout, shape, ops, warps: int, target: str, ctas: int = 1) -> str:
    """The TTGIR text of the chain kernel, or raise with Triton's error."""
    consts = {"SHAPE": tuple(shape), "A": layout, "N": len(ops)}
    for i in range(MAX_OPS):
        kind, arg = ops[i] if i < len(ops) else ("trans", None)
        consts[f"O{i}"] = OPCODE[kind]
        consts[f"A{i}"] = tuple(arg) if isinstance(arg, (list, tuple)) else arg
    sig = {"in_ptr": "*u8", "out_ptr": "*fp32", **dict.fromkeys(consts, "constexpr")}
    _CAPTURED.clear()
    with _TtgirOnly(), _Stderr() as err:
        try:
            triton.compile(
                GluonASTSource(chain_kernel, sig, constexprs=consts, attrs={}),
                target=TARGETS[target],
                options={"num_warps": warps, "num_ctas": ctas},
            )
        except _Stop:
            return _CAPTURED[0]
        except Exception as e:  # noqa: BLE001 - MLIR prints its diagnostics on fd 2, not in the exception
            while e.__cause__ is not None or e.__context__ is not None:  # Gluon's frontend message is the innermost
                e = e.__cause__ or e.__context__
            failure = e
        else:
            failure = RuntimeError("compilation did not reach the TTGIR stage")
    raise RuntimeError(f"{err.text} {failure}")


class _Stderr:
    """Captures what is written to file descriptor 2 (MLIR's diagnostics) while the block runs, as ``text``."""

    def __enter__(self):
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile("w+")
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)
        self.text = ""
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.seek(0)
        self.text = " ".join(self._file.read().split())
        self._file.close()
        return False


def expand_aliases(text: str) -> tuple[dict[str, str], str]:
    """The module's attribute aliases, written out in each other (TTGIR names nested layouts by alias)."""
    aliases = dict(re.findall(r"^(#[A-Za-z_][\w.]*) = (#ttg\..*)$", text, re.MULTILINE))
    names = sorted(aliases, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(n) + r"(?![\w.])" for n in names)) if names else None

    def full(t: str) -> str:
        for _ in range(16):
            if pattern is None or not pattern.search(t):
                return t
            t = pattern.sub(lambda m: aliases[m.group(0)], t)
        return t

    return {n: full(v) for n, v in aliases.items()}, full


def stored_types(ttgir: str) -> list[tuple[list[int], str]]:
    """(shape, encoding text) of every tt.store's value, in program order."""
    from llgen.cli.commands.layout import tensor_types

    _, full = expand_aliases(ttgir)
    out = []
    for line in ttgir.splitlines():
        if "tt.store " in line:
            shape, enc = tensor_types(line)[-1]
            out.append((list(shape), full(enc)))
    return out


# ---------------------------------------------------------------------- split's inferred layout from TTGIR text
def split_inferred(attr: str, shape, warps: int, lanes: int, target: str, ctas: int = 1) -> str:
    """The layout tt.split infers for a tensor of ``shape`` in ``attr`` (see `ir_inferred`)."""
    op = "%y, %z = tt.split %x : tensor<{dims}xf16, #A> -> tensor<{out}xf16, #W>"
    return ir_inferred(attr, shape, shape[:-1], op, warps, lanes, target, ctas)


def ir_inferred(attr: str, shape, out_shape, op: str, warps: int, lanes: int, target: str, ctas: int = 1) -> str:
    """The result layout Triton's op verifier infers for ``op`` (TTGIR text reading %x of ``shape`` in #A and
    claiming a result of ``out_shape`` in #W), read from its complaint about a deliberately wrong #W; or
    'error: <Triton's message>' where Triton refuses to infer one."""
    from triton._C.libtriton import ir
    from triton.compiler.compiler import make_backend

    dims = "x".join(map(str, shape))
    out = "x".join(map(str, out_shape))
    for guess in _wrong_guesses(len(out_shape), warps, lanes, ctas):
        text = (
            f"#A = {attr}\n#W = {guess}\n"
            f'module attributes {{"ttg.num-ctas" = {ctas} : i32, "ttg.num-warps" = {warps} : i32, '
            f'ttg.target = "{target}", "ttg.threads-per-warp" = {lanes} : i32}} {{\n'
            f"  tt.func public @k(%p: !tt.ptr<f16>) {{\n"
            f"    %a = tt.splat %p : !tt.ptr<f16> -> tensor<{dims}x!tt.ptr<f16>, #A>\n"
            f"    %x = tt.load %a : tensor<{dims}x!tt.ptr<f16>, #A>\n"
            f"    {op.format(dims=dims, out=out)}\n"
            f"    tt.return\n  }}\n}}\n"
        )
        err = _parse_errors(text, make_backend(TARGETS[target]), ir)
        m = re.search(r"inferred type\(s\) '(tensor<.*?)'(?:, 'tensor<| are incompatible)", err)
        if m:
            return re.match(r"tensor<[0-9x]*xf16, (.*)>$", m.group(1)).group(1)
        if err and "inferred type" not in err:  # Triton's refusal, without the temporary file's locations
            return "error: " + " ".join(re.sub(r'loc\("[^"]*":\d+:\d+\): (error: )?', "", err).split())
    raise RuntimeError(f"no wrong guess for {attr} over {shape}")


def ir_probes() -> list[dict]:
    """expand_dims through TTGIR text, below Gluon's own check (which takes only slices): Triton 3.6's C++ inference
    refuses a #ttg.linear and a blocked operand as well, and gives a slice's parent."""
    lin = "#ttg.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [0]], block = []}>"
    blk = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
    probes = [(lin, [256], 0), (lin, [256], 1), (blk, [64, 32], 1), (f"#ttg.slice<{{dim = 1, parent = {blk}}}>", [64], 1)]
    probes.append((f"#ttg.slice<{{dim = 0, parent = {blk}}}>", [32], 1))
    out = []
    for attr, shape, axis in probes:
        res = list(shape)
        res.insert(axis, 1)
        op = "%y = tt.expand_dims %x {{axis = " + str(axis) + " : i32}} : tensor<{dims}xf16, #A> -> tensor<{out}xf16, #W>"
        got = ir_inferred(attr, shape, res, op, 4, 32, "cuda:90")
        out.append({"input": attr, "shape": shape, "op": f"expand_dims={axis}", "result": got})
    return out


def _wrong_guesses(rank: int, warps: int, lanes: int, ctas: int) -> list[str]:
    """Two blocked layouts of the right warp, lane and CTA counts that differ (so one of them is wrong)."""
    one = [1] * rank
    order = list(range(rank - 1, -1, -1))
    cga = f", CGALayout = {[[0] * rank] * (ctas.bit_length() - 1)}" if ctas > 1 else ""
    return [
        f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {[lanes] + one[1:]}, warpsPerCTA = {[warps] + one[1:]}, "
        f"order = {order}{cga}}}>"
        for spt in (one, [2] + one[1:])
    ]


def _parse_errors(text: str, backend, ir) -> str:
    """The diagnostics MLIR prints while parsing ``text`` (captured from file descriptor 2), '' if it parses."""
    ctx = ir.context()
    ir.load_dialects(ctx)
    backend.load_dialects(ctx)
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
        path = f.name
    with _Stderr() as err:
        try:
            ir.parse_mlir_module(path, ctx)
            failed = False
        except Exception:  # noqa: BLE001 - the diagnostics are what we want
            failed = True
    os.unlink(path)
    return err.text if failed else ""


# ---------------------------------------------------------------------- random layouts (llgen encoding, Gluon layout)
def to_gluon(enc):
    """The Gluon layout object of one of our encodings."""
    if isinstance(enc, L.Blocked):
        return gl.BlockedLayout(
            list(enc.size_per_thread),
            list(enc.threads_per_warp),
            list(enc.warps_per_cta),
            list(enc.order),
            cga_layout=[list(v) for v in enc.cga_layout],
        )
    if isinstance(enc, L.Slice):
        return gl.SliceLayout(enc.dim, to_gluon(enc.parent))
    if isinstance(enc, L.DotOperand):
        return gl.DotOperandLayout(enc.operand_index, to_gluon(enc.parent), enc.k_width)
    if isinstance(enc, L.NvidiaMma):
        return gl.NVMMADistributedLayout(
            [enc.version, 0], list(enc.warps_per_cta), list(enc.instr_shape), cga_layout=[list(v) for v in enc.cga_layout]
        )
    if isinstance(enc, L.AmdMfma):
        return amd.AMDMFMALayout(
            enc.version,
            list(enc.instr_shape),
            enc.transposed,
            list(enc.warps_per_cta),
            element_bitwidth=enc.element_bitwidth,
            tiles_per_warp=list(enc.tiles_per_warp),
            cga_layout=[list(v) for v in enc.cga_layout],
        )
    if isinstance(enc, L.AmdWmma):
        return amd.AMDWMMALayout(
            enc.version,
            enc.transposed,
            list(enc.warps_per_cta),
            instr_shape=list(enc.instr_shape),
            tiles_per_warp=list(enc.tiles_per_warp),
            cga_layout=[list(v) for v in enc.cga_layout],
        )
    if isinstance(enc, L.Linear):
        lay = enc.native(enc.rank)
        return gl.DistributedLinearLayout(
            [list(v) for v in enc.register],
            [list(v) for v in enc.lane],
            [list(v) for v in enc.warp],
            [list(v) for v in enc.block],
            list(lay.shape),
        )
    raise TypeError(type(enc).__name__)


def pow2(rng, lo, hi):
    return 1 << rng.randint(lo, hi)


def split_bits(rng, bits, rank):
    parts = [0] * rank
    for _ in range(bits):
        parts[rng.randrange(rank)] += 1
    return [1 << p for p in parts]


def rand_order(rng, rank):
    order = list(range(rank))
    rng.shuffle(order)
    return order


def rand_cga(rng, rank, p=0.15):
    if p == 0 or rng.random() >= p:
        return ()
    ctas = split_bits(rng, rng.randint(1, 2), rank)
    splits = [c >> rng.randint(0, c.bit_length() - 1) for c in ctas]
    return L.cga_from_split(ctas, splits, rand_order(rng, rank))


def blocked(rng, rank, warps, lanes, cga_p=0.15):  # clusters only on NVIDIA: gfx942 runs one CTA
    return L.Blocked(
        tuple(pow2(rng, 0, 2) for _ in range(rank)),
        tuple(split_bits(rng, lanes.bit_length() - 1, rank)),
        tuple(split_bits(rng, warps.bit_length() - 1, rank)),
        tuple(rand_order(rng, rank)),
        rand_cga(rng, rank, cga_p),
    )


def linear(rng, shape, warps, lanes):
    """A random surjective distributed linear layout over ``shape`` (zero bases pad lanes and warps)."""
    rank = len(shape)
    vecs = [[(1 << i) if e == d else 0 for e in range(rank)] for d in range(rank) for i in range(shape[d].bit_length() - 1)]
    vecs += [[0] * rank] * rng.randint(0, 1)
    rng.shuffle(vecs)
    nl, nw = lanes.bit_length() - 1, warps.bit_length() - 1
    lane, vecs = (vecs + [[0] * rank] * nl)[:nl], vecs[nl:]
    warp, vecs = (vecs + [[0] * rank] * nw)[:nw], vecs[nw:]
    return L.Linear(tuple(map(tuple, vecs)), tuple(map(tuple, lane)), tuple(map(tuple, warp)), ())


def mma(rng, rank, warps):
    if rank == 2 and warps >= 4 and rng.random() < 0.4:
        wpc = rng.choice([(warps, 1), (4, warps // 4)])
        return L.NvidiaMma(3, wpc, (16, rng.choice([16, 32, 64, 128]), 16), rand_cga(rng, 2, 0.1))
    wpc = tuple(split_bits(rng, warps.bit_length() - 1, rank))
    return L.NvidiaMma(2, wpc, (1,) * (rank - 2) + (16, 8), rand_cga(rng, rank, 0.1))


def mfma(rng, rank, warps):
    mn = rng.choice([(32, 32), (16, 16)])
    tr = rng.random() < 0.5
    return L.AmdMfma(
        tuple(split_bits(rng, warps.bit_length() - 1, rank)),
        tuple(split_bits(rng, rng.randint(0, 1), rank)),
        (),
        (*mn, rng.choice([8, 16])),
        tr,
        32,
        rng.choice([3, 4]),
    )


def wmma(rng, rank, warps):
    version = rng.choice([1, 2, 3])
    return L.AmdWmma(
        tuple(split_bits(rng, warps.bit_length() - 1, rank)),
        tuple(split_bits(rng, rng.randint(0, 1), rank)),
        (),
        version,
        rng.random() < 0.5,
        (16, 16, rng.choice(L.amd.WMMA_INSTR_K[version])),
    )


def dot(rng, parent):
    if isinstance(parent, L.NvidiaMma):
        op = 0 if parent.version == 3 else rng.choice([0, 1])
        return L.DotOperand(op, parent, rng.choice([1, 2, 4, 8]))
    if isinstance(parent, L.AmdWmma):
        return L.DotOperand(rng.choice([0, 1]), parent, rng.choice(L.amd.WMMA_K_WIDTHS[parent.version]))
    return L.DotOperand(rng.choice([0, 1]), parent, rng.choice([4, 8, 16]))


def matrix_shape(rng, rank, lo=4, hi=7):
    return [pow2(rng, 0, 2) for _ in range(rank - 2)] + [pow2(rng, lo, hi) for _ in range(2)]


def any_shape(rng, rank, lo=0, hi=6, ones=0.15):
    return [1 if rng.random() < ones else pow2(rng, max(lo, 1), hi) for _ in range(rank)]


FAMILIES = ["blocked", "linear", "slice", "mma", "mma_dot", "mfma", "mfma_dot", "wmma", "wmma_dot"]


def draw_layout(rng, family, rank=None):
    """(encoding, shape, warps, target, ctas) of a random tensor of ``family``."""
    warps = rng.choice([1, 2, 4, 4, 8])
    if family in ("blocked", "linear"):
        rank = rank or rng.choice([1, 2, 3, 3, 4, 4])
        target, lanes = ("hip:gfx942", 64) if rng.random() < 0.2 else ("cuda:90", 32)
        shape = any_shape(rng, rank, hi=max(2, 8 - rank))
        if family == "blocked":
            enc = blocked(rng, rank, warps, lanes, 0.15 if target == "cuda:90" else 0)
        else:
            enc = linear(rng, shape, warps, lanes)
        ctas = 1 << len(getattr(enc, "cga_layout", ()))
        return enc, shape, warps, target, ctas
    if family == "slice":
        prank = rank + 1 if rank else rng.choice([2, 3, 4, 4])
        kind = rng.choice(["blocked", "blocked", "linear", "mma", "mma_dot", "mfma", "wmma"])
        if kind in ("blocked", "linear") or prank == 4:
            kind = kind if kind in ("blocked", "linear") else "blocked"
            parent, pshape, warps, target, ctas = draw_layout(rng, kind, prank)
        else:
            parent, pshape, warps, target, ctas = draw_layout(rng, kind, min(prank, 3))
            prank = parent.rank
        dim = rng.randrange(prank)
        enc = L.Slice(dim, parent)
        if isinstance(parent, L.Linear):
            try:
                parent.check_cga_split()
            except Exception:  # noqa: BLE001
                return draw_layout(rng, family, rank)
        shape = [s for d, s in enumerate(pshape) if d != dim]
        return enc, shape, warps, target, ctas
    rank = rank if rank in (2, 3) else rng.choice([2, 2, 3])
    if family in ("mma", "mma_dot"):
        warps = rng.choice([4, 8]) if rng.random() < 0.5 else warps
        parent = mma(rng, rank, warps)
        target = "cuda:90"
        if parent.version == 3:
            rank = 2
    elif family in ("mfma", "mfma_dot"):
        parent, target = mfma(rng, rank, warps), "hip:gfx942"
    else:
        parent, target = wmma(rng, rank, warps), "hip:gfx1200"
    shape = matrix_shape(rng, rank)
    enc = dot(rng, parent) if family.endswith("_dot") else parent
    ctas = 1 << len(getattr(parent, "cga_layout", ()))
    return enc, shape, warps, target, ctas


# ---------------------------------------------------------------------- random ops
def rand_reshape(rng, shape):
    """A random shape of as many elements, rank 1-4 (sometimes with size-1 dims)."""
    bits = sum(s.bit_length() - 1 for s in shape)
    rank = rng.randint(1, 4)
    out = split_bits(rng, bits, rank)
    if rng.random() < 0.15:
        out.insert(rng.randint(0, len(out)), 1)
    return out


KINDS = ["trans", "reshape", "join", "split", "expand_dims", "broadcast", "fp4_to_fp"]


def rand_op(rng, shape, enc, kind=None, valid=0.85):
    """A random op for a tensor of ``shape`` in ``enc`` (of ``kind``, else any whose shape fits): mostly ones Triton
    infers, some it refuses (expand_dims of a non-slice or along another dim, split with the pair on lanes)."""
    rank = len(shape)
    if kind is None:
        kinds = ["trans", "reshape", "join", "fp4_to_fp"]
        kinds += ["split"] if rank > 1 and shape[-1] == 2 else []
        kinds += ["expand_dims"] if isinstance(enc, L.Slice) or rng.random() < 0.3 else []
        kinds += ["broadcast", "broadcast"] if 1 in shape else []
        kind = rng.choice(kinds)
    if kind == "trans":
        perm = rand_order(rng, rank)
        if perm == list(range(rank)) and rank > 1 and rng.random() < 0.8:
            perm = perm[::-1]
        return ("trans", perm)
    if kind == "reshape":
        return ("reshape", rand_reshape(rng, shape))
    if kind == "expand_dims":
        axis = enc.dim if isinstance(enc, L.Slice) and rng.random() < valid else rng.randint(0, rank)
        return ("expand_dims", axis)
    if kind == "broadcast":
        return ("broadcast", [s if s != 1 else pow2(rng, 1, 5) for s in shape])
    if kind == "fp4_to_fp":
        return ("fp4_to_fp", rng.randrange(rank))
    return (kind, None)


def _setup_for(rng, kind, enc, shape, warps, lanes):
    """(enc, shape, ops before) so that ``kind`` applies: a last dim of 2 for split (or a join first), a size-1 dim
    for broadcast (or a reshape that makes one first)."""
    if kind == "split" and (len(shape) < 2 or shape[-1] != 2):
        if len(shape) > 1:
            tried = shape[:-1] + [2]
            tried_enc = linear(rng, tried, warps, lanes) if isinstance(enc, L.Linear) else enc
            if _fits(tried_enc, tried) and rng.random() < 0.7:
                return tried_enc, tried, []
        if math.prod(shape) < 2 or rng.random() < 0.6:
            return enc, shape, [("join", None)]
        return enc, shape, [("reshape", [*rand_reshape(rng, [math.prod(shape) // 2]), 2])]
    if kind == "broadcast" and 1 not in shape:
        d = rng.randrange(len(shape))
        tried = [1 if e == d else s for e, s in enumerate(shape)]
        tried_enc = linear(rng, tried, warps, lanes) if isinstance(enc, L.Linear) else enc
        if _fits(tried_enc, tried):
            return tried_enc, tried, []
        return enc, shape, [("reshape", [*shape, 1] if rng.random() < 0.5 else [1, *shape])]
    return enc, shape, []


def op_text(op) -> str:
    kind, arg = op
    if arg is None:
        return kind
    if isinstance(arg, int):
        return f"{kind}={arg}"
    return f"{kind}=" + ("," if kind == "trans" else "x").join(map(str, arg))


def shape_after(shape, op):
    from llgen.shapeops import parse_op

    return list(parse_op(op_text(op)).result_shape(shape))


# ---------------------------------------------------------------------- cases
def random_cases(rng, per_pair):
    """``per_pair`` random cases for every (op, family) pair: the op first (after what it needs: a join or reshape
    that makes a pair dim or a size-1 dim), then, in a third of them, one or two more random ops."""
    i = 0
    for kind in KINDS:
        for family in FAMILIES:
            made = 0
            while made < per_pair:
                enc, shape, warps, target, ctas = draw_layout(rng, family)
                lanes = TARGETS[target].warp_size
                enc, shape, ops = _setup_for(rng, kind, enc, shape, warps, lanes)
                if not _fits(enc, shape):
                    continue
                cur = list(shape)
                for op in ops:
                    cur = shape_after(cur, op)
                ops.append(rand_op(rng, cur, enc if not ops else None, kind))
                for _ in range(0 if rng.random() < 0.67 else rng.randint(1, 2)):
                    if ops[-1][0] in ("split", "expand_dims"):
                        break  # Gluon types split's result itself; expand_dims of a non-slice ends the chain anyway
                    try:
                        cur = shape_after(cur, ops[-1])
                    except Exception:  # noqa: BLE001 - a shape Triton's frontend refuses: the chain ends there
                        break
                    op = rand_op(rng, cur, None)
                    if op[0] == "fp4_to_fp" and any(o[0] == "fp4_to_fp" for o in ops):
                        op = ("trans", list(range(len(cur)))[::-1])  # fp4_to_fp reads packed u8: once per chain
                    ops.append(op)
                yield {
                    "id": f"r{i:03d}-{kind}-{family}",
                    "family": family,
                    "enc": enc,
                    "shape": shape,
                    "warps": warps,
                    "target": target,
                    "ctas": ctas,
                    "ops": ops,
                }
                i += 1
                made += 1


def _fits(enc, shape) -> bool:
    """Whether llgen (and so Triton) builds the layout over the shape at all."""
    try:
        enc.to_linear(shape)
        return math.prod(shape) <= 1 << 16
    except Exception:  # noqa: BLE001
        return False


def chain_cases():
    """The mxfp4 chains Triton's kernels run, over several layouts."""
    out = []
    # the scale broadcast: scales [M, K/32] in a slice of the values' layout reshaped to [M, K/32, 32]
    values = [
        (L.DotOperand(0, L.NvidiaMma(2, (2, 2), (16, 8)), 8), [64, 128], 4, "cuda:90"),
        (L.DotOperand(1, L.NvidiaMma(2, (4, 1), (16, 8)), 8), [128, 64], 4, "cuda:90"),
        (L.DotOperand(0, L.NvidiaMma(3, (4, 1), (16, 64, 16)), 8), [64, 128], 4, "cuda:90"),
        (L.DotOperand(0, L.AmdMfma((2, 2), (1, 1), (), (16, 16, 32), True, 32, 4), 16), [64, 128], 4, "hip:gfx942"),
        (L.Blocked((1, 8), (4, 8), (4, 1), (1, 0)), [64, 128], 4, "cuda:90"),
        (L.Blocked((1, 16), (8, 4), (2, 2), (1, 0)), [32, 256], 4, "cuda:90"),
    ]
    for n, (val, (m, k), warps, target) in enumerate(values):
        from llgen.shapeops import TensorLayout

        parent = TensorLayout(val, (m, k)).reshape((m, k // 32, 32)).encoding
        lanes = TARGETS[target].warp_size
        for p_i, par in enumerate([parent, L.Blocked((1, 1, 8), (lanes // 4, 1, 4), (warps, 1, 1), (2, 1, 0))]):
            scale = L.Slice(2, par)
            ops = [("expand_dims", 2), ("broadcast", [m, k // 32, 32]), ("reshape", [m, k])]
            out.append(
                {
                    "id": f"c-scale{n}{p_i}",
                    "family": "chain:mxfp4_scale",
                    "enc": scale,
                    "shape": [m, k // 32],
                    "warps": warps,
                    "target": target,
                    "ctas": 1,
                    "ops": ops,
                }
            )
    # the Hopper value unshuffle (unswizzle_mxfp4_value_hopper on u8, op_idx 0 and 1, mma v2 and v3)
    inputs = [
        L.Blocked((1, 16), (8, 4), (4, 1), (1, 0)),
        L.Blocked((1, 4), (4, 8), (2, 2), (1, 0)),
        L.Blocked((4, 4), (16, 2), (1, 4), (0, 1)),
        L.DotOperand(0, L.NvidiaMma(2, (4, 1), (16, 8)), 4),
        L.DotOperand(1, L.NvidiaMma(2, (1, 4), (16, 8)), 4),
    ]
    for n, enc in enumerate(inputs):
        for version in (2, 3):
            for op_idx in (0, 1):
                m, k = (64, 256)
                shape = [m, k] if op_idx == 0 else [k, m]
                kw = 4 if version == 2 else 1
                ops = [("trans", [1, 0])] if op_idx == 1 else []
                ops += [
                    ("reshape", [m // 4, 4, k // 128, 2, 4, 8 // kw, 2, kw]),
                    ("trans", [0, 6, 1, 3, 2, 5, 4, 7]),
                    ("reshape", [m * 4, k // 4]),
                ]
                ops += [("trans", [1, 0])] if op_idx == 1 else []
                out.append(
                    {
                        "id": f"c-hopper{n}v{version}op{op_idx}",
                        "family": "chain:hopper_value",
                        "enc": enc,
                        "shape": shape,
                        "warps": 4,
                        "target": "cuda:90",
                        "ctas": 1,
                        "ops": ops,
                    }
                )
    # the default blocked layout (one element per thread, row-major), which reshapes to the new shape's default,
    # over one CTA and over clusters
    from llgen.shapeops.legacy_reshape import default_blocked

    drng = random.Random(SEED + 1)
    for n in range(16):
        rank, warps, ctas = drng.randint(1, 4), drng.choice([1, 2, 4, 8]), drng.choice([1, 1, 2, 4])
        shape = [pow2(drng, 0, 12 // rank) for _ in range(rank)]
        enc = default_blocked(shape, warps, 32, ctas)
        out.append(
            {
                "id": f"c-default{n:02d}",
                "family": "chain:default_blocked",
                "enc": enc,
                "shape": shape,
                "warps": warps,
                "target": "cuda:90",
                "ctas": ctas,
                "ops": [("reshape", rand_reshape(drng, shape)), ("reshape", rand_reshape(drng, shape))],
            }
        )
    # fp4 upcast after the unshuffle, and the quirk of a register past the result's edge
    out.append(
        {
            "id": "c-fp4-edge",
            "family": "chain:fp4",
            "enc": L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)),
            "shape": [16, 64],
            "warps": 4,
            "target": "cuda:90",
            "ctas": 1,
            "ops": [("fp4_to_fp", 0)],
        }
    )
    out.append(
        {
            "id": "c-split-spt4",
            "family": "chain:split",
            "enc": L.Blocked((1, 4), (8, 4), (4, 1), (1, 0)),
            "shape": [64, 2],
            "warps": 4,
            "target": "cuda:90",
            "ctas": 1,
            "ops": [("split", None)],
        }
    )
    return out


def run_case(case) -> dict:
    """The case as JSON: its input as Triton prints it, and per op the result (shape, layout) or the error."""
    enc, shape, warps, target, ctas, ops = (case[k] for k in ("enc", "shape", "warps", "target", "ctas", "ops"))
    lanes = TARGETS[target].warp_size
    rec = {
        "id": case["id"],
        "family": case["family"],
        "input": attribute(enc),
        "shape": shape,
        "warps": warps,
        "lanes": lanes,
        "ctas": ctas,
        "target": target,
        "ops": [op_text(o) for o in ops],
    }
    g = to_gluon(enc)
    steps, error = None, None
    for n in range(len(ops), -1, -1):  # the longest prefix Triton compiles
        try:
            ttgir = compile_chain(g, shape, ops[:n], warps, target, ctas)
        except Exception as e:  # noqa: BLE001 - Triton's refusal is the datum
            error = error or _one_line(e)
            continue
        steps = stored_types(ttgir)
        break
    if steps is None:
        rec["input_error"] = error
        return rec
    rec["input_printed"] = steps[0][1]
    rec["steps"] = [{"shape": s, "layout": t} for s, t in steps[1:]]
    if len(steps) - 1 < len(ops):
        rec["failed_at"] = len(steps) - 1
        rec["error"] = error
    if ops and ops[-1][0] == "split" and len(steps) - 1 >= len(ops) - 1:
        src_shape, src_attr = steps[len(ops) - 1]
        rec["split_inferred"] = split_inferred(src_attr, src_shape, warps, lanes, target, ctas)
    return rec


def _one_line(e: BaseException) -> str:
    """Triton's first error message, without the source location it points at."""
    text = " ".join(str(e).split())
    m = re.search(r"error: (.*?)(?= \S+\.py:\d+:\d+: error| [a-zA-Z_].{0,80}\^|$)", text)
    return (m.group(1) if m else text)[:400]


def all_cases():
    rng = random.Random(SEED)
    return [*chain_cases(), *random_cases(rng, 10)]


def run_from(start: int, path: str) -> None:
    """Worker: run cases from ``start`` on, appending each result to ``path`` as a JSON line as soon as it is known
    (a Triton abort kills the worker; the parent then records the case it died on and starts another)."""
    cases = all_cases()
    with open(path, "a") as f:
        for c in cases[start:]:
            f.write(json.dumps(run_case(c)) + "\n")
            f.flush()


def _worker(*args: str) -> dict | None:
    """Run this script with ``args`` in a fresh process: its JSON answer, or None where Triton aborted it."""
    import subprocess

    res = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    return json.loads(res.stdout) if res.returncode == 0 else None


def probe(index: int, prefix: int) -> None:
    """Worker: case ``index`` with only its first ``prefix`` ops, as JSON on stdout."""
    c = dict(all_cases()[index])
    c["ops"] = c["ops"][:prefix]
    print(json.dumps(run_case(c)))


def probe_split(args_json: str) -> None:
    """Worker: split_inferred of (attr, shape, warps, lanes, target, ctas), as JSON on stdout."""
    print(json.dumps(split_inferred(*json.loads(args_json))))


def aborted_record(index: int, case: dict) -> dict:
    """The record of a case whose compilation aborted the process: the op it aborts at (the longest prefix that
    compiles, each tried in a fresh process), and for a split there the inferred layout read from TTGIR text (which
    may abort too: Gluon's own slice typing aborts where the inference does not)."""
    n = len(case["ops"])
    rec = None
    for k in range(n - 1, -1, -1):
        rec = _worker("--probe", str(index), str(k))
        if rec is not None:
            break
    if rec is None:
        raise RuntimeError(f"case {case['id']} aborts even without ops")
    rec["ops"] = [op_text(o) for o in case["ops"]]
    rec["aborted_at"] = k
    rec["error"] = "Triton aborted the process (a C++ assertion or fatal error)"
    rec.pop("failed_at", None)
    if case["ops"][k][0] == "split" and "steps" in rec:
        shape, attr = (rec["steps"][-1]["shape"], rec["steps"][-1]["layout"]) if rec["steps"] else (rec["shape"], rec["input"])
        got = _worker("--probe-split", json.dumps([attr, shape, rec["warps"], rec["lanes"], rec["target"], rec["ctas"]]))
        rec["split_inferred"] = got if got is not None else "aborted"
    return rec


def run_all() -> list[dict]:
    """Every case, in worker processes: Triton aborts the process on some layouts (an assertion in C++)."""
    import subprocess

    cases = all_cases()
    path = Path(tempfile.mkdtemp(prefix="llgen-shapeops-")) / "results.jsonl"
    path.write_text("")
    done: list[dict] = []
    while len(done) < len(cases):
        subprocess.run([sys.executable, __file__, "--worker", str(len(done)), str(path)], check=False)
        done = [json.loads(line) for line in path.read_text().splitlines()]
        print(f"{len(done)}/{len(cases)}", file=sys.stderr, flush=True)
        if len(done) < len(cases):  # the worker died on this case
            rec = aborted_record(len(done), cases[len(done)])
            with open(path, "a") as f:
                f.write(json.dumps(rec) + "\n")
            done.append(rec)
    return done


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", type=int, default=0, help="recompute the first N cases and compare with the file")
    ap.add_argument("--only", default=None, help="run only the cases whose id contains this text (prints them)")
    ap.add_argument("--worker", nargs=2, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--probe", nargs=2, type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--probe-split", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        run_from(int(args.worker[0]), args.worker[1])
        return
    if args.probe:
        probe(*args.probe)
        return
    if args.probe_split:
        probe_split(args.probe_split)
        return
    cases = all_cases()
    if args.only:
        for c in cases:
            if args.only in c["id"]:
                print(json.dumps(run_case(c)))
        return
    if args.check:
        have = {c["id"]: c for c in json.loads(OUT.read_text())["cases"]}
        bad = [c["id"] for c in cases[: args.check] if run_case(c) != have.get(c["id"])]
        print("all equal" if not bad else f"differ: {bad}")
        sys.exit(1 if bad else 0)
    out = run_all()
    doc = {
        "triton": triton.__version__,
        "generated_by": "tests/data/shapeops/make_oracle.py",
        "seed": SEED,
        "ir_probes": ir_probes(),
        "cases": out,
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":")).replace('{"id"', '\n{"id"') + "\n")
    print(f"wrote {len(out)} cases to {OUT}")


if __name__ == "__main__":
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="llgen-shapeops-"))  # kernels are never cached
    main()
