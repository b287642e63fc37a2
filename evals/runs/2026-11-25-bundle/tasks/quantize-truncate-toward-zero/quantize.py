"""JAX port of

    def quantize(x, step):
        q = np.fix(x / step) * step   # round toward zero, not down
        return q, x - q

`np.fix` rounds toward zero. Its JAX counterpart `jnp.fix` was deprecated in jax 0.9.0 and is gone in
the current JAX (AttributeError), so the port uses `jnp.trunc`, which also rounds toward zero.
`jnp.floor` would be wrong for negative values (-2.7 -> -3 instead of -2), and `jnp.round` rounds to
nearest. Everything is elementwise, so it works under jax.jit with `step` static or traced, on any shape.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def quantize(x: jax.Array, step: float) -> tuple[jax.Array, jax.Array]:
    """q = trunc(x / step) * step (toward zero), r = x - q; both in x's float dtype (float32)."""
    x = jnp.asarray(x)
    dtype = x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.float32
    x = x.astype(dtype)
    step = jnp.asarray(step, dtype=dtype)  # a Python float, NumPy scalar or traced scalar; keeps float32
    q = jnp.trunc(x / step) * step
    return q, x - q


if __name__ == "__main__":
    import numpy as np

    xs = jnp.array([-2.7, -2.0, -0.3, 0.0, 0.3, 2.7, 5.5], dtype=jnp.float32)
    q, r = quantize(xs, 1.0)
    assert q.tolist() == [-2.0, -2.0, -0.0, 0.0, 0.0, 2.0, 5.0], q
    np.testing.assert_allclose(r, [-0.7, 0.0, -0.3, 0.0, 0.3, 0.7, 0.5], atol=1e-6)

    x = jax.random.normal(jax.random.key(0), (4, 5)) * 10
    ref_q = np.fix(np.asarray(x) / np.float32(0.5)) * np.float32(0.5)
    for f in (jax.jit(quantize, static_argnums=1), jax.jit(quantize)):  # static and traced step
        q, r = f(x, 0.5)
        assert q.dtype == r.dtype == jnp.float32 and q.shape == r.shape == x.shape
        np.testing.assert_allclose(q, ref_q)
        np.testing.assert_allclose(r, np.asarray(x) - ref_q, atol=1e-6)
    print("ok")
