"""The training loop: one jitted lax.scan over the batches."""

from functools import partial

import jax

from model import loss_fn


def sgd_step(params: dict, batch: tuple[jax.Array, jax.Array], learning_rate: float) -> tuple[dict, jax.Array]:
    loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads), loss


@jax.jit
def train(params: dict, xs: jax.Array, ys: jax.Array, learning_rate: float) -> tuple[dict, jax.Array]:
    """xs: (steps, batch, d), ys: (steps, batch, k). Returns (params, losses)."""
    return jax.lax.scan(partial(sgd_step, learning_rate=learning_rate), params, (xs, ys))
