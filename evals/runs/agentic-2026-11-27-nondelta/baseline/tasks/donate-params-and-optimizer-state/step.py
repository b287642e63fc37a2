"""Adam training step that reuses the parameter and optimizer-state buffers.

``jax.jit`` normally allocates fresh output buffers, so while the step runs the
old params/opt_state and the new ones are both alive.  Passing them as
*donated* arguments (``donate_argnums``) lets XLA write the outputs into the
input buffers (they have the same shapes and dtypes), so only one copy exists.

Contract for the caller: after ``params, opt_state, loss = train_step(params,
opt_state, x, y)`` the *old* ``params``/``opt_state`` arrays are deleted
(reading them raises "Array has been deleted"), so always rebind the names to
the returned values, as in the loop below.  Don't donate ``x``/``y``: they are
not reused as outputs, and you may want to keep them.

    params = {"w": w, "b": b}
    opt_state = init(params)
    for x, y in batches:
        params, opt_state, loss = train_step(params, opt_state, x, y)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 1e-2
optimizer = optax.adam(LEARNING_RATE)


def init(params: dict) -> optax.OptState:
    """Adam(1e-2) optimizer state for params = {"w": f32[d, k], "b": f32[k]}."""
    return optimizer.init(params)


def _loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


def _train_step(params: dict, opt_state, x: jax.Array, y: jax.Array):
    loss, grads = jax.value_and_grad(_loss_fn)(params, x, y)
    updates, new_opt_state = optimizer.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, new_opt_state, loss


# Donate params (arg 0) and opt_state (arg 1): their buffers are reused for
# new_params and new_opt_state instead of allocating new ones each step.
train_step = jax.jit(_train_step, donate_argnums=(0, 1))
