"""Optimizer setup and a compiled train step for the current Flax NNX (flax 0.12).

Two things changed in flax 0.11, and the tutorial's lines are the old forms:

- `nnx.Optimizer(model, tx)` raises `TypeError: Missing required argument `wrt``. The optimizer needs
  a filter naming the Variables it trains: `wrt=nnx.Param`.
- `optimizer.update(grads)` raises `TypeError: Missing required argument `grads``. The optimizer no
  longer holds the model (there is no `optimizer.model` either), so every update takes the model:
  `optimizer.update(model, grads)`. It writes the new parameters into the model in place.

`nnx.jit` carries every Variable written inside the step back to the Python objects: the new
parameters, the optimizer state and step count, and any other state the model updates during the
call (BatchNorm statistics, dropout RNG counters, your own Variables). Plain `jax.jit` would drop
those writes.

    model = MyRegressor(..., rngs=nnx.Rngs(0))
    optimizer = create_optimizer(model, 1e-3)
    for x, y in batches:
        loss = train_step(model, optimizer, x, y)
"""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    """optax.adam(learning_rate) over the model's nnx.Param Variables only."""
    return nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)


def _mse(model: nnx.Module, x: jax.Array, y: jax.Array) -> jax.Array:
    """Mean squared error of the model on (x, y)."""
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: nnx.Module, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One compiled Adam step on mean((model(x) - y) ** 2); returns the loss before the step.

    Updates the model's parameters and the optimizer state in place; other Variables the model
    writes during the forward pass are kept as well.
    """
    loss, grads = nnx.value_and_grad(_mse)(model, x, y)  # gradients w.r.t. the nnx.Param Variables
    optimizer.update(model, grads)  # not optimizer.update(grads)
    return loss
