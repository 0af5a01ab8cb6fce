"""Launch the emitted kernels: `<name>_debug` (one tile, every slot of B) and `<name>_kernel` (stacked tiles).

Both take one CTA of ``warps * lanes`` threads per tile; the tile kernel loops over tiles, so its grid is
capped at a few CTAs per multiprocessor and a tile count that is not a multiple of the grid tests the loop.
"""

from __future__ import annotations

import numpy as np

from llgen.emit import dynamic_smem
from llgen.runtime.reference import poison_value


def block_dim(plan) -> int:
    return plan.warps * plan.lanes


def grid_dim(num_tiles: int, sms: int, per_sm: int = 2) -> int:
    return max(1, min(num_tiles, sms * per_sm))


def run_debug(module, plan, name: str, x: np.ndarray) -> np.ndarray:
    """One tile ``x`` (raw, row-major) through ``name``_debug; every slot of B, as ``slot = thread * n_out + j``."""
    slots = module.filled(block_dim(plan) * plan.n_out, x.dtype, poison_value(x.dtype))
    module.launch(f"{name}_debug", 1, block_dim(plan), (module.to_device(x), slots), smem=dynamic_smem(plan))
    module.synchronize()
    return module.to_host(slots)


def run_tiles(module, plan, name: str, xs: np.ndarray, num_tiles: int, grid: int) -> np.ndarray:
    """``num_tiles`` tiles stacked row-major through ``name``_kernel on ``grid`` CTAs; the output tensor."""
    out = module.filled(xs.size, xs.dtype, poison_value(xs.dtype))
    module.launch(f"{name}_kernel", grid, block_dim(plan), (module.to_device(xs), out, int(num_tiles)), smem=dynamic_smem(plan))
    module.synchronize()
    return module.to_host(out)
