"""Flax NNX MLP whose hidden activations can be returned on demand.

There is a single layer loop (in __call__). The ordinary call model(x) returns the
logits only and stores nothing on the module (no sow / Intermediate state), so
training and evaluation are unchanged; forward_with_features asks the same loop
to also hand back the post-ReLU activations.
"""
import jax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.hidden2 = nnx.Linear(dhidden, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array, *, return_features: bool = False):
        features = []
        for layer in (self.hidden1, self.hidden2):
            x = nnx.relu(layer(x))
            features.append(x)
        logits = self.out(x)
        if return_features:
            return logits, features
        return logits


def forward_with_features(model: MLP, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
    """Return (logits, [relu(hidden1(x)), relu(hidden2(...))]); leaves no state on the model."""
    return model(x, return_features=True)
