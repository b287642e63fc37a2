"""The flax 0.10 walk: State leaves are VariableState objects with .type and .value."""

import jax
from flax import nnx


def count_by_type(model: nnx.Module) -> dict[str, int]:
    state = nnx.state(model)
    counts: dict[str, int] = {}
    for leaf in jax.tree.leaves(state, is_leaf=lambda x: isinstance(x, nnx.VariableState)):
        name = leaf.type.__name__
        counts[name] = counts.get(name, 0) + int(leaf.value.size)
    return counts
