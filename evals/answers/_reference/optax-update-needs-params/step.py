"""Pass the current parameters as update's third argument."""

import jax
import jax.numpy as jnp
import optax


def loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def make_train_step(tx):
    @jax.jit
    def step(params: dict, opt_state, x: jax.Array, y: jax.Array):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    return step
