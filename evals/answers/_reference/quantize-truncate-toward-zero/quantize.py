"""Quantize toward zero: jnp.trunc is NumPy's fix (round toward zero)."""

import jax
import jax.numpy as jnp


def quantize(x: jax.Array, step: float) -> tuple[jax.Array, jax.Array]:
    q = jnp.trunc(x / step) * step
    return q, x - q
