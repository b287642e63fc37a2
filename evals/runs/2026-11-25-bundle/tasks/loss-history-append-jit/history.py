"""Gradient descent with a loss history, compiled once.

Why the original slows down: `jnp.append(history, loss)` returns a *longer* array, so the jitted
step receives a history of a new shape on every call. A new input shape means a new trace and a new
compilation, every step, and the jit cache keeps one more executable each time.

The fix: the history never grows inside compiled code. `lax.scan` runs the whole loop inside one
compiled program and stacks the per-step losses into an array whose length, `num_steps`, is known
when the function is traced. `num_steps` is static (it fixes the output shape): one compilation per
distinct `num_steps`, never one per step. `learning_rate` is traced, so trying other learning rates
reuses the same program.

If you need to keep a Python loop around a jitted step instead (e.g. for logging or checkpointing
between steps), preallocate `history = jnp.zeros(num_steps)` and write step `i` with
`history.at[i].set(loss)`, passing `i` as an array: every call then has the same shapes.
"""

import jax
import jax.numpy as jnp
from jax import lax


def _loss(x: jax.Array) -> jax.Array:
    """f(x) = sum(x**2)."""
    return jnp.sum(x**2)


@jax.jit(static_argnames="num_steps")
def descend(x0: jax.Array, num_steps: int, learning_rate: float) -> tuple[jax.Array, jax.Array]:
    """Run `num_steps` gradient-descent steps on f(x) = sum(x**2) from `x0`, in one compiled loop.

    Returns:
        (x_final, losses): `losses` has shape (num_steps,), and losses[i] = f(x) before step i.
    """
    x0 = jnp.asarray(x0)
    if not jnp.issubdtype(x0.dtype, jnp.floating):  # gradients need a float input
        x0 = x0.astype(jnp.float32)

    def step(x: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        value, grad = jax.value_and_grad(_loss)(x)  # value = f(x) before this step
        return x - learning_rate * grad, value

    x_final, losses = lax.scan(step, x0, length=num_steps)
    return x_final, losses
