"""Running per-column mean and variance (Welford) in one lax.scan over the rows."""

import jax
import jax.numpy as jnp

Stats = tuple[jax.Array, jax.Array, jax.Array]  # count, mean, sum of squared deviations (m2)


def _update(stats: Stats, row: jax.Array) -> tuple[Stats, tuple[jax.Array, jax.Array]]:
    count, mean, m2 = stats
    row = row.astype(jnp.float32)
    count = count + 1.0
    delta = row - mean
    mean = mean + delta / count
    m2 = m2 + delta * (row - mean)
    return (count, mean, m2), (mean, m2 / count)


def running_mean_var(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Mean and population variance of xs[:i+1] along axis 0, for every i, as float32."""
    zeros = jnp.zeros(xs.shape[1:], jnp.float32)  # the carry has the row's shape and the output dtype
    init = (jnp.zeros((), jnp.float32), zeros, zeros)
    _, (means, variances) = jax.lax.scan(_update, init, xs)
    return means, variances
