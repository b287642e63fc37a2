"""An NNX MLP whose depth is a constructor argument, its layers in one ``nnx.List``.

Since flax 0.12 a module is a pytree whose attributes are either *data* (seen by ``nnx.state``,
trained, traced by ``nnx.jit``) or *static*. A plain Python ``list`` is static, even when it holds
layers, so ``self.layers = [nnx.Linear(...), ...]`` (or building the list with ``append``) raises
``ValueError: Found data on value of type '<class 'list'>' ...`` at construction. ``nnx.List`` is the
NNX counterpart of PyTorch's ``nn.ModuleList``: it indexes, slices, iterates and has ``len``, and its
layers are part of the model's state under paths such as ``("layers", 0, "kernel")``, so
``nnx.Optimizer(model, tx, wrt=nnx.Param)`` trains all of them.

Usage::

    model = MLP(4, [32, 32], 2, rngs=nnx.Rngs(0))     # 3 Linear layers
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)

    @nnx.jit
    def train_step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
        optimizer.update(model, grads)
        return loss
"""

from __future__ import annotations

import jax
from flax import nnx


class MLP(nnx.Module):
    """``din -> hidden[0] -> ... -> hidden[-1] -> dout`` Linear layers, ReLU between consecutive ones."""

    def __init__(self, din: int, hidden: list[int], dout: int, *, rngs: nnx.Rngs):
        widths = [din, *hidden, dout]
        # One Linear per consecutive pair of widths: len(hidden) + 1 layers (one when hidden is empty).
        self.layers = nnx.List(
            [nnx.Linear(a, b, rngs=rngs) for a, b in zip(widths[:-1], widths[1:])]
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        *body, last = self.layers
        for layer in body:
            x = jax.nn.relu(layer(x))
        return last(x)  # no activation after the last layer
