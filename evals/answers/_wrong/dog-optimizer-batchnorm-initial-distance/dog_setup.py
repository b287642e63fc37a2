"""Optax 0.2.5 form: the reps_rel keyword, removed since (now init_step=("heuristic", value))."""

import optax
import optax.contrib


def make_optimizer(relative_initial_distance: float) -> optax.GradientTransformation:
    return optax.contrib.dog(reps_rel=relative_initial_distance)
