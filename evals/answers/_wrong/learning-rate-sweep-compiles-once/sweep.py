"""The optimizer's learning rate is a static argument: a Python constant baked into each program."""

from functools import partial

import jax
import jax.numpy as jnp
import optax


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@partial(jax.jit, static_argnames=("learning_rate", "num_steps"))
def fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: float, num_steps: int):
    tx = optax.adam(learning_rate)

    def step(carry, _):
        params, state = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, state = tx.update(grads, state, params)
        return (optax.apply_updates(params, updates), state), loss

    (params, _), losses = jax.lax.scan(step, (params, tx.init(params)), length=num_steps)
    return params, losses
