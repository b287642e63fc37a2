"""Direct submodules with nnx.iter_module_children (nnx.iter_children also yields Variable attributes)."""

import jax
from flax import nnx


def block_summary(model: nnx.Module) -> list[tuple[str, str, int]]:
    rows = []
    for name, child in nnx.iter_module_children(model):
        count = sum(leaf.size for leaf in jax.tree.leaves(nnx.state(child, nnx.Param)))
        rows.append((str(name), type(child).__name__, int(count)))
    return sorted(rows)
