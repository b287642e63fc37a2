"""The natural port: nnx.BatchNorm with its defaults (momentum=0.99, biased running variance)."""

import jax
from flax import nnx


class EncoderBlock(nnx.Module):
    def __init__(self, n_input: int, n_hidden: int, *, rngs: nnx.Rngs):
        self.fc = nnx.Linear(n_input, n_hidden, rngs=rngs)
        self.bn = nnx.BatchNorm(n_hidden, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return nnx.relu(self.bn(self.fc(x)))
