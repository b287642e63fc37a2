"""Per-example dropout masks for a single-example Flax NNX model run over a batch with nnx.vmap.

Why every example got the same mask: `nnx.vmap(forward, in_axes=(None, 0))` broadcasts the whole
model to every example, its dropout RNG state included, so every example draws from the same key.
Nothing warns.

The fix has two parts:

1. `nnx.split_rngs(splits=n, only="dropout")` draws one key from the `dropout` stream and splits it
   into n keys for the duration of the call. On return it puts the stream's own scalar key back,
   with its counter advanced, so the next call draws new masks and the model can be called on a
   single example again afterwards.
2. `nnx.StateAxes({"dropout": 0, ...: None})` tells `nnx.vmap` to map the split dropout state along
   axis 0 (one key per example) and to broadcast everything else: the parameters are shared by
   all examples.

`n` is read from `xs.shape[0]` on every call, so any batch size works.

The `only="dropout"` filter selects the RNG Variables tagged with the stream name. The model's
streams are created as `nnx.Rngs(params=..., dropout=...)`, so the Dropout's stream is tagged
"dropout". (With `nnx.Rngs(0)` the Dropout would use the `default` stream and this filter would
select nothing; split and map `nnx.RngState`, i.e. every stream, in that case.)
"""

import jax
from flax import nnx


def forward(model: nnx.Module, xs: jax.Array) -> jax.Array:
    """Apply the single-example `model` to every row of `xs`; each row gets its own dropout mask.

    Parameters are shared across the batch, every call draws new masks, and `model` still works on a
    single example afterwards. Returns the stacked outputs, leading axis xs.shape[0].
    """

    @nnx.split_rngs(splits=xs.shape[0], only="dropout")
    @nnx.vmap(in_axes=(nnx.StateAxes({"dropout": 0, ...: None}), 0), out_axes=0)
    def apply(model: nnx.Module, x: jax.Array) -> jax.Array:
        return model(x)

    return apply(model, xs)
