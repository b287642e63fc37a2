"""A fixed-size window at a traced position: lax.dynamic_slice_in_dim takes a traced start."""

import jax
from jax import lax


def extract_window(series: jax.Array, start: jax.Array | int, size: int) -> jax.Array:
    """series[start:start + size]; `start` may be traced, `size` must be a Python int."""
    return lax.dynamic_slice_in_dim(series, start, size)
