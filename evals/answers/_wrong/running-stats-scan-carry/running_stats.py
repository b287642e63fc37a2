"""Running mean and variance ported from NumPy: the carry starts as Python scalars."""

import jax
import jax.numpy as jnp


def _update(stats, row):
    count, mean, m2 = stats
    row = row.astype(jnp.float32)
    count = count + 1
    delta = row - mean
    mean = mean + delta / count
    m2 = m2 + delta * (row - mean)
    return (count, mean, m2), (mean, m2 / count)


def running_mean_var(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    _, (means, variances) = jax.lax.scan(_update, (0, 0.0, 0.0), xs)
    return means, variances
