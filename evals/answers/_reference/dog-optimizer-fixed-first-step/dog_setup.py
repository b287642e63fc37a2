"""optax.contrib.dog whose first step uses a chosen learning rate: init_step=("learning_rate", value)."""

import optax
import optax.contrib


def make_optimizer(first_step_size: float) -> optax.GradientTransformation:
    return optax.contrib.dog(init_step=("learning_rate", first_step_size))
