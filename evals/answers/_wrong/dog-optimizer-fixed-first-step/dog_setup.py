"""Optax 0.2.5 form: the init_learning_rate keyword, replaced by init_step since."""

import optax
import optax.contrib


def make_optimizer(first_step_size: float) -> optax.GradientTransformation:
    return optax.contrib.dog(init_learning_rate=first_step_size)
