"""The training loop: one SGD step per batch."""

from functools import partial

import jax

from model import loss_fn


def sgd_step(params, x, y, learning_rate):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads), loss


def train(params, xs, ys, learning_rate):
    """xs: (steps, batch, d), ys: (steps, batch, k). Returns (params, losses)."""
    losses = []
    for x, y in zip(xs, ys):
        step = jax.jit(partial(sgd_step, learning_rate=learning_rate))
        params, loss = step(params, x, y)
        losses.append(float(loss))
    return params, losses
