"""Population variance in float64 for one statistic, with the rest of the program in float32.

Why float32 gives garbage: float32 has a 24-bit mantissa, so near 1e8 the spacing between
representable numbers is 8. Readings of 1e8 with fluctuations of about 1 are rounded to multiples of
8 before any arithmetic happens; the variance of what is left is meaningless.

Why not just pass dtype=float64: with 64-bit mode off, JAX turns a requested float64 into float32
(with only a warning). The 64-bit types exist only while the flag is on.

`jax.enable_x64(True)` turns the flag on for a `with` block only (it is the scoped form; the old
`jax.experimental.enable_x64` was removed). Everything created and traced inside the block is
float64; on exit the flag is off again, so the rest of the program (the model) keeps float32
defaults. The returned array keeps its float64 dtype after the block.

For extra robustness the data are shifted by their first value before the two-pass variance
(variance is shift-invariant), so the squares are of numbers of size ~1, not ~1e8.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _variance(x: jax.Array) -> jax.Array:
    shifted = x - x[0]                  # shift-invariant; keeps the numbers small
    mean = jnp.mean(shifted)
    return jnp.mean(jnp.square(shifted - mean))  # ddof=0 (population variance)


def precise_variance(samples: np.ndarray) -> jax.Array:
    """Population variance (ddof=0) of a float64 NumPy array of shape (n,), computed by JAX in float64.

    Returns a scalar jax.Array of dtype float64. 64-bit mode is enabled only for this computation and
    is off again afterwards (JAX values created later default to float32).
    """
    samples = np.asarray(samples, dtype=np.float64)
    if samples.ndim != 1 or samples.size == 0:
        raise ValueError(f"expected a non-empty 1-D array, got shape {samples.shape}")
    with jax.enable_x64(True):
        x = jnp.asarray(samples, dtype=jnp.float64)  # no rounding to float32 on the way in
        var = _variance(x)  # traced and compiled under x64: a float64 program
        var = jax.block_until_ready(var)
    assert var.dtype == jnp.float64
    return var


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    readings = 1e8 + rng.normal(size=10_000)
    print(np.var(readings))                       # ~1.0 (NumPy, float64)
    print(jnp.var(jnp.asarray(readings)))         # float32: garbage
    v = precise_variance(readings)
    print(v, v.dtype)                             # ~1.0 float64
    assert np.isclose(float(v), np.var(readings), rtol=1e-9)
    assert jnp.ones(2).dtype == jnp.float32       # x64 is off again
