"""Point-cloud smoothing that processes batch_size points at a time, in one compiled program.

Each point i becomes sum_j w_ij * points[j] with w_i = softmax(-||points[i] - points[j]||^2 over j).
Per point that builds an n-vector of weights (and an (n, d) difference array); `jax.vmap` over all n
points builds them for every point at once: an (n, n) weight matrix and an (n, n, d) difference
array, which is what runs out of memory for large n.

`jax.lax.map(f, xs, batch_size=k)` is a `lax.scan` over slices of k points, each slice vmapped: only
k rows of weights (k x n, and k x n x d differences) exist at a time, the loop is one XLA while loop
inside your jitted pipeline (compiled once), and the result is the same as the vmap. When k does not
divide n, lax.map scans over the largest multiple of k and runs the remaining n % k points as one more
vmap. (A Python loop over slices would not help inside jit: it unrolls into one program in which XLA
is free to keep all slices alive at once.)

The per-point function is wrapped in `jax.checkpoint`, which changes nothing in the forward pass; if
the pipeline is ever differentiated through `smooth`, it keeps the backward pass from storing every
slice's weights (under grad, lax.map is a scan, which would otherwise save each iteration's
intermediates).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _smooth_point(p: jax.Array, points: jax.Array) -> jax.Array:
    """One point: the softmax(-squared distance) weighted average of all points."""
    weights = jax.nn.softmax(-jnp.sum((p - points) ** 2, axis=-1))  # (n,)
    return weights @ points  # (d,)


def smooth(points: jax.Array, batch_size: int) -> jax.Array:
    """points f32[n, d] -> f32[n, d], processing `batch_size` points at a time.

    `batch_size` is a Python int (static under jax.jit, e.g. jax.jit(smooth, static_argnums=1));
    it need not divide n.
    """
    batch_size = int(batch_size)
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size}")
    row = jax.checkpoint(lambda p: _smooth_point(p, points))
    return jax.lax.map(row, points, batch_size=batch_size)


if __name__ == "__main__":
    import numpy as np

    def smooth_vmap(points):  # the original, all points at once
        return jax.vmap(_smooth_point, in_axes=(0, None))(points, points)

    pts = jax.random.normal(jax.random.key(0), (1000, 3))
    jitted = jax.jit(smooth, static_argnums=1)
    ref = jax.jit(smooth_vmap)(pts)
    for k in (64, 100, 7, 1000, 4096):
        np.testing.assert_allclose(jitted(pts, k), ref, rtol=1e-5, atol=1e-5)

    def temp_bytes(fn, *args, **kw):
        return jax.jit(fn, **kw).lower(*args).compile().memory_analysis().temp_size_in_bytes

    print("temporaries: vmap", temp_bytes(smooth_vmap, pts),
          "bytes; batch_size=64", temp_bytes(smooth, pts, 64, static_argnums=1), "bytes")
