"""Top-level building blocks of a Flax NNX model, like PyTorch's named_children().

Only the model's own attributes are inspected (vars(model)), so nested modules are not listed and a
submodule stored under two attribute names appears under both. nnx.iter_children / nnx.graph
traversals are not used because they deduplicate shared modules and also yield Variables.
"""

import math

import jax
import numpy as np
from flax import nnx


def _num_scalars(leaf) -> int:
    shape = leaf.shape if hasattr(leaf, "shape") else np.shape(leaf)  # arrays and ShapeDtypeStructs
    return math.prod(shape)


def block_summary(model: nnx.Module) -> list[tuple[str, str, int]]:
    """[(attribute name, class name, number of nnx.Param scalars inside it), ...] sorted by name.

    Lists every attribute of `model` whose value is an nnx.Module (nnx.List / nnx.Dict containers
    of layers are modules too). Variables set directly on the model (e.g. a positional-embedding
    nnx.Param), numbers and other values are skipped. Counts only nnx.Param Variables (subclasses
    included), nested ones too, each shared Variable once per block; BatchStat, RNG and other
    non-Param state is not counted.
    """
    rows = []
    for name, value in vars(model).items():
        if not isinstance(value, nnx.Module):
            continue
        params = nnx.state(value, nnx.Param)  # deduplicates Variables shared inside the block
        count = sum(_num_scalars(leaf) for leaf in jax.tree.leaves(params))
        rows.append((name, type(value).__name__, int(count)))
    return sorted(rows, key=lambda row: row[0])
