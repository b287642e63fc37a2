"""An MLP forward pass that fixes its own dtype: float32 compute whatever jax_enable_x64 says."""

import jax
import jax.numpy as jnp

DTYPE = jnp.float32


def mlp_forward(params: dict, x) -> jax.Array:
    params = jax.tree.map(lambda leaf: jnp.asarray(leaf, dtype=DTYPE), params)
    x = jnp.asarray(x, dtype=DTYPE)
    hidden = jnp.tanh(x @ params["w1"] + params["b1"])
    return hidden @ params["w2"] + params["b2"]
