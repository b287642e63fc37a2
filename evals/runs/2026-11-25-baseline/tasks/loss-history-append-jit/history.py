"""Gradient descent with a loss history, compiled as one program.

``jnp.append`` returns an array one element longer every step, so every step sees a new input shape
and jit has to trace and compile again. Instead, the number of steps fixes the history's shape up
front: ``jax.lax.scan`` runs the loop inside one compiled program and stacks the per-step losses into
an array of shape (num_steps,). ``num_steps`` is static (it determines that shape); ``x0`` and
``learning_rate`` are traced, so changing them does not recompile.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp


def _f(x: jax.Array) -> jax.Array:
    return jnp.sum(x ** 2)


@functools.partial(jax.jit, static_argnames=("num_steps",))
def descend(x0: jax.Array, num_steps: int, learning_rate: float):
    """Run num_steps of gradient descent on sum(x**2) from x0.

    Returns (x_final, losses) with losses[i] = f(x) before step i, shape (num_steps,).
    """
    x0 = jnp.asarray(x0)
    if not jnp.issubdtype(x0.dtype, jnp.inexact):
        x0 = x0.astype(jnp.float32)

    def step(x, _):
        loss, grad = jax.value_and_grad(_f)(x)
        x_new = (x - learning_rate * grad).astype(x.dtype)
        return x_new, loss

    x_final, losses = jax.lax.scan(step, x0, xs=None, length=num_steps)
    return x_final, losses
