"""Optimizer setup and a compiled train step for Flax NNX (flax >= 0.11, here 0.12.12).

The tutorial's two lines are the pre-0.11 API:

* ``nnx.Optimizer(model, optax.adam(1e-3))`` now raises ``TypeError``: the optimizer no longer holds
  the model and needs a ``wrt`` filter saying which Variables it trains. Pass ``wrt=nnx.Param``.
* ``optimizer.update(grads)`` now raises ``TypeError``: pass the model too,
  ``optimizer.update(model, grads)``; the optimizer writes the new parameters into it.
  (``optimizer.model`` is gone as well; keep your own reference to the model.)

Usage::

    model = MyRegressor(rngs=nnx.Rngs(0))
    optimizer = create_optimizer(model, 1e-3)
    for x, y in batches:
        loss = train_step(model, optimizer, x, y)   # model and optimizer updated in place
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from flax import nnx


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    """Adam on the model's ``nnx.Param`` Variables only (BatchStats, RNG state, ... are not trained)."""
    return nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)


def _mse(model: nnx.Module, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: nnx.Module, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One compiled Adam step on ``mean((model(x) - y) ** 2)``; returns the loss before the step.

    ``nnx.jit`` carries every Variable written inside the call back to the Python objects: the new
    parameters and optimizer state, and anything the model itself updates during the forward pass
    (BatchNorm statistics, dropout RNG counters, custom counters). ``nnx.value_and_grad``
    differentiates with respect to the ``nnx.Param`` Variables only, matching ``wrt=nnx.Param``.
    """
    loss, grads = nnx.value_and_grad(_mse)(model, x, y)
    optimizer.update(model, grads)  # not optimizer.update(grads)
    return loss
