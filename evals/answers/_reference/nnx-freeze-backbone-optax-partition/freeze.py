"""optax.partition with labels built over the nnx.State of the Params (one label per parameter)."""

import optax
from flax import nnx


def label(path: tuple, _: nnx.Variable) -> str:
    return "frozen" if path[0] == "backbone" else "train"


def create_optimizer(model: nnx.Module, learning_rate: float) -> nnx.Optimizer:
    labels = nnx.map_state(label, nnx.state(model, nnx.Param))
    tx = optax.partition(
        {"train": optax.adamw(learning_rate, weight_decay=1e-2), "frozen": optax.set_to_zero()}, labels
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)
