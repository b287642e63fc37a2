"""Logits plus the post-ReLU hidden activations of a Flax NNX MLP, without a duplicated forward.

The layer loop lives in one place, MLP.forward_with_features, which returns the logits together with
the ReLU outputs it computes anyway; MLP.__call__ returns only the logits of that same pass. Nothing
is stored on the module (no Variables are created), so the model's state, nnx.Optimizer, checkpoints
and nnx.jit behave exactly as before. Under jit the unused features of model(x) are simply dropped
by XLA; eagerly they are the intermediate arrays the forward computes in any case.

Why not `self.sow(nnx.Intermediate, ...)`: on flax 0.12.12 `Module.sow` outside `nnx.capture` is
deprecated (DeprecationWarning) and stores the value as a new Variable on the module, so every
ordinary training/evaluation call would change the model's state.
"""

import jax
from flax import nnx


class MLP(nnx.Module):
    """hidden1 -> ReLU -> hidden2 -> ReLU -> out (logits)."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.hidden2 = nnx.Linear(dhidden, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def forward_with_features(self, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        """The single forward pass: (logits, [relu(hidden1(x)), relu(hidden2(...))])."""
        features = []
        h = x
        for layer in (self.hidden1, self.hidden2):
            h = nnx.relu(layer(h))
            features.append(h)
        return self.out(h), features

    def __call__(self, x: jax.Array) -> jax.Array:
        logits, _ = self.forward_with_features(x)
        return logits


def forward_with_features(model: MLP, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
    """Return (logits, [ReLU output of hidden1, ReLU output of hidden2]).

    Leaves no state on the model; works eagerly and inside nnx.jit.
    """
    return model.forward_with_features(x)
