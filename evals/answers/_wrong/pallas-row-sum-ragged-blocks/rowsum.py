"""Row sums in Pallas over column blocks, without masking the last, partial block."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def _row_sum_kernel(x_ref, o_ref) -> None:
    @pl.when(pl.program_id(0) == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.sum(x_ref[...], axis=1, keepdims=True)


def row_sums(x: jax.Array, block_cols: int) -> jax.Array:
    """Sum of each row of x, one program per block of block_cols columns."""
    rows, n_cols = x.shape
    out = pl.pallas_call(
        _row_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
        grid=(pl.cdiv(n_cols, block_cols),),
        in_specs=[pl.BlockSpec((rows, block_cols), lambda k: (0, k))],
        out_specs=pl.BlockSpec((rows, 1), lambda k: (0, 0)),
        interpret=True,
    )(x)
    return out[:, 0]
