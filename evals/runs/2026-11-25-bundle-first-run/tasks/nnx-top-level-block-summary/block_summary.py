"""A summary of a Flax NNX model's top-level building blocks, like PyTorch's named_children().

For every attribute of the model whose value is an ``nnx.Module`` (its direct children only), the
summary gives the attribute name, the class name and the number of scalars in the ``nnx.Param``
Variables inside that submodule, nested submodules included.

Why the attributes are read with ``vars(model)`` rather than ``nnx.iter_children(model)``:
NNX walks the model as a graph and visits a shared node once, so a submodule stored under two
attribute names would appear only once there; the summary must list it under both names.
Attributes holding Variables (e.g. an ``nnx.Param`` positional embedding set directly on the
model), arrays, numbers, strings or plain containers are not ``nnx.Module`` instances and are
skipped. (``nnx.List`` and ``nnx.Dict`` are modules, so a block stored as one of them is listed,
with all the parameters it holds.)
"""

import jax
import numpy as np
from flax import nnx

__all__ = ["block_summary"]


def _param_scalars(module: nnx.Module) -> int:
    """Number of scalars in the nnx.Param Variables inside ``module``, nested modules included.

    ``nnx.state(module, nnx.Param)`` keeps only Params (BatchNorm statistics, RNG keys and counts
    and other Variable types are filtered out) and holds each Variable once, even if it is shared
    inside the module. As a pytree its leaves are the parameter arrays.
    """
    params = nnx.state(module, nnx.Param)
    return sum(int(np.size(leaf)) for leaf in jax.tree.leaves(params))


def block_summary(model: nnx.Module) -> list[tuple[str, str, int]]:
    """(attribute name, class name, Param scalar count) per submodule attribute, sorted by name."""
    rows = []
    for name, value in vars(model).items():
        if isinstance(value, nnx.Module):
            rows.append((name, type(value).__name__, _param_scalars(value)))
    return sorted(rows, key=lambda row: row[0])


if __name__ == "__main__":
    import jax.numpy as jnp

    class Encoder(nnx.Module):
        def __init__(self, *, rngs: nnx.Rngs):
            self.pos_embedding = nnx.Param(jnp.zeros((16, 8)))  # a Param on the model: not a block
            self.embed = nnx.Embed(100, 8, rngs=rngs)
            self.norm = nnx.BatchNorm(8, rngs=rngs)  # scale + bias count; mean/var do not
            self.head = nnx.Linear(8, 4, rngs=rngs)
            self.tied_head = self.head  # the same module under a second name
            self.dropout_rate = 0.1  # a number: not a block

    for row in block_summary(Encoder(rngs=nnx.Rngs(0))):
        print(row)
    # ('embed', 'Embed', 800)
    # ('head', 'Linear', 36)
    # ('norm', 'BatchNorm', 16)
    # ('tied_head', 'Linear', 36)
