"""Dropout with a fresh key per step: split the carried key, consume the subkey once."""

import jax
import jax.numpy as jnp


def dropout(key: jax.Array, x: jax.Array, rate: float) -> jax.Array:
    """Zero each element with probability `rate`; scale the kept ones by 1 / (1 - rate)."""
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def dropout_steps(key: jax.Array, x: jax.Array, num_steps: int, rate: float) -> jax.Array:
    """Row t: dropout of x with step t's own key."""
    rows = []
    for _ in range(num_steps):
        key, step_key = jax.random.split(key)
        rows.append(dropout(step_key, x, rate))
    return jnp.stack(rows)
