"""nnx.Optimizer with `wrt=nnx.Param`, and `optimizer.update(model, grads)` inside nnx.jit."""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    return nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)


def mse(model: nnx.Module, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: nnx.Module, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    loss, grads = nnx.value_and_grad(mse)(model, x, y)
    optimizer.update(model, grads)
    return loss
