"""Count the scalars a Flax NNX model holds, per Variable type.

``nnx.state(model)`` walks the module graph (nested modules, ``nnx.List``/``nnx.Dict`` entries) and
returns every Variable once, even when the same Variable or layer is reachable from two attributes.
Since flax 0.11 its leaves are the model's own ``nnx.Variable`` objects (``nnx.Param``,
``nnx.BatchStat``, ``nnx.RngKey``, user subclasses, ...), so the Variable's class is available
directly: no ``VariableState`` / ``.type`` indirection any more.

Example::

    class Ema(nnx.Variable):
        pass

    class Net(nnx.Module):
        def __init__(self, rngs):
            self.linear = nnx.Linear(3, 4, rngs=rngs)       # 12 + 4 Param scalars
            self.norm = nnx.BatchNorm(4, rngs=rngs)          # 8 Param, 8 BatchStat scalars
            self.ema = Ema(jnp.zeros((4,)))                  # 4 Ema scalars

    count_by_type(Net(nnx.Rngs(0)))   # {'Param': 24, 'BatchStat': 8, 'Ema': 4}
"""

from __future__ import annotations

import math

import jax
import numpy as np
from flax import nnx


def _num_elements(value) -> int:
    """Number of array elements in a Variable's value (an array, a scalar, or a small pytree of them)."""
    total = 0
    for leaf in jax.tree.leaves(value):
        shape = getattr(leaf, "shape", None)  # jax/numpy arrays, typed PRNG key arrays
        total += math.prod(shape) if shape is not None else int(np.size(leaf))
    return total


def count_by_type(model: nnx.Module) -> dict[str, int]:
    """Map each Variable class name in ``model``'s state to the total number of elements it holds.

    Keys are class names such as ``"Param"``, ``"BatchStat"``, ``"RngKey"`` or the name of a user
    ``nnx.Variable`` subclass; types the model does not hold are absent. Shared Variables are counted
    once.
    """
    state = nnx.state(model)  # every Variable of the model, each shared one once
    variables = jax.tree.leaves(state, is_leaf=lambda x: isinstance(x, nnx.Variable))
    counts: dict[str, int] = {}
    for variable in variables:
        if not isinstance(variable, nnx.Variable):
            continue
        name = type(variable).__name__
        counts[name] = counts.get(name, 0) + _num_elements(variable.get_value())
    return counts
