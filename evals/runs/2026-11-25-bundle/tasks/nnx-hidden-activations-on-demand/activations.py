"""A Flax NNX MLP whose hidden activations can be read on demand, like PyTorch forward hooks.

There is one forward pass, `MLP.forward`, which returns the logits together with the ReLU outputs it
computed anyway; `__call__` returns only the logits from it. So:

- no second copy of the layer loop exists;
- an ordinary `model(x)` (training, evaluation) computes the same thing as before and stores
  nothing: the features are ordinary return values, never written to the module. Under `jit`, XLA
  drops the unused outputs, so the compiled training step is the same program as a plain MLP;
- `forward_with_features(model, x)` returns (logits, [h1, h2]) and leaves the module's state exactly
  as it was, eagerly or inside `nnx.jit`.

Why not `self.sow(nnx.Intermediate, ...)`: in flax 0.12 intermediates are read with
`nnx.capture(model, nnx.Intermediate)(x)`, which stores nothing, but `sow` in an ordinary call
outside `nnx.capture` is deprecated: it emits a DeprecationWarning and stores the activations on the
module as new Variables, i.e. the ordinary forward pass would change the model's state.
"""

import jax
from flax import nnx


class MLP(nnx.Module):
    """hidden1 -> ReLU -> hidden2 -> ReLU -> out; model(x) returns the logits."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.hidden2 = nnx.Linear(dhidden, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def forward(self, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        """The single forward pass: (logits, [ReLU output of hidden1, ReLU output of hidden2])."""
        features = []
        h = x
        for layer in (self.hidden1, self.hidden2):
            h = nnx.relu(layer(h))
            features.append(h)
        return self.out(h), features

    def __call__(self, x: jax.Array) -> jax.Array:
        """Logits only: what training and evaluation use."""
        logits, _ = self.forward(x)
        return logits


def forward_with_features(model: MLP, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
    """(logits, [h1, h2]) with h_i the ReLU output of hidden layer i. Stores nothing on the model.

    Works eagerly and inside nnx.jit, e.g.

        logits, features = nnx.jit(forward_with_features)(model, x)
    """
    logits, features = model.forward(x)
    return logits, list(features)
