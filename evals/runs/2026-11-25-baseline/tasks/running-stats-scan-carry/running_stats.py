"""Running per-column mean and population variance (Welford's algorithm) as one lax.scan.

Why the NumPy start values failed
---------------------------------
A scan/fori_loop carry must keep exactly the same type (shape, dtype and weak-type) in every
iteration. `count, mean, m2 = 0, 0.0, 0.0` are Python scalars: the carry starts as weakly-typed
scalars `()`, but after one row the mean and m2 are float32 arrays of shape (d,) (and with int32
data the arithmetic would mix int and float). The fix is to build the initial carry with the final
types: a float32 count and float32 (d,) zero vectors, and to convert the rows to float32.
"""

import jax
import jax.numpy as jnp


def _welford_step(carry, row):
    count, mean, m2 = carry
    count = count + 1.0
    delta = row - mean
    mean = mean + delta / count
    m2 = m2 + delta * (row - mean)
    return (count, mean, m2), (mean, m2 / count)


@jax.jit
def running_mean_var(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """means[i], variances[i] = mean and ddof=0 variance of xs[:i+1] along axis 0 (float32, (n, d))."""
    xs = jnp.asarray(xs).astype(jnp.float32)
    d = xs.shape[1]
    init = (
        jnp.zeros((), jnp.float32),  # count
        jnp.zeros((d,), jnp.float32),  # running mean
        jnp.zeros((d,), jnp.float32),  # running sum of squared deviations (M2)
    )
    _, (means, variances) = jax.lax.scan(_welford_step, init, xs)
    return means, variances


if __name__ == "__main__":
    import numpy as np

    xs = np.random.default_rng(0).integers(-5, 5, size=(6, 3)).astype(np.int32)
    means, variances = running_mean_var(xs)
    ref_m = np.stack([xs[: i + 1].mean(0) for i in range(len(xs))])
    ref_v = np.stack([xs[: i + 1].var(0) for i in range(len(xs))])
    print(np.allclose(means, ref_m, atol=1e-6), np.allclose(variances, ref_v, atol=1e-5))
    print(running_mean_var(xs.astype(np.float32))[0].dtype)
