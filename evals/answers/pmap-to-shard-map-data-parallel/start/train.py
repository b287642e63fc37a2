"""Data-parallel SGD for a linear model, written for pmap (2021 style)."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

LEARNING_RATE = 0.1


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@partial(jax.pmap, axis_name="batch")
def p_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    grads = jax.lax.pmean(grads, "batch")
    loss = jax.lax.pmean(loss, "batch")
    return jax.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads), loss


def train_step(params, x, y):
    """One data-parallel step on the global batch (x, y); returns (new_params, mean loss)."""
    devices = jax.local_devices()
    n = len(devices)
    replicated = jax.device_put_replicated(params, devices)
    xs = np.reshape(x, (n, -1) + x.shape[1:])
    ys = np.reshape(y, (n, -1) + y.shape[1:])
    new_params, loss = p_step(replicated, xs, ys)
    return jax.tree_map(lambda leaf: leaf[0], new_params), loss[0]
