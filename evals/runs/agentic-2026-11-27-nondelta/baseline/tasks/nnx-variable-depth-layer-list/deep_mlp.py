"""Flax NNX MLP with a variable number of hidden layers.

In current Flax NNX a plain Python list assigned to a Module attribute is
treated as *static* metadata, not as a container of sub-modules/parameters
(Flax refuses a plain list that holds Modules or arrays).  The NNX equivalent
of PyTorch's ``nn.ModuleList`` is ``nnx.List``: its elements are graph nodes,
so their ``nnx.Param`` variables show up in ``nnx.state(model, nnx.Param)``
and are trained by an ``nnx.Optimizer(model, tx, wrt=nnx.Param)``.
"""

from __future__ import annotations

import jax
from flax import nnx


class MLP(nnx.Module):
    """din -> hidden[0] -> ... -> hidden[-1] -> dout, ReLU between layers."""

    def __init__(self, din: int, hidden: list[int], dout: int, *, rngs: nnx.Rngs):
        sizes = [din, *hidden, dout]
        # One attribute, length len(hidden) + 1, like torch.nn.ModuleList.
        self.layers = nnx.List(
            [nnx.Linear(n_in, n_out, rngs=rngs) for n_in, n_out in zip(sizes[:-1], sizes[1:])]
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)
