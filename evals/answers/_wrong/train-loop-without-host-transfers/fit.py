"""A jitted step called from a Python loop that indexes the batches with Python integers."""

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.1


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@jax.jit
def step(params: dict, x: jax.Array, y: jax.Array) -> tuple[dict, jax.Array]:
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads), loss


def fit(params: dict, xs: jax.Array, ys: jax.Array) -> tuple[dict, jax.Array]:
    losses = []
    for i in range(xs.shape[0]):
        params, loss = step(params, xs[i], ys[i])
        losses.append(loss)
    return params, jnp.stack(losses)
