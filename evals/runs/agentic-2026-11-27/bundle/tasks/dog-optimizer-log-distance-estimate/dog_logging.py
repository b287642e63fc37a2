"""Read DoG's distance estimate and last step size from an optax.contrib.dog() state.

optax 0.2.8: optax.contrib.dog() is a chain whose state is a tuple holding one
optax.contrib.DoGState(is_init_step, init_params, max_dist, sum_sq_norm_grads).
(The 0.2.5 field names `estim_dist` / `first_step` no longer exist.)

- `max_dist` starts at the heuristic initial distance 1e-6 * (1 + ||x_0||) and, in each update,
  becomes max(max_dist, ||x_t - x_0||) measured at the parameters passed to that update, *before*
  the step is applied. So after an update it is exactly the distance that update used.
- `sum_sq_norm_grads` already includes the gradient of the last update.
- The step size that update applied is max_dist / sqrt(sum_sq_norm_grads + 1e-8) (times DoG's
  `learning_rate` multiplier, 1.0 by default).
"""

import jax
import jax.numpy as jnp
import optax

_EPS = 1e-8  # optax.contrib.dog's default `eps`


def dog_diagnostics(opt_state: optax.OptState) -> tuple[jax.Array, jax.Array]:
    """Return (distance, step_size) of the last DoG update, read from the optimizer state.

    Works on the state of optax.contrib.dog() directly and on any state that nests exactly one
    DoGState (e.g. inside optax.chain); works eagerly and under jax.jit.
    """
    dog_state = optax.tree.get(opt_state, "DoGState")  # raises if absent or ambiguous
    distance = jnp.asarray(dog_state.max_dist)
    step_size = distance / jnp.sqrt(dog_state.sum_sq_norm_grads + _EPS)
    return distance, step_size
