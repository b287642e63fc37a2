"""Split the dropout keys for the call, map them along the batch, broadcast the parameters."""

import jax
from flax import nnx


def forward(model: nnx.Module, xs: jax.Array) -> jax.Array:
    @nnx.split_rngs(splits=xs.shape[0], only="dropout")
    @nnx.vmap(in_axes=(nnx.StateAxes({"dropout": 0, ...: None}), 0))
    def apply(model: nnx.Module, x: jax.Array) -> jax.Array:
        return model(x)

    return apply(model, xs)
