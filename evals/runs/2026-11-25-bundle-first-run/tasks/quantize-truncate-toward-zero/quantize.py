"""Quantize toward zero, the JAX port of

    def quantize(x, step):
        q = np.fix(x / step) * step   # round toward zero, not down
        return q, x - q

`np.fix` has no JAX counterpart any more: `jnp.fix` was deprecated in jax 0.9.0 and is gone in
jax 0.12 (AttributeError). `jnp.trunc` is the same operation, rounding toward zero
(trunc(-2.7) == -2.0), unlike `jnp.floor` (floor(-2.7) == -3.0), so the remainder keeps the sign of x.
"""

import jax
import jax.numpy as jnp


def quantize(x: jax.Array, step: float) -> tuple[jax.Array, jax.Array]:
    """Returns (q, r): q = trunc(x / step) * step, r = x - q, both with x's dtype (float32) and shape.

    Pure jax.numpy, no Python branching on values: works under jax.jit with `step` static or traced.
    """
    x = jnp.asarray(x)
    step = jnp.asarray(step, dtype=x.dtype)  # a traced float64 step under x64 must not widen x
    q = jnp.trunc(x / step) * step
    return q, x - q


if __name__ == "__main__":
    xs = jnp.array([-2.7, -0.5, 0.0, 0.5, 2.7, -7.25], dtype=jnp.float32)
    q, r = quantize(xs, 1.0)
    print(q, r)
    assert q.tolist() == [-2.0, -0.0, 0.0, 0.0, 2.0, -7.0]
    assert jnp.allclose(r, jnp.array([-0.7, -0.5, 0.0, 0.5, 0.7, -0.25]), atol=1e-6)

    static_step = jax.jit(quantize, static_argnums=1)
    traced_step = jax.jit(quantize)
    for fn in (static_step, traced_step):
        q2, r2 = fn(xs, 0.5)
        assert q2.dtype == r2.dtype == jnp.float32 and q2.shape == xs.shape
        assert q2.tolist() == [-2.5, -0.5, 0.0, 0.5, 2.5, -7.0]
        assert jnp.allclose(q2 + r2, xs)
