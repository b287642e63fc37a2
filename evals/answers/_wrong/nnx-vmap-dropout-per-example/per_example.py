"""Broadcast the whole model: its one dropout key goes to every example."""

import jax
from flax import nnx


@nnx.vmap(in_axes=(None, 0))
def forward(model: nnx.Module, xs: jax.Array) -> jax.Array:
    return model(xs)
