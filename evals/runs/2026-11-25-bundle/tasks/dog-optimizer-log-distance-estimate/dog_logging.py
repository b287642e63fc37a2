"""Read DoG's distance estimate and last step size from the optax.contrib.dog() optimizer state.

`optax.contrib.dog()` returns a chain of transformations, so its state is a tuple of named states;
DoG's own part is an `optax.contrib.DoGState`. In optax 0.2.8 its fields are

    DoGState(is_init_step, init_params, max_dist, sum_sq_norm_grads)

(older releases called them `first_step` and `estim_dist`; those names are gone). After an update:

  * `max_dist` is DoG's running maximum of ||x_t - x_0||, which starts at its initial value
    r_eps = 1e-6 * (1 + ||x_0||) with the default `init_step=("heuristic", 1e-6)`;
  * `sum_sq_norm_grads` is sum_{k<=t} ||g_k||^2, including the gradient of that update.

The update's step size is max_dist / sqrt(sum_sq_norm_grads + eps) with the default eps = 1e-8,
computed here from the two stored values (no gradients or parameters needed).

`optax.tree.get(state, "DoGState")` finds the DoG state by name wherever it sits in the chain, so
this keeps working if you wrap dog() in `optax.chain(optax.clip_by_global_norm(...), dog())` etc.
It is pure jnp arithmetic, so it can be called inside a jitted train step as well as outside.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
import optax.contrib

DOG_EPS = 1e-8  # optax.contrib.dog's default eps


def dog_diagnostics(opt_state) -> tuple[jax.Array, jax.Array]:
    """(distance, step_size) of the last DoG update, read from the optimizer state.

    distance:  the running maximum distance estimate stored in the state (DoGState.max_dist).
    step_size: distance / sqrt(sum of squared gradient norms so far + 1e-8), the learning rate
               that the last update used.
    """
    dog_state = optax.tree.get(opt_state, "DoGState")
    distance = jnp.asarray(dog_state.max_dist)
    sum_sq = jnp.asarray(dog_state.sum_sq_norm_grads)
    step_size = distance / jnp.sqrt(sum_sq + DOG_EPS)
    return distance, step_size


if __name__ == "__main__":
    params = {"w": jnp.full((3, 2), 0.5), "b": jnp.zeros(2)}
    x0 = params
    opt = optax.contrib.dog()
    state = opt.init(params)
    grads = jax.tree.map(jnp.ones_like, params)
    for step in range(3):
        updates, state = opt.update(grads, state, params)
        distance, step_size = dog_diagnostics(state)
        # The update is -step_size * g (learning_rate multiplier 1.0).
        assert optax.tree.allclose(updates, jax.tree.map(lambda g: -step_size * g, grads))
        params = optax.apply_updates(params, updates)
        print(f"step {step}: distance {float(distance):.3e}, step size {float(step_size):.3e}")
    # After the first update the distance is r_eps = 1e-6 * (1 + ||x_0||).
