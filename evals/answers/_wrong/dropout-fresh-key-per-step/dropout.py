"""The key is passed unchanged to every step's dropout: the same mask every step."""

import jax
import jax.numpy as jnp


@jax.jit
def dropout(key: jax.Array, x: jax.Array, rate: float) -> jax.Array:
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def dropout_steps(key: jax.Array, x: jax.Array, num_steps: int, rate: float) -> jax.Array:
    return jnp.stack([dropout(key, x, rate) for _ in range(num_steps)])
