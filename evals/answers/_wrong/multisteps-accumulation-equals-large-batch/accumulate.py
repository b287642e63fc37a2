"""The older recipe: apply_every after the optimizer, which sums k Adam updates."""

import optax


def make_accumulating_optimizer(learning_rate: float, k: int) -> optax.GradientTransformation:
    return optax.chain(optax.adam(learning_rate), optax.apply_every(k))
