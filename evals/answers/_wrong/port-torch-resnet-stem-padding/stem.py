"""The natural port: 'SAME' padding for the conv (its default) and for the pool, which keeps the shapes."""

import jax
from flax import nnx


class Stem(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(3, 16, kernel_size=(7, 7), strides=(2, 2), use_bias=False, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = nnx.relu(self.conv1(x))
        return nnx.max_pool(h, window_shape=(3, 3), strides=(2, 2), padding="SAME")
