"""An NNX MLP of variable depth, its layers held in an nnx.List."""

import jax
from flax import nnx


class MLP(nnx.Module):
    """nnx.Linear layers din -> *hidden -> dout, relu between them."""

    def __init__(self, din: int, hidden: list[int], dout: int, *, rngs: nnx.Rngs):
        widths = [din, *hidden, dout]
        self.layers = nnx.List([nnx.Linear(a, b, rngs=rngs) for a, b in zip(widths, widths[1:])])

    def __call__(self, x: jax.Array) -> jax.Array:
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)
