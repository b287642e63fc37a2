"""Optimizer setup and compiled train step for the current Flax NNX API.

Two things changed since that tutorial was written (Flax 0.11):

1. ``nnx.Optimizer`` requires ``wrt=``, the filter of Variables it optimizes:
   ``nnx.Optimizer(model, optax.adam(lr), wrt=nnx.Param)``.
2. The optimizer no longer keeps a reference to the model, so ``update`` takes the model as well:
   ``optimizer.update(model, grads)``.

``nnx.jit`` propagates every state change made inside the step back to the Python objects: the new
parameters and optimizer state, and also any other Variables the model writes in its forward pass
(e.g. BatchNorm statistics, dropout RNG counters), which ``nnx.value_and_grad`` carries out of the
differentiated function.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from flax import nnx


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    """optax.adam(learning_rate) over the model's nnx.Param Variables only."""
    return nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)


def _mse(model: nnx.Module, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: nnx.Module, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One compiled Adam step on the MSE; updates model and optimizer in place; returns the loss."""
    loss, grads = nnx.value_and_grad(_mse)(model, x, y)  # gradients w.r.t. nnx.Param
    optimizer.update(model, grads)
    return loss
