"""Per-example dropout masks for a single-example Flax NNX model run under ``nnx.vmap``.

Why every example got the same mask: ``nnx.vmap(forward, in_axes=(None, 0))`` broadcasts the *whole*
model to every example, including the Dropout layer's RNG state (its ``dropout`` stream key and
counter). Each example then draws from the same key and gets the same mask; nothing warns.

The fix has two parts:

* ``nnx.split_rngs(splits=n, only="dropout")`` takes one draw from every ``dropout`` stream in the
  model and splits it into ``n`` keys, for the duration of the call. On return it puts the stream's own
  scalar key back, with its counter advanced by that draw, so the model can be called on a single
  example again and the next call draws new masks.
* ``nnx.StateAxes({"dropout": 0, ...: None})`` tells ``nnx.vmap`` to map those split keys along axis 0
  (one per example) and to broadcast everything else: the parameters are shared across the batch.

The model must be built with a named ``dropout`` stream (``nnx.Rngs(params=..., dropout=...)``): with
``nnx.Rngs(0)`` only, the Dropout's stream is tagged ``default`` and ``only="dropout"`` would select
nothing.

Usage::

    model = MyModel(rngs=nnx.Rngs(params=0, dropout=1))  # written for x of shape (features,)
    ys = forward(model, xs)                             # xs: (batch, features); a mask per row
    y = model(xs[0])                                    # still works on one example

Inside a jitted train step call ``forward`` from the ``nnx.jit``-ed function as usual.
"""

from __future__ import annotations

import jax
from flax import nnx


def forward(model: nnx.Module, xs: jax.Array) -> jax.Array:
    """Apply single-example ``model`` to every row of ``xs``; each row gets its own dropout mask.

    Parameters are shared across the batch; every call draws new masks; any batch size works (each
    new batch size traces once).
    """
    batch_size = xs.shape[0]

    @nnx.split_rngs(splits=batch_size, only="dropout")
    @nnx.vmap(in_axes=(nnx.StateAxes({"dropout": 0, ...: None}), 0), out_axes=0)
    def apply(model: nnx.Module, x: jax.Array) -> jax.Array:
        return model(x)

    return apply(model, xs)
