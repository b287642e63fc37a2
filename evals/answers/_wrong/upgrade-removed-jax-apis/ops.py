"""Small array helpers."""

import jax
import jax.numpy as jnp


def masked_max(x: jax.Array, mask: jax.Array) -> jax.Array:
    """Max over the last axis of the entries where mask is True; -inf where a row has none."""
    return jnp.max(jnp.where(mask, x, -jnp.inf), axis=-1)


def scale_tree(tree, factor):
    """Multiply every leaf of a pytree by factor."""
    return jax.tree.map(lambda leaf: leaf * factor, tree)


def noise(key: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    """Standard normal noise of the given shape; key comes from jax.random.key."""
    return jax.random.normal(key, shape)
