"""Per-example dropout masks when vmapping a single-example NNX model.

With ``in_axes=(None, 0)`` the whole model, including its dropout RNG stream, is broadcast: every
example sees the same key, hence the same mask. The fix is to give the vmapped function a *batch of
dropout keys* while everything else stays broadcast:

* ``nnx.split_rngs(splits=batch, only="dropout")`` temporarily replaces the model's ``dropout`` stream
  key by ``batch`` fresh keys (derived from the stream, whose counter advances, so each call draws new
  keys) and restores a single key afterwards, so the model can still be called on one example;
* ``nnx.StateAxes({"dropout": 0, ...: None})`` vmaps the dropout RNG state over axis 0 and broadcasts
  all other state (the parameters are shared across the batch).

The batch size is read from ``xs`` at call time, so any batch size works.
"""

from __future__ import annotations

import jax
from flax import nnx


def forward(model: nnx.Module, xs: jax.Array) -> jax.Array:
    """Apply the single-example `model` to every row of xs, each row with its own dropout mask."""
    batch = xs.shape[0]
    state_axes = nnx.StateAxes({"dropout": 0, ...: None})

    @nnx.split_rngs(splits=batch, only="dropout")
    @nnx.vmap(in_axes=(state_axes, 0), out_axes=0)
    def apply_one(model: nnx.Module, x: jax.Array) -> jax.Array:
        return model(x)

    return apply_one(model, xs)
