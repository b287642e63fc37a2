"""Row sums of a (rows, cols) float32 matrix with a Pallas kernel tiled over column blocks.

Why it went wrong for ragged sizes: with ``grid=(pl.cdiv(cols, block_cols),)`` the last block sticks
out past the end of the array whenever block_cols does not divide cols. The out-of-bounds part of an
input block is unspecified (garbage on hardware; interpret mode fills it with NaN on purpose, so you
notice), and summing it poisons the row sums.

Fix: mask the block before reducing. The global column index of each element is
``program_id * block_cols + iota``; elements at or past ``cols`` are replaced by 0 with ``jnp.where``
(on the data, not by multiplying with a 0/1 mask: ``0 * nan`` is still NaN).

The output block (rows, 1) is the same for every program, so the programs revisit it: it is zeroed
on the first visit (``pl.when(program_id == 0)``) and each program adds its partial sums. The grid
runs sequentially in interpret mode and on TPU, which makes that accumulation safe.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def _row_sum_kernel(x_ref, o_ref, *, n_cols: int):
    k = pl.program_id(0)
    block_cols = x_ref.shape[1]

    @pl.when(k == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    cols = k * block_cols + lax.broadcasted_iota(jnp.int32, x_ref.shape, 1)
    x = jnp.where(cols < n_cols, x_ref[...], 0.0)  # drop the columns past the end of the array
    o_ref[...] += jnp.sum(x, axis=1, keepdims=True)


@functools.partial(jax.jit, static_argnames=("block_cols",))
def row_sums(x: jax.Array, block_cols: int) -> jax.Array:
    """float32 (rows,): the sum of each row of x, for any cols >= 1 and any block_cols >= 1."""
    x = jnp.asarray(x, jnp.float32)
    rows, n_cols = x.shape
    out = pl.pallas_call(
        functools.partial(_row_sum_kernel, n_cols=n_cols),
        out_shape=jax.ShapeDtypeStruct((rows, 1), jnp.float32),
        grid=(pl.cdiv(n_cols, block_cols),),  # one program per column block, the last one ragged
        in_specs=[pl.BlockSpec((rows, block_cols), lambda k: (0, k))],
        out_specs=pl.BlockSpec((rows, 1), lambda k: (0, 0)),  # revisited by every program
        interpret=True,
    )(x)
    return out[:, 0]


if __name__ == "__main__":
    import numpy as np

    for cols, block in [(100, 32), (128, 32), (1, 8), (7, 16), (257, 64)]:
        x = jax.random.normal(jax.random.key(cols), (16, cols), jnp.float32)
        got = row_sums(x, block)
        assert got.shape == (16,) and got.dtype == jnp.float32
        assert bool(jnp.all(jnp.isfinite(got)))
        np.testing.assert_allclose(got, jnp.sum(x, axis=1), rtol=1e-5, atol=1e-5)
    print("ok")
