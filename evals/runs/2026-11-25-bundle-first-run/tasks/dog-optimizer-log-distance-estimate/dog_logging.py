"""Read DoG's distance estimate and last step size from the state of optax.contrib.dog().

In optax 0.2.8 the state of ``optax.contrib.dog()`` contains an ``optax.contrib.DoGState`` with the
fields ``(is_init_step, init_params, max_dist, sum_sq_norm_grads)`` (optax <= 0.2.5 called them
``first_step`` and ``estim_dist``). ``dog()`` is a chain (DoG scaling, then the ``learning_rate=1.0``
multiplier), so find the ``DoGState`` by name with ``optax.tree.get`` rather than by position.

During ``update(grads, state, params)`` DoG sets

    max_dist          <- max(max_dist, ||params - init_params||)   (starts at 1e-6 * (1 + ||x_0||))
    sum_sq_norm_grads <- sum_sq_norm_grads + ||grads||^2
    step size         =  max_dist / sqrt(sum_sq_norm_grads + eps),   eps = 1e-8

and stores both accumulators, so the state after an update holds exactly what that update used.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
import optax.contrib

_EPS = 1e-8  # the default eps of optax.contrib.dog()


def dog_diagnostics(opt_state) -> tuple[jax.Array, jax.Array]:
    """Return (distance, step_size) of the last DoG update, read from ``opt_state``.

    distance: the running maximum distance estimate ``max_dist`` stored in the state.
    step_size: ``distance / sqrt(sum_sq_norm_grads + 1e-8)``, the learning rate the last update used
    (times the ``learning_rate=1.0`` multiplier of the default ``dog()``).

    Works on a concrete state and inside ``jax.jit``.
    """
    dog_state = optax.tree.get(opt_state, "DoGState")
    distance = jnp.asarray(dog_state.max_dist)
    step_size = distance / jnp.sqrt(jnp.asarray(dog_state.sum_sq_norm_grads) + _EPS)
    return distance, step_size


if __name__ == "__main__":
    opt = optax.contrib.dog()
    params = {"w": jnp.full((3, 2), 0.5), "b": jnp.zeros(2)}
    grads = {"w": jnp.ones((3, 2)), "b": jnp.ones(2)}
    state = opt.init(params)
    for _ in range(3):
        updates, state = opt.update(grads, state, params)
        distance, step_size = dog_diagnostics(state)
        # The update is -step_size * grads (learning_rate 1.0), so the two agree.
        assert jnp.allclose(updates["w"], -step_size * grads["w"], rtol=1e-5)
        params = optax.apply_updates(params, updates)
        print(f"distance {float(distance):.3e}  step size {float(step_size):.3e}")
