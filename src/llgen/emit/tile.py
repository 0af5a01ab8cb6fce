"""A shared tile (llgen.plan.tile: a store and a load of one shared layout) as one vendorable header holding both,
printed by endpoint.j2 from each side's endpoint context."""

from __future__ import annotations

import hashlib
import json
import re

from llgen.core.errors import LlgenError
from llgen.emit import endpoint
from llgen.emit.environment import environment
from llgen.emit.packed import packing
from llgen.plan.tile import TilePlan


def name(tile: TilePlan, kinds: tuple[str, str] | None = None) -> str:
    """``tile_<A's kind>2<B's kind>_<dtype>_<shape>_<hash>``: the hash covers A, S (with its padding), B, the dtype,
    the target and the warps; without kinds the name says ``tile``."""
    st, ld = tile.store, tile.load
    key = json.dumps(
        [st.dist.to_dict(), st.shared.to_dict(), tile.padding, ld.dist.to_dict(), st.dtype.name, st.target.name, st.warps],
        sort_keys=True,
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    what = "_" + "2".join(re.sub(r"[^A-Za-z0-9]", "", k) or "x" for k in kinds) if kinds else ""
    if tile.packed is not None:  # 4-bit: named by its elements, hashed by its bytes' plans
        return f"tile{what}_{tile.packed.dtype.name}_{'x'.join(map(str, tile.packed.src.shape))}_{digest}"
    return f"tile{what}_{st.dtype.name}_{'x'.join(map(str, st.dist.shape))}_{digest}"


def tile_context(tile: TilePlan, name: str, command: str | None = None) -> dict:
    """The context endpoint.j2 prints for a tile: each side's own (st, ld), and what the header holds once."""
    st, ld = endpoint.context(tile.store, name, command), endpoint.context(tile.load, name, command)
    align = max((tile.store, tile.load), key=lambda p: p.smem_align)
    ctx = {k: v for k, v in st.items() if k not in ("_ctx", "store")}
    ctx.update(
        tile=True,
        st=st,
        ld=ld,
        in_kernel=False,
        helpers=sorted(set(st["helpers"]) | set(ld["helpers"])),
        matrix_ops=st["matrix_ops"] + ld["matrix_ops"],
        smem_align=align.smem_align,
        align_reason=align.align_reason,
        global_align=max(st["global"]["width"], ld["global"]["width"]) * tile.dtype.bytes,
        packed=None if tile.packed is None else packing(tile.packed),
    )
    return ctx


def render(tile: TilePlan, form: str, kernel_name: str, command: str | None = None, header_file: str | None = None) -> str:
    """The vendorable header of a shared tile: kSmemBytes, kSmemAlign, store/store_bits (A -> S), load/load_bits
    (S -> B), load_a and store_b for dense global tiles, coord_a and coord_b. A tile has no kernel of its own: each
    side's check kernel is its endpoint's."""
    if form != "header" or header_file is not None:
        raise LlgenError("a tile is emitted as one header (form header); its check kernels are its store's and its load's.")
    ctx = tile_context(tile, kernel_name, command)
    return environment().get_template("endpoint.j2").render(**ctx)


def dynamic_smem(tile: TilePlan) -> int:
    """Dynamic shared memory a kernel over the tile takes at launch: its store's (one S)."""
    return endpoint.dynamic_smem(tile.store)
