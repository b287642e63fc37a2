"""Labels written as a dict by layer name, as for a Linen parameter dict."""

import optax
from flax import nnx


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    labels = {"backbone": "frozen", "head": "train"}
    tx = optax.multi_transform(
        {"train": optax.adamw(learning_rate, weight_decay=1e-2), "frozen": optax.set_to_zero()}, labels
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)
