"""The learning rate is a traced argument of one jitted, scanned fit: new rates reuse the program."""

from functools import partial

import jax
import jax.numpy as jnp
import optax


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@partial(jax.jit, static_argnames="num_steps")
def fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: float, num_steps: int):
    tx = optax.adam(learning_rate)  # learning_rate is a tracer here, not a constant

    def step(carry, _):
        params, state = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, state = tx.update(grads, state, params)
        return (optax.apply_updates(params, updates), state), loss

    (params, _), losses = jax.lax.scan(step, (params, tx.init(params)), length=num_steps)
    return params, losses
