"""Running per-column mean and variance (Welford) as one compiled JAX loop.

Why the NumPy start `count, mean, m2 = 0, 0.0, 0.0` fails in lax.scan / lax.fori_loop: the carry is
the loop's state and must leave the body with exactly the shape and dtype it entered with. NumPy
silently broadcasts the scalar 0.0 to a (d,) vector after the first row (and promotes an int count or
int data to float); a compiled loop cannot change the type of its state, so it raises
"TypeError: scan body function carry input and carry output must have equal types".

The fix is to give every carry component its final type up front: count as an int32 scalar, mean and
m2 as float32 vectors of shape (d,), and to convert each row to float32 before it meets them, so that
int32 data is accumulated in float32 as well (never in integers, which would truncate the mean).
"""

import jax
import jax.numpy as jnp
from jax import lax


def running_mean_var(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """xs (n, d), float32 or int32 -> (means, variances), float32 (n, d).

    means[i] and variances[i] are the mean and the population variance (ddof=0) of xs[:i+1] along
    axis 0, computed row by row with Welford's update inside one lax.scan. Works eagerly and under jit.
    """
    xs = jnp.asarray(xs)
    if xs.ndim != 2:
        raise ValueError(f"expected xs of shape (n, d), got {xs.shape}")
    rows = xs.astype(jnp.float32)
    d = rows.shape[1]

    init = (
        jnp.zeros((), jnp.int32),  # count: a strongly typed int32 scalar
        jnp.zeros((d,), jnp.float32),  # mean: already a vector, already float32
        jnp.zeros((d,), jnp.float32),  # m2: sum of squared deviations from the running mean
    )

    def step(carry, row):
        count, mean, m2 = carry
        count = count + 1
        delta = row - mean
        mean = mean + delta / count.astype(jnp.float32)
        m2 = m2 + delta * (row - mean)  # Welford: stable, never a difference of large sums
        variance = m2 / count.astype(jnp.float32)
        return (count, mean, m2), (mean, variance)

    _, (means, variances) = lax.scan(step, init, rows)
    return means, variances


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    data = {
        "float32": rng.normal(loc=3.0, scale=2.0, size=(50, 4)).astype(np.float32),
        "int32": rng.integers(-100, 100, size=(50, 4)).astype(np.int32),
    }
    for name, xs_np in data.items():
        ref_mean = np.stack([xs_np[: i + 1].astype(np.float64).mean(0) for i in range(len(xs_np))])
        ref_var = np.stack([xs_np[: i + 1].astype(np.float64).var(0) for i in range(len(xs_np))])
        for fn in (running_mean_var, jax.jit(running_mean_var)):
            means, variances = fn(jnp.asarray(xs_np))
            assert means.dtype == variances.dtype == jnp.float32 and means.shape == xs_np.shape
            np.testing.assert_allclose(means, ref_mean, rtol=1e-5, atol=1e-4)
            np.testing.assert_allclose(variances, ref_var, rtol=1e-5, atol=1e-3)
        print(name, "ok")
