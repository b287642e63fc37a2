"""Row sums in Pallas over column blocks; the last, partial block is masked with an iota."""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def _row_sum_kernel(x_ref, o_ref, *, n_cols: int) -> None:
    k = pl.program_id(0)

    @pl.when(k == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    cols = k * x_ref.shape[1] + lax.broadcasted_iota(jnp.int32, x_ref.shape, 1)
    block = jnp.where(cols < n_cols, x_ref[...], 0.0)  # padding may be NaN: select, do not multiply
    o_ref[...] += jnp.sum(block, axis=1, keepdims=True)


def row_sums(x: jax.Array, block_cols: int) -> jax.Array:
    """Sum of each row of x, one program per block of block_cols columns."""
    rows, n_cols = x.shape
    out = pl.pallas_call(
        functools.partial(_row_sum_kernel, n_cols=n_cols),
        out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
        grid=(pl.cdiv(n_cols, block_cols),),
        in_specs=[pl.BlockSpec((rows, block_cols), lambda k: (0, k))],
        out_specs=pl.BlockSpec((rows, 1), lambda k: (0, 0)),
        interpret=True,
    )(x)
    return out[:, 0]
