"""Fine-tune only the head of an NNX model; keep the backbone frozen.

Why the dict of labels failed: ``nnx.Optimizer`` hands optax an ``nnx.State`` of the model's Params
(nested by module path down to every parameter), not a plain ``{"backbone": ..., "head": ...}`` dict,
so a labels dict with just two leaves cannot match its pytree structure. Give
``optax.multi_transform`` a *function* instead: it is called with that exact parameter tree (at init)
and the gradient tree (at update) and returns a label for every leaf, derived from the leaf's path
(its first entry is the submodule name).

* head Params -> ``optax.adamw(learning_rate, weight_decay=1e-2)``
* backbone Params -> ``optax.set_to_zero()``: zero updates, so ``param + 0`` leaves them bit-identical,
  and no AdamW moments are allocated for them.

The optimizer still tracks all ``nnx.Param``s (``wrt=nnx.Param``), so it accepts the full gradients
from ``nnx.grad(loss_fn)(model)``:

    optimizer = create_optimizer(model, 1e-3)
    optimizer.update(model, nnx.grad(loss_fn)(model))
"""

from __future__ import annotations

import jax
import optax
from flax import nnx

TRAIN, FROZEN = "train", "frozen"


def _key_name(entry):
    for attr in ("key", "name", "idx"):
        if hasattr(entry, attr):
            return getattr(entry, attr)
    return entry


def _labels(tree):
    def label(path, _):
        first = _key_name(path[0]) if path else None
        return TRAIN if first == "head" else FROZEN

    return jax.tree_util.tree_map_with_path(label, tree)


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    """AdamW(learning_rate, weight_decay=1e-2) on model.head's Params; model.backbone unchanged."""
    tx = optax.multi_transform(
        {
            TRAIN: optax.adamw(learning_rate, weight_decay=1e-2),
            FROZEN: optax.set_to_zero(),
        },
        _labels,
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)
