"""NNX MLP with a variable number of layers held in one list attribute.

In current Flax NNX, attributes are treated as static (part of the graph definition) unless they are
marked as data; a plain Python ``list`` of layers is therefore not (reliably) seen as holding
parameters. ``nnx.List`` is the NNX equivalent of ``torch.nn.ModuleList``: its entries are data, so all
the layers' ``nnx.Param``s appear in ``nnx.state(model)`` and are trained by an
``nnx.Optimizer(model, tx, wrt=nnx.Param)``.
"""

from __future__ import annotations

import jax
from flax import nnx

try:
    _List = nnx.List  # Flax >= 0.12
except AttributeError:  # pragma: no cover - older Flax, where plain lists were graph nodes
    _List = list


class MLP(nnx.Module):
    def __init__(self, din: int, hidden: list[int], dout: int, *, rngs: nnx.Rngs):
        sizes = [din, *hidden, dout]
        self.layers = _List(
            [nnx.Linear(a, b, rngs=rngs) for a, b in zip(sizes[:-1], sizes[1:])]
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        n = len(self.layers)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < n - 1:
                x = jax.nn.relu(x)
        return x
