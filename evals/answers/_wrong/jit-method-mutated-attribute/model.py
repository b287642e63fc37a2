"""The usual first fix: make self static. It hashes by identity, so new weights are never seen."""

from functools import partial

import jax


class LinearModel:
    def __init__(self, weight: jax.Array, bias: jax.Array) -> None:
        self.weight = weight
        self.bias = bias

    @partial(jax.jit, static_argnums=0)
    def predict(self, x: jax.Array) -> jax.Array:
        return x @ self.weight + self.bias
