"""A population variance computed by JAX in float64, while the rest of the program stays in float32.

Why float32 gives garbage here: float32 has a 24-bit mantissa, so near 1e8 the spacing between
representable numbers is 8. Readings of about 1e8 with fluctuations of about 1 lose the fluctuations
as soon as they are converted (and ``jnp.asarray`` converts a NumPy float64 array to float32 silently
while 64-bit mode is off).

The fix is scoped: ``jax.enable_x64(True)`` turns 64-bit mode on only inside the ``with`` block and
restores the previous setting when the block exits (also on an exception). Inside it the samples stay
float64 and every operation runs in float64. The returned array keeps its float64 dtype after the
block; values created afterwards default to float32 again. Do not call
``jax.config.update("jax_enable_x64", ...)`` for this: that is global and meant for program start-up.

The variance is computed with two passes (mean first, then the mean of squared deviations), which
avoids the catastrophic cancellation of ``E[x^2] - E[x]^2`` even in float64.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _variance(x: jax.Array) -> jax.Array:
    centered = x - jnp.mean(x)
    return jnp.mean(centered * centered)  # ddof=0


def precise_variance(samples: np.ndarray) -> jax.Array:
    """Population variance (ddof=0) of a float64 NumPy array of shape (n,), computed in float64.

    Returns a scalar ``jax.Array`` of dtype float64. 64-bit mode is enabled only for this computation
    and is back to its previous state (off) when the function returns.
    """
    with jax.enable_x64(True):
        x = jnp.asarray(samples, dtype=jnp.float64)  # no down-cast: x64 is on in this scope
        result = _variance(x)  # traced and compiled for float64 (the x64 state is part of the cache key)
        assert result.dtype == jnp.float64
    return result


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    samples = 1e8 + rng.normal(size=100_000)  # float64, variance about 1

    naive = jnp.var(jnp.asarray(samples))  # float32: the fluctuations are lost
    precise = precise_variance(samples)
    print(f"float32: {float(naive):.6f}   float64: {float(precise):.6f}   numpy: {np.var(samples):.6f}")
    assert precise.dtype == jnp.float64
    assert np.isclose(float(precise), np.var(samples), rtol=1e-9)
    assert jnp.ones(3).dtype == jnp.float32  # x64 is off again
