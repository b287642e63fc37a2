"""An MLP whose depth is a constructor argument, for the current Flax NNX (flax 0.12).

The layers live in an `nnx.List`, NNX's counterpart of `nn.ModuleList`. In flax 0.12 a module's
attributes are either data (found by `nnx.state`, traced by `nnx.jit`, trained by an optimizer) or
static, and a plain Python `list` is static even when it holds layers: `self.layers = [...]` raises
`ValueError: Found data on value of type '<class 'list'>' assigned to static attribute 'layers'` at
construction (and building it with `append` fails the same way when the constructor returns).
`nnx.List` is a module that behaves like a list (indexing, slicing, `len`, iteration), so every
layer's kernel and bias are parameters at paths ("layers", i, "kernel"), and
`nnx.Optimizer(model, tx, wrt=nnx.Param)` trains all of them.

    model = MLP(4, [32, 32], 1, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
"""

import jax
from flax import nnx


class MLP(nnx.Module):
    """nnx.Linear layers din -> hidden[0] -> ... -> hidden[-1] -> dout, relu between consecutive layers."""

    def __init__(self, din: int, hidden: list[int], dout: int, *, rngs: nnx.Rngs):
        widths = [din, *hidden, dout]
        self.layers = nnx.List(
            [nnx.Linear(d_in, d_out, rngs=rngs) for d_in, d_out in zip(widths[:-1], widths[1:])]
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)  # no activation after the last layer
