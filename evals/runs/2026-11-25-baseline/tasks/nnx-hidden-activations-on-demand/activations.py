"""NNX MLP whose hidden activations can be collected on demand.

There is a single layer loop (``MLP._forward``). It takes an optional ``collect`` list: when given, the
ReLU outputs are appended to it; when omitted (the ordinary ``model(x)`` used for training and
evaluation), nothing is collected and nothing is stored on the model. Unlike ``Module.sow``, which
writes ``nnx.Intermediate`` Variables into the model on every call, this leaves the model's state
untouched, so it also works unchanged inside ``nnx.jit`` (the list is filled with traced values while
tracing and returned as ordinary outputs).
"""

from __future__ import annotations

from typing import Optional

import jax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.hidden2 = nnx.Linear(dhidden, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def _forward(self, x: jax.Array, collect: Optional[list] = None) -> jax.Array:
        for layer in (self.hidden1, self.hidden2):
            x = nnx.relu(layer(x))
            if collect is not None:
                collect.append(x)
        return self.out(x)

    def __call__(self, x: jax.Array) -> jax.Array:
        """Logits only; stores nothing."""
        return self._forward(x)


def forward_with_features(model: MLP, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
    """Return (logits, [ReLU(hidden1), ReLU(hidden2)]) without storing anything on the model."""
    features: list[jax.Array] = []
    logits = model._forward(x, collect=features)
    return logits, features
