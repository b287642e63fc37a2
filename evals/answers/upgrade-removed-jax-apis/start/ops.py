"""Small array helpers (written for jax 0.4.1x)."""

import jax
import jax.numpy as jnp


def masked_max(x, mask):
    """Max over the last axis of the entries where mask is True; -inf where a row has none."""
    return jnp.max(jnp.where(mask, x, jnp.NINF), axis=-1)


def scale_tree(tree, factor):
    """Multiply every leaf of a pytree by factor."""
    return jax.tree_map(lambda leaf: leaf * factor, tree)


def noise(key: jax.random.KeyArray, shape) -> jax.Array:
    """Standard normal noise of the given shape."""
    return jax.random.normal(key, shape)
