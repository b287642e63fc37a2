"""Gradient descent with a loss history, compiled once: lax.scan stacks the per-step losses."""

from functools import partial

import jax
import jax.numpy as jnp


def loss(x: jax.Array) -> jax.Array:
    return jnp.sum(x**2)


@partial(jax.jit, static_argnames="num_steps")
def descend(x0: jax.Array, num_steps: int, learning_rate: float) -> tuple[jax.Array, jax.Array]:
    def step(x, _):
        value, grad = jax.value_and_grad(loss)(x)
        return x - learning_rate * grad, value

    return jax.lax.scan(step, x0, length=num_steps)
