"""A fixed-length window of a time series at a traced start position.

`series[start:start + size]` fails under jit when `start` is traced: NumPy-style slicing needs static
bounds ("IndexError: Array slice indices must have static start/stop/step"). The output shape only
depends on `size`, which is static, so the right primitive is `lax.dynamic_slice_in_dim(series,
start, size)`: the start is a runtime value and one compiled program serves every start.

Making `start` a static argument instead would also "work", but would compile a new program for
every distinct start, which is what you want to avoid.

Note the one semantic difference from NumPy: if `start + size` would run past the end,
`dynamic_slice` clamps the start so the window stays inside the array (it never returns a shorter
window or raises). For the documented range 0 <= start <= len(series) - size the result equals
`series[start:start + size]` exactly.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax


def extract_window(series: jax.Array, start: jax.Array | int, size: int) -> jax.Array:
    """Return series[start:start + size], shape (size,), for 0 <= start <= len(series) - size.

    `start` may be a Python int or a traced integer scalar (inside jax.jit / jax.vmap); `size` must
    be a Python int (it is the output shape). If you jit this function directly, mark `size` static:
    `jax.jit(extract_window, static_argnames="size")`.
    """
    series = jnp.asarray(series)
    size = int(size)  # must be concrete: it determines the output shape
    if not 0 <= size <= series.shape[0]:
        raise ValueError(f"size must be in [0, {series.shape[0]}], got {size}")
    start = jnp.asarray(start)
    if not jnp.issubdtype(start.dtype, jnp.integer):
        raise TypeError(f"start must be an integer, got dtype {start.dtype}")
    return lax.dynamic_slice_in_dim(series, start, size, axis=0)


if __name__ == "__main__":
    series = jnp.arange(10.0)

    @jax.jit
    def window_at_argmax(s):
        start = jnp.argmax(s[:7])  # data-dependent (traced) start
        return extract_window(s, start, 3)

    print(window_at_argmax(series))  # [6. 7. 8.]

    windows = jax.jit(jax.vmap(lambda st: extract_window(series, st, 3)))(jnp.arange(8))
    assert all(jnp.array_equal(windows[i], series[i:i + 3]) for i in range(8))

    jitted = jax.jit(extract_window, static_argnames="size")
    for start in range(8):
        assert jnp.array_equal(jitted(series, start, 3), series[start:start + 3])
    print(jitted._cache_size())  # 1: one program for every start
