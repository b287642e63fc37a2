"""optax.MultiSteps averages k gradients and runs the inner optimizer once per k calls."""

import optax


def make_accumulating_optimizer(learning_rate: float, k: int) -> optax.MultiSteps:
    return optax.MultiSteps(optax.adam(learning_rate), every_k_schedule=k)
