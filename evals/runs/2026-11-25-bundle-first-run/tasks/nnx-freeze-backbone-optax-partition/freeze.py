"""Fine-tune the head of a Flax NNX model with AdamW while the backbone stays bit-identical.

Why ``optax.multi_transform(..., {"backbone": "frozen", "head": "train"})`` failed: under
``nnx.Optimizer`` the transformation is initialised on ``nnx.state(model, nnx.Param)`` and updated
with the gradient ``nnx.State``, so the labels must be an ``nnx.State`` too (or a prefix of one). A
plain ``dict`` is a different pytree node type, hence ``ValueError: pytree structure error: different
types at key path``. (``optax.multi_transform`` is the old name of ``optax.partition``; same function.)

The fix builds the labels with ``nnx.map_state`` over the model's Params, which returns an
``nnx.State`` with exactly the structure ``tx.init`` and ``tx.update`` see, one label per parameter:

* ``"train"`` for every Param under ``model.head``: ``optax.adamw(learning_rate, weight_decay=1e-2)``;
* ``"frozen"`` for everything else (the backbone): ``optax.set_to_zero()``, whose update is exactly
  zero, so the parameter comes out of every step bit-identical.

Two tempting alternatives do *not* freeze: ``optax.masked(adamw, mask)`` passes the raw gradient
through as the update for masked-out leaves (the backbone would move by +grad), and zeroing the
backbone's gradients under one AdamW still applies weight decay (and Adam momentum) to it.

Usage (gradients for *all* Params, as ``nnx.grad`` returns by default)::

    optimizer = create_optimizer(model, 1e-3)

    @nnx.jit
    def train_step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
        optimizer.update(model, grads)
        return loss

AdamW keeps moment estimates only for the head; the frozen group has no optimizer state.
"""

from __future__ import annotations

import optax
from flax import nnx

TRAIN, FROZEN = "train", "frozen"


def _label(path: tuple, _: nnx.Variable) -> str:
    """'train' for the head's parameters, 'frozen' for the backbone (and anything else)."""
    return TRAIN if path and path[0] == "head" else FROZEN


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    """An ``nnx.Optimizer`` over all Params: AdamW on ``model.head``, ``model.backbone`` frozen exactly."""
    labels = nnx.map_state(_label, nnx.state(model, nnx.Param))  # an nnx.State of strings
    tx = optax.partition(
        {
            TRAIN: optax.adamw(learning_rate, weight_decay=1e-2),
            FROZEN: optax.set_to_zero(),
        },
        labels,
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)
