"""Softmax(-squared distance) point-cloud smoothing, batch_size points at a time, in one program.

Why vmap runs out of memory: the per-point function builds an n-vector of weights, and `jax.vmap`
over all n points gives every intermediate a batch dimension, so the compiled program materialises
n x n arrays (distances, softmax weights): 4 n^2 bytes each in float32.

`jax.lax.map(f, xs, batch_size=k)` is a `lax.scan` over slices of k points, each slice vmapped: the
intermediates hold only k x n values at a time, and it is still a single compiled program (one XLA
while loop), usable inside jax.jit. When k does not divide n, lax.map scans over the largest multiple
of k and runs the remaining n % k points as one more vmapped slice, concatenated at the end, so any
batch_size works. The results are the same computation per point as the vmap version.

(A Python loop over slices inside jit would not help: it unrolls into one program in which XLA may
schedule all slices together. If you differentiate through `smooth`, wrap `_smooth_point` in
`jax.checkpoint` too, since a scan keeps every iteration's residuals for the backward pass.)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _smooth_point(p: jax.Array, points: jax.Array) -> jax.Array:
    """sum_j softmax(-|p - points_j|^2)_j * points_j for one point p of shape (d,)."""
    weights = jax.nn.softmax(-jnp.sum((p - points) ** 2, axis=-1))  # (n,)
    return weights @ points  # (d,)


def smooth(points: jax.Array, batch_size: int) -> jax.Array:
    """points: f32[n, d] -> f32[n, d]; processes `batch_size` points at a time (a Python int, static
    under jax.jit; it need not divide n)."""
    batch_size = int(batch_size)
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size}")
    return jax.lax.map(lambda p: _smooth_point(p, points), points, batch_size=batch_size)


if __name__ == "__main__":
    import numpy as np

    points = jax.random.normal(jax.random.key(0), (1000, 3))
    reference = jax.vmap(_smooth_point, in_axes=(0, None))(points, points)
    f = jax.jit(smooth, static_argnames="batch_size")
    for k in (1, 64, 333, 1000, 4096):  # dividing, not dividing, whole, larger than n
        np.testing.assert_allclose(f(points, batch_size=k), reference, rtol=1e-5, atol=1e-5)

    def temp_bytes(fn, *args):
        return jax.jit(fn).lower(*args).compile().memory_analysis().temp_size_in_bytes

    big = jax.random.normal(jax.random.key(1), (4096, 3))
    vmap_mem = temp_bytes(lambda p: jax.vmap(_smooth_point, in_axes=(0, None))(p, p), big)
    map_mem = temp_bytes(lambda p: smooth(p, 128), big)
    print(f"temp memory: vmap {vmap_mem / 2**20:.1f} MiB, lax.map(batch_size=128) {map_mem / 2**20:.1f} MiB")
    assert map_mem * 4 < vmap_mem
