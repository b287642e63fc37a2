"""A jitted Adam step without donation: the old params and optimizer state stay allocated."""

import jax
import jax.numpy as jnp
import optax

TX = optax.adam(1e-2)


def init(params: dict) -> optax.OptState:
    return TX.init(params)


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@jax.jit
def train_step(params: dict, opt_state, x: jax.Array, y: jax.Array):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = TX.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss
