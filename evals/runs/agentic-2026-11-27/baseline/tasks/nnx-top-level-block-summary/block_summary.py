"""Summary of the top-level submodules of a Flax NNX model (like named_children())."""
import jax
import numpy as np
from flax import nnx


def _num_params(module: nnx.Module) -> int:
    """Number of scalars in the nnx.Param variables of `module` (nested included).

    nnx.state visits each Variable once, so a Param shared inside the
    submodule is counted once. BatchStat, RngState, etc. are filtered out.
    """
    params = nnx.state(module, nnx.Param)
    return int(sum(np.prod(np.shape(leaf), dtype=np.int64) for leaf in jax.tree.leaves(params)))


def block_summary(model: nnx.Module) -> list[tuple[str, str, int]]:
    """[(attribute name, class name, #Param scalars)] for each direct submodule attribute.

    Only attributes whose value is an nnx.Module are listed (Params set directly on
    the model, numbers, arrays, ... are skipped); a submodule stored under two
    names appears under both. Sorted by attribute name.
    """
    rows = []
    for name, value in vars(model).items():
        if isinstance(value, nnx.Module):
            rows.append((name, type(value).__name__, _num_params(value)))
    rows.sort(key=lambda r: r[0])
    return rows
