"""optax.contrib.dog with r_eps = value * (1 + ||x_0||): init_step=("heuristic", value)."""

import optax
import optax.contrib


def make_optimizer(relative_initial_distance: float) -> optax.GradientTransformation:
    return optax.contrib.dog(init_step=("heuristic", relative_initial_distance))
