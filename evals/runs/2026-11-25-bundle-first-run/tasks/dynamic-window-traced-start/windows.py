"""A fixed-length window at a traced position: ``series[start:start + size]`` under jit and vmap.

NumPy-style slicing needs static bounds, so ``series[start:start + size]`` with a traced ``start``
raises ``IndexError: Array slice indices must have static start/stop/step``. Making ``start`` static
would compile one program per start. ``jax.lax.dynamic_slice_in_dim`` takes a traced start and a
static size (the size is the output's shape, so it must be a Python int): one program serves every
start.

Difference from NumPy: a start that would run past the end is clamped so the window stays inside the
array (``start = len - size + 3`` returns the last ``size`` elements, not a shorter slice). For
``0 <= start <= len(series) - size``, as required here, the result equals ``series[start:start+size]``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax


def extract_window(series: jax.Array, start: jax.Array | int, size: int) -> jax.Array:
    """Return ``series[start:start + size]`` (shape ``(size,)``) for a possibly traced ``start``.

    ``size`` must be a Python int. Works inside ``jax.jit`` and ``jax.vmap`` (over ``series``
    and/or ``start``) without recompiling for new start values.
    """
    series = jnp.asarray(series)
    return lax.dynamic_slice_in_dim(series, start, size, axis=0)


if __name__ == "__main__":
    from functools import partial

    series = jnp.arange(10.0)
    window = jax.jit(extract_window, static_argnames="size")
    for start in range(8):
        assert jnp.array_equal(window(series, start, size=3), series[start:start + 3])
    starts = jnp.array([0, 4, 7])
    batched = jax.vmap(partial(extract_window, series, size=3))(starts)
    assert jnp.array_equal(batched, jnp.stack([series[s:s + 3] for s in (0, 4, 7)]))

    @jax.jit
    def data_dependent(series):
        start = jnp.argmax(series > 5.5)  # traced start computed from the data
        return extract_window(series, start, 3)

    print(data_dependent(series))  # [6. 7. 8.]
