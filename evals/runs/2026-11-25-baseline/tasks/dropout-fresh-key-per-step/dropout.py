"""Inverted dropout with a fresh random mask at every step.

JAX random functions are pure: the same key always gives the same numbers. If you pass the same key
to ``jax.random.bernoulli`` at every step, you get the same mask at every step. Derive a new key for
every step from one seed key instead (here: ``jax.random.split`` of the carried key in each step),
which keeps the whole run reproducible from that one key.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def dropout(key: jax.Array, x: jax.Array, rate: float) -> jax.Array:
    """Inverted dropout: each element is 0 with probability `rate`, otherwise x / (1 - rate)."""
    x = jnp.asarray(x)
    if isinstance(rate, (int, float)):
        if rate <= 0.0:
            return x
        if rate >= 1.0:
            return jnp.zeros_like(x)
    keep_prob = 1.0 - rate
    keep = jax.random.bernoulli(key, keep_prob, x.shape)
    return jnp.where(keep, x / keep_prob, jnp.zeros_like(x)).astype(x.dtype)


def dropout_steps(key: jax.Array, x: jax.Array, num_steps: int, rate: float) -> jax.Array:
    """Apply dropout to x for num_steps steps, each step with its own mask.

    Returns an array of shape (num_steps, *x.shape) whose row t is the dropout output at step t.
    The same `key` (a typed key from jax.random.key) always gives the same rows.
    """
    x = jnp.asarray(x)

    def step(carry_key, _):
        carry_key, step_key = jax.random.split(carry_key)  # new key for this step
        return carry_key, dropout(step_key, x, rate)

    _, rows = jax.lax.scan(step, key, xs=None, length=int(num_steps))
    return rows
