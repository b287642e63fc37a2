"""Adam training step that reuses the parameter and optimizer-state buffers (buffer donation).

By default a jitted function cannot overwrite its inputs: XLA must allocate fresh output buffers for
the new params and the new Adam moments while the old ones are still alive, so peak memory holds two
copies. ``donate_argnums`` tells JAX that the caller gives up the input buffers; XLA can then write
the outputs in place into them (the shapes/dtypes of the new params and state match the old ones).

Contract for the caller: after ``params, opt_state, loss = train_step(params, opt_state, x, y)``
the *old* ``params`` / ``opt_state`` arrays are deleted and must not be used again (reading them
raises "Array has been deleted"). Rebinding the names, as in the loop below, is exactly right.

    opt_state = init(params)
    for x, y in batches:
        params, opt_state, loss = train_step(params, opt_state, x, y)

(On a backend that cannot donate, JAX only emits a warning and falls back to copying.)
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax

_optimizer = optax.adam(1e-2)


def init(params: dict) -> optax.OptState:
    """Adam(1e-2) optimizer state for params = {"w": f32[d, k], "b": f32[k]}."""
    return _optimizer.init(params)


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@functools.partial(jax.jit, donate_argnums=(0, 1))  # donate params and opt_state
def train_step(params: dict, opt_state, x: jax.Array, y: jax.Array):
    """One Adam step; returns (new_params, new_opt_state, loss before the step).

    params and opt_state are donated: their buffers are reused for the outputs.
    """
    loss, grads = jax.value_and_grad(_loss)(params, x, y)
    updates, new_opt_state = _optimizer.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, new_opt_state, loss
