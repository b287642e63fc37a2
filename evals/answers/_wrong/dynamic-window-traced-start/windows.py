"""NumPy slicing: fine eagerly, but the slice bounds must be static under jit or vmap."""

import jax


def extract_window(series: jax.Array, start: jax.Array | int, size: int) -> jax.Array:
    return series[start:start + size]
