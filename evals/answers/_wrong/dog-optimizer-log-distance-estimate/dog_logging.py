"""Optax 0.2.5 form: the DoGState field estim_dist (renamed max_dist since)."""

import jax
import jax.numpy as jnp

EPS = 1e-8  # optax.contrib.dog's default eps


def dog_diagnostics(opt_state) -> tuple[jax.Array, jax.Array]:
    dog_state = opt_state[1]  # dog() = chain(identity, scale_by_dog, scale_by_learning_rate)
    distance = dog_state.estim_dist
    return distance, distance / jnp.sqrt(dog_state.sum_sq_norm_grads + EPS)
