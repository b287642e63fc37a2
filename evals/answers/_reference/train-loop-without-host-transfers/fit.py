"""The whole loop is one jitted lax.scan over the device-resident batches: nothing crosses from the host."""

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.1


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def sgd_step(params: dict, batch: tuple[jax.Array, jax.Array]) -> tuple[dict, jax.Array]:
    loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads), loss


@jax.jit
def fit(params: dict, xs: jax.Array, ys: jax.Array) -> tuple[dict, jax.Array]:
    return jax.lax.scan(sgd_step, params, (xs, ys))
