"""The natural port: the same hyperparameters, Optax's default eps placement (inside the square root)."""

import optax


def make_optimizer() -> optax.GradientTransformation:
    return optax.chain(
        optax.clip_by_global_norm(40.0),
        optax.rmsprop(learning_rate=0.0006, decay=0.99, eps=0.01),
    )
