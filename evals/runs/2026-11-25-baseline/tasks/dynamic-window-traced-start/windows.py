"""Fixed-size window with a data-dependent (traced) start.

Python slicing ``series[start:start + size]`` needs concrete bounds because the *shape* of the result
would depend on them. Here the shape is fixed (``size``) and only the offset is dynamic, which is what
``jax.lax.dynamic_slice_in_dim`` expresses: the start may be a tracer, the size must be static. One
compilation serves every start value.

Note: like all dynamic slices, the start is clamped so the window stays in bounds; for the valid range
0 <= start <= len(series) - size the result is exactly ``series[start:start + size]``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def extract_window(series: jax.Array, start, size: int) -> jax.Array:
    """Return series[start:start + size] (shape (size,)); `start` may be traced, `size` is static."""
    series = jnp.asarray(series)
    start = jnp.asarray(start)
    if not jnp.issubdtype(start.dtype, jnp.integer):
        start = start.astype(jnp.int32)
    return jax.lax.dynamic_slice_in_dim(series, start, int(size), axis=0)


if __name__ == "__main__":
    series = jnp.arange(20.0)

    @jax.jit
    def window_at_argmax(s):
        start = jnp.argmax(s[:10])  # traced start
        return extract_window(s, start, 5)

    print(window_at_argmax(series))
    print(jax.vmap(lambda st: extract_window(series, st, 3))(jnp.array([0, 4, 17])))
