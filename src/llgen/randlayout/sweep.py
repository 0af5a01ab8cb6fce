"""Random conversion plans: pairs planned on the default or a forced path, some with a shared-memory budget."""

from __future__ import annotations

import random

from llgen.core.errors import LlgenError
from llgen.core.target import target as to_target
from llgen.randlayout.ctx import PATHS
from llgen.randlayout.pairs import _pair_from, _pair_seeds
from llgen.randlayout.stats import tile_bytes


def random_cases(n: int, seed: int, target: str, **options) -> list[tuple[str, object]]:
    """``n`` (label, plan) pairs; the label names the pair by seed and index, dtype and requested path
    (default, or forced shuffle or shared; a forced path the planner cannot do is skipped, so indices
    may have gaps). One pair in six also gets a shared-memory budget of a half to an eighth of its tile
    (label ``_b<bytes>``), so that plans in scratch rounds come up often; a tile that cannot be split that
    far is planned without it. ``options`` go to every plan_conversion call (e.g. matrix=False)."""
    from llgen.plan import plan_conversion

    out = []
    for i, s in enumerate(_pair_seeds(seed)):
        if len(out) == n:
            break
        rng = random.Random(s)
        pair = _pair_from(rng, seed, i, target)
        path = rng.choice(PATHS)
        budget = None
        if "smem_budget" not in options and rng.random() < 1 / 6:
            budget = min(max(256, tile_bytes(pair) >> rng.randint(1, 3)), to_target(target).smem_per_cta)
        try:
            try:
                plan = plan_conversion(pair.a, pair.b, pair.dtype, target, path=path, smem_budget=budget, **options)
            except LlgenError as e:
                if budget is None or "cannot be split" not in str(e):
                    raise
                budget = None
                plan = plan_conversion(pair.a, pair.b, pair.dtype, target, path=path, **options)
        except LlgenError as e:  # a forced path that cannot work
            if path is None or "cannot" not in str(e):
                raise
            continue
        out.append((f"{pair.label}_{path or 'auto'}" + (f"_b{budget}" if budget else ""), plan))
    return out


def random_plans(n: int, seed: int, target: str) -> list:
    """``n`` random plans (see `random_cases`)."""
    return [p for _, p in random_cases(n, seed, target)]
