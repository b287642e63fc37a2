"""The habit from NumPy: append to the history inside the jitted step (a new shape every step)."""

import jax
import jax.numpy as jnp


def loss(x: jax.Array) -> jax.Array:
    return jnp.sum(x**2)


@jax.jit
def step(x: jax.Array, history: jax.Array, learning_rate: float) -> tuple[jax.Array, jax.Array]:
    value, grad = jax.value_and_grad(loss)(x)
    return x - learning_rate * grad, jnp.append(history, value)


def descend(x0: jax.Array, num_steps: int, learning_rate: float) -> tuple[jax.Array, jax.Array]:
    x, history = x0, jnp.zeros((0,), x0.dtype)
    for _ in range(num_steps):
        x, history = step(x, history, learning_rate)
    return x, history
