"""Read DoG's distance estimate from its state by name: DoGState.max_dist and sum_sq_norm_grads."""

import jax
import jax.numpy as jnp
import optax

EPS = 1e-8  # optax.contrib.dog's default eps


def dog_diagnostics(opt_state) -> tuple[jax.Array, jax.Array]:
    dog_state = optax.tree.get(opt_state, "DoGState")
    distance = dog_state.max_dist
    return distance, distance / jnp.sqrt(dog_state.sum_sq_norm_grads + EPS)
