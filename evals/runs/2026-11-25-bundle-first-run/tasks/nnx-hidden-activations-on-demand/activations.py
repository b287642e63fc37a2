"""An NNX MLP whose hidden activations can be read on demand, without a second copy of the layer loop.

The layer loop exists once, in ``MLP._run``. ``model(x)`` runs it and returns the logits only, exactly
as training and evaluation expect; ``forward_with_features(model, x)`` runs the same loop and also
returns the ReLU outputs it computed on the way. Nothing is written to the model in either case:
the activations are ordinary return values, so there is no Variable to clean up, no state for
``nnx.jit`` to carry out, and nothing extra in ``nnx.state(model)`` or in a checkpoint.

Why not ``self.sow(nnx.Intermediate, ...)`` in ``__call__``? Read through ``nnx.capture(model,
nnx.Intermediate)`` it works, but on flax 0.12 a ``sow`` reached *outside* ``nnx.capture`` (the
ordinary training/eval call) falls back to storing the value as an ``nnx.Intermediate`` attribute on the
module (with a ``DeprecationWarning``), which is precisely the extra state the ordinary pass must not
keep. Returning the features from the one loop avoids that and costs nothing when they are not asked
for: ``return_features`` is a Python bool, resolved at trace time, so the plain call traces to the same
program as an MLP without the option.

Usage::

    model = MLP(4, 32, 3, rngs=nnx.Rngs(0))
    logits = model(x)                                   # training / evaluation: logits only
    logits, (h1, h2) = forward_with_features(model, x)  # analysis

    @nnx.jit
    def analyse(model, x):
        return forward_with_features(model, x)
"""

from __future__ import annotations

import jax
from flax import nnx


class MLP(nnx.Module):
    """Linear -> ReLU -> Linear -> ReLU -> Linear (logits)."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.hidden2 = nnx.Linear(dhidden, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def _run(self, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        """The single layer loop: returns the logits and the ReLU output of each hidden layer."""
        features: list[jax.Array] = []
        h = x
        for layer in (self.hidden1, self.hidden2):
            h = nnx.relu(layer(h))
            features.append(h)
        return self.out(h), features

    def __call__(self, x: jax.Array, *, return_features: bool = False):
        """Logits for ``x``; with ``return_features=True``, ``(logits, [relu(hidden1), relu(hidden2)])``."""
        logits, features = self._run(x)
        if return_features:
            return logits, features
        return logits


def forward_with_features(model: MLP, x: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
    """Return ``(logits, [ReLU output of hidden1, ReLU output of hidden2])`` for ``x``.

    Leaves no state on ``model``; usable directly or inside ``nnx.jit``.
    """
    logits, features = model(x, return_features=True)
    return logits, list(features)
