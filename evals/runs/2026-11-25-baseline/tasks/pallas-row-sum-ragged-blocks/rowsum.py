"""Row sums with a Pallas kernel tiled over column blocks, correct for any number of columns.

Why it failed for ragged widths
-------------------------------
With grid = cdiv(cols, block_cols), the last block reaches past the end of the array. The
out-of-bounds part of that block is not zeros: on hardware it is whatever memory is there, and in
interpret mode Pallas deliberately fills it with NaN. Summing the whole block therefore adds garbage
(NaN) to every row. The kernel has to mask the columns whose global index is >= cols before summing.
`jnp.where` (a select) is used rather than multiplying by a 0/1 mask, because NaN * 0 is NaN.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def _row_sum_kernel(x_ref, o_ref, *, cols: int, block_cols: int):
    j = pl.program_id(0)

    @pl.when(j == 0)
    def _init():
        o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)

    x = x_ref[...]
    col = j * block_cols + jax.lax.broadcasted_iota(jnp.int32, x.shape, 1)
    x = jnp.where(col < cols, x, jnp.zeros_like(x))  # drop the padding of the ragged last block
    o_ref[...] += jnp.sum(x, axis=1)


@functools.partial(jax.jit, static_argnames=("block_cols",))
def row_sums(x: jax.Array, block_cols: int) -> jax.Array:
    """x: float32 (rows, cols), rows a multiple of 8. Returns float32 (rows,) row sums."""
    rows, cols = x.shape
    kernel = functools.partial(_row_sum_kernel, cols=cols, block_cols=block_cols)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(cols, block_cols),),
        in_specs=[pl.BlockSpec((rows, block_cols), lambda j: (0, j))],
        # Every program writes the same output block, which stays resident and accumulates; the
        # grid axis is therefore a sequential reduction axis.
        out_specs=pl.BlockSpec((rows,), lambda j: (0,)),
        interpret=True,
    )(x.astype(jnp.float32))


if __name__ == "__main__":
    x = jax.random.normal(jax.random.key(0), (16, 37), jnp.float32)
    for bc in (1, 8, 10, 16, 37):
        print(bc, bool(jnp.allclose(row_sums(x, bc), x.sum(axis=1), atol=1e-5)))
