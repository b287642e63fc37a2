"""Fine-tune only the head of a Flax NNX model: AdamW on the head, the backbone frozen bit-for-bit.

Why the original fails: under `nnx.Optimizer`, Optax's `init` receives `nnx.state(model, nnx.Param)`
and `update` receives the gradients as an `nnx.State`. `optax.partition` (`optax.multi_transform` is
its older name, the same function) needs labels with the structure of that tree (or a prefix of it),
so a plain dict `{"backbone": ..., "head": ...}` is the wrong pytree type ("pytree structure error:
different types at key path"). The labels must be an `nnx.State`. `nnx.map_state(f, state)` builds
one, calling `f(path, variable)` for every parameter.

Why `set_to_zero` and not something else:
- `optax.set_to_zero()` returns zero updates, so `param + 0` leaves the backbone bit-identical, and it
  keeps no optimizer state (no Adam moments are allocated for the backbone).
- `optax.masked(adamw, mask)` would pass the raw gradient through for the masked-out leaves: the
  backbone would take a step of gradient *ascent*.
- Zeroing the backbone gradients would not freeze it either: AdamW's weight decay still shrinks
  parameters whose gradient is zero.

Usage, as in the question (gradients for all Params are fine; the backbone's are ignored):

    optimizer = create_optimizer(model, 1e-3)

    @nnx.jit
    def train_step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
        optimizer.update(model, grads)
        return loss

To also skip computing the backbone's gradients, the alternative is a filter:
`nnx.Optimizer(model, optax.adamw(...), wrt=nnx.All(nnx.Param, nnx.PathContains("head")))` together
with `nnx.value_and_grad(loss_fn, argnums=nnx.DiffState(0, same_filter))`.
"""

import optax
from flax import nnx


def _label(path: tuple, _variable: nnx.Variable) -> str:
    """'train' for every parameter under model.head, 'frozen' for everything else (the backbone)."""
    return "train" if path[0] == "head" else "frozen"


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    """nnx.Optimizer: AdamW (weight decay 1e-2) on model.head's Params; model.backbone never changes.

    Use as `optimizer.update(model, nnx.grad(loss_fn)(model))`, with gradients for all Params.
    """
    params = nnx.state(model, nnx.Param)
    labels = nnx.map_state(_label, params)  # an nnx.State of strings, same structure as the params
    tx = optax.partition(
        {
            "train": optax.adamw(learning_rate, weight_decay=1e-2),
            "frozen": optax.set_to_zero(),
        },
        labels,
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)
