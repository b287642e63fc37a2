"""The flax 0.10 walk: the Module.iter_children() method."""

import jax
from flax import nnx


def block_summary(model: nnx.Module) -> list[tuple[str, str, int]]:
    rows = []
    for name, child in model.iter_children():
        count = sum(leaf.size for leaf in jax.tree.leaves(nnx.state(child, nnx.Param)))
        rows.append((str(name), type(child).__name__, int(count)))
    return sorted(rows)
