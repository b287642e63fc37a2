"""Learning-rate sweep that compiles once.

The recompilations came from the learning rate being a compile-time constant (a static argument or a
Python value closed over when building the optimizer inside the traced function). Here the learning
rate is an ordinary traced argument of the jitted ``fit``: ``optax.adam`` accepts a (traced) scalar
array as its learning rate, so one compiled program serves every learning rate. Only ``num_steps``
is static, because it fixes the length of the loop and the shape of ``losses``; the whole training
loop runs inside the compiled program with ``jax.lax.scan``.

    for lr in [1e-3, 3e-3, 1e-2, 3e-2]:
        params_lr, losses = fit(params, x, y, lr, 500)   # compiles on the first lr only
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@functools.partial(jax.jit, static_argnames=("num_steps",))
def fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: float, num_steps: int):
    """num_steps full-batch Adam(learning_rate) steps; returns (final_params, losses).

    losses[i] is the loss before step i, shape (num_steps,). learning_rate is traced (no
    recompilation when it changes); num_steps is static.
    """
    learning_rate = jnp.asarray(learning_rate, dtype=jnp.float32)
    optimizer = optax.adam(learning_rate)
    opt_state = optimizer.init(params)

    def step(carry, _):
        params, opt_state = carry
        loss, grads = jax.value_and_grad(_loss)(params, x, y)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return (params, opt_state), loss

    (params, _), losses = jax.lax.scan(step, (params, opt_state), xs=None, length=num_steps)
    return params, losses
