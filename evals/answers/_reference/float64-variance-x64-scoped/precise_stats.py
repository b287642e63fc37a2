"""Variance in float64 for this function only: jax.enable_x64 as a context manager."""

import jax
import jax.numpy as jnp
import numpy as np


def _variance(x: jax.Array) -> jax.Array:
    centred = x - jnp.mean(x)
    return jnp.mean(centred * centred)


def precise_variance(samples: np.ndarray) -> jax.Array:
    with jax.enable_x64(True):
        return jax.jit(_variance)(jnp.asarray(samples, dtype=jnp.float64))
