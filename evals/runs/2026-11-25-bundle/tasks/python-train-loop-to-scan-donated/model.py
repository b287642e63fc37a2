"""A two-layer MLP regression model as plain functions of a params dict."""

import jax
import jax.numpy as jnp


def init_params(key: jax.Array, d: int, hidden: int, k: int) -> dict:
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (d, hidden)) / jnp.sqrt(d),
        "b1": jnp.zeros((hidden,)),
        "w2": jax.random.normal(k2, (hidden, k)) / jnp.sqrt(hidden),
        "b2": jnp.zeros((k,)),
    }


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    hidden = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean((hidden @ params["w2"] + params["b2"] - y) ** 2)
