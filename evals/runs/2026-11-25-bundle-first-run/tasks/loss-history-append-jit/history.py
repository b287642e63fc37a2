"""Gradient descent on f(x) = sum(x**2) with a loss history, compiled once.

Why the original loop slowed down: ``jnp.append(history, loss)`` returns an array one element longer,
so the jitted step receives a ``history`` of a new shape on every call. A new shape is a new cache key:
JAX traces and compiles the step again on every iteration (that is the stream of compilation logs),
and keeps one more executable in the cache each time.

The fix: the history has a fixed length known up front. Here ``lax.scan`` runs the whole loop inside
one compiled program and stacks the per-step losses into an array of shape ``(num_steps,)``. Only
``num_steps`` is static (it fixes the output shape); ``x0`` and ``learning_rate`` are traced, so new
starting points or learning rates reuse the same executable. A different ``num_steps`` compiles once
more (for that length), not once per step.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax


def _loss(x: jax.Array) -> jax.Array:
    return jnp.sum(x**2)


@functools.partial(jax.jit, static_argnames="num_steps")
def _descend(x0: jax.Array, learning_rate: jax.Array, num_steps: int) -> tuple[jax.Array, jax.Array]:
    def step(x: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        loss, grad = jax.value_and_grad(_loss)(x)  # loss is f(x) *before* the update
        return x - learning_rate * grad, loss

    # scan carries x and stacks the emitted losses: losses[i] = f(x before step i).
    x_final, losses = lax.scan(step, x0, length=num_steps)
    return x_final, losses


def descend(x0: jax.Array, num_steps: int, learning_rate: float) -> tuple[jax.Array, jax.Array]:
    """Run ``num_steps`` steps of gradient descent on f(x) = sum(x**2) from ``x0``.

    Returns ``(x_final, losses)`` with ``losses.shape == (num_steps,)`` and ``losses[i]`` the value of f
    before step ``i``. The whole loop is one compiled ``lax.scan``; it compiles once per distinct
    ``num_steps`` (and input shape/dtype), never once per step.
    """
    x0 = jnp.asarray(x0)
    if not jnp.issubdtype(x0.dtype, jnp.floating):
        x0 = x0.astype(jnp.float32)  # gradients need a float input
    # A strongly typed scalar of x's dtype: every call sees the same argument type (no retrace).
    lr = jnp.asarray(learning_rate, dtype=x0.dtype)
    return _descend(x0, lr, num_steps=int(num_steps))
