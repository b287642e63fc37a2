"""The natural port: Adam with a weight_decay argument is optax.adamw (decoupled decay, not torch's L2)."""

import optax


def make_optimizer(learning_rate: float, weight_decay: float) -> optax.GradientTransformation:
    return optax.adamw(learning_rate, weight_decay=weight_decay)
