"""Row sums of a (rows, cols) float32 matrix with a Pallas kernel tiled over columns.

Why it broke for ragged widths: with grid = cdiv(cols, block_cols), the last column block sticks out
past the end of the array. The out-of-bounds part of an input block is unspecified: garbage on
hardware, NaN in interpret mode (so it shows). Summing the whole block adds that garbage to the rows.

Fix: mask the data of every block with the global column index, built from the program id and an
iota over the block, and replace out-of-range entries by 0 with `jnp.where` (not by multiplying with
a 0/1 mask: 0 * NaN is NaN). Full blocks are unaffected (the mask is all True).

The output block (rows, 1) is the same for every program, so the programs revisit it: it is zeroed
on the first visit (pl.when) and accumulated into on each. That needs the column-block grid axis to
run sequentially, which is what interpret mode and TPUs do; it is declared ARBITRARY (a reduction
axis) for Mosaic.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _row_sum_kernel(x_ref, o_ref, *, n_cols: int):
    k = pl.program_id(0)
    block_cols = x_ref.shape[1]

    @pl.when(k == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    # Global column index of every element of this block; >= n_cols only in the ragged last block.
    cols = k * block_cols + lax.broadcasted_iota(jnp.int32, x_ref.shape, 1)
    x = jnp.where(cols < n_cols, x_ref[...], jnp.zeros((), x_ref.dtype))
    o_ref[...] += jnp.sum(x, axis=1, keepdims=True)


@functools.partial(jax.jit, static_argnames=("block_cols",))
def row_sums(x: jax.Array, block_cols: int) -> jax.Array:
    """Sum of each row of float32 x (rows, cols): shape (rows,). Any cols >= 1, rows a multiple of 8."""
    rows, n_cols = x.shape
    out = pl.pallas_call(
        functools.partial(_row_sum_kernel, n_cols=n_cols),
        out_shape=jax.ShapeDtypeStruct((rows, 1), jnp.float32),
        grid=(pl.cdiv(n_cols, block_cols),),
        in_specs=[pl.BlockSpec((rows, block_cols), lambda k: (0, k))],
        out_specs=pl.BlockSpec((rows, 1), lambda k: (0, 0)),  # same block for all programs
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.ARBITRARY,)),
        interpret=True,
    )(x.astype(jnp.float32))
    return out[:, 0]


if __name__ == "__main__":
    import numpy as np

    for cols, bc in [(100, 32), (128, 32), (5, 8), (1, 4), (257, 64)]:
        xs = jax.random.normal(jax.random.key(cols), (16, cols), jnp.float32)
        got = row_sums(xs, bc)
        np.testing.assert_allclose(got, jnp.sum(xs, axis=1), rtol=1e-5, atol=1e-5)
    print("ok")
