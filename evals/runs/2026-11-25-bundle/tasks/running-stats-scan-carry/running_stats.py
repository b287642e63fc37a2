"""Running per-column mean and population variance over the rows seen so far, as one lax.scan.

Why `count, mean, m2 = 0, 0.0, 0.0` fails as a scan/fori_loop carry: the carry is the loop's state and
must keep one shape and dtype on every iteration, fixed by the initial value. NumPy silently turns the
scalar `mean = 0.0` into a (d,) vector after the first row (and an int total into a float); a compiled
loop cannot change the type of its state, so JAX raises "scan body function carry input and carry
output must have equal types ... float32[] ... float32[d]". With integer data it is the dtype too:
an int32 accumulator cannot receive a float mean.

The fix: build the initial carry with the shape and dtype the body returns, and choose the
accumulator dtype once (float32), casting each row to it. The update is Welford's algorithm, which
is numerically stable (no E[x^2] - E[x]^2 cancellation):

    count += 1
    delta  = x - mean
    mean  += delta / count
    m2    += delta * (x - mean)      # variance (ddof=0) = m2 / count
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax


def running_mean_var(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """xs: (n, d) float32 or int32. Returns (means, variances), float32 (n, d): the mean and population
    variance (ddof=0) of xs[:i+1] along axis 0, for every i. Works eagerly and under jax.jit."""
    xs = jnp.asarray(xs)
    d = xs.shape[1:]

    init = (
        jnp.zeros((), jnp.int32),  # count of rows seen (exact integer)
        jnp.zeros(d, jnp.float32),  # running mean, shaped like a row, float32 for any input dtype
        jnp.zeros(d, jnp.float32),  # running sum of squared deviations (M2)
    )

    def step(carry, row):
        count, mean, m2 = carry
        x = row.astype(jnp.float32)  # int32 data -> float32 accumulator
        count = count + 1
        n = count.astype(jnp.float32)
        delta = x - mean
        mean = mean + delta / n
        m2 = m2 + delta * (x - mean)
        return (count, mean, m2), (mean, m2 / n)

    _, (means, variances) = lax.scan(step, init, xs)
    return means, variances


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    data = {
        "float32": rng.normal(loc=3.0, scale=2.0, size=(50, 4)).astype(np.float32),
        "int32": rng.integers(-100, 100, size=(50, 4)).astype(np.int32),
    }
    for name, x in data.items():
        ref_mean = np.stack([x[: i + 1].astype(np.float64).mean(0) for i in range(len(x))])
        ref_var = np.stack([x[: i + 1].astype(np.float64).var(0) for i in range(len(x))])
        for fn in (running_mean_var, jax.jit(running_mean_var)):
            means, variances = fn(jnp.asarray(x))
            assert means.dtype == variances.dtype == jnp.float32 and means.shape == x.shape
            np.testing.assert_allclose(means, ref_mean, rtol=1e-5, atol=1e-4)
            np.testing.assert_allclose(variances, ref_var, rtol=1e-5, atol=1e-3)
        print(name, "ok")
