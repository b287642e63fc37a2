"""sow the hidden activations (a no-op outside capture) and collect them with nnx.capture."""

import jax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.hidden2 = nnx.Linear(dhidden, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        for layer in (self.hidden1, self.hidden2):
            x = nnx.relu(layer(x))
            self.sow(nnx.Intermediate, "features", x, capture_noop=True)  # nothing happens outside capture
        return self.out(x)


def forward_with_features(model: MLP, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
    logits, intermediates = nnx.capture(model, nnx.Intermediate)(x)
    return logits, list(intermediates["features"].get_value())
