"""A scanned stack of residual MLP blocks whose scan body is checkpointed (remat per layer)."""

import jax
import jax.numpy as jnp


def block(h: jax.Array, w: tuple[jax.Array, jax.Array]) -> jax.Array:
    """One residual MLP block: h + gelu(h @ w1) @ w2."""
    w1, w2 = w
    return h + jax.nn.gelu(h @ w1) @ w2


@jax.checkpoint
def _step(h: jax.Array, w: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, None]:
    return block(h, w), None


def loss(params: tuple[jax.Array, jax.Array], x: jax.Array) -> jax.Array:
    """mean(h ** 2) after all blocks; the backward pass recomputes each block from its input."""
    out, _ = jax.lax.scan(_step, x, params)
    return jnp.mean(out**2)
