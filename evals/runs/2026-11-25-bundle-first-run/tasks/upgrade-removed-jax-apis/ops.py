"""Small array helpers (upgraded for jax 0.12).

Changes from the jax 0.4.1x version, each a removed API (AttributeError at import or call):
- jnp.NINF -> -jnp.inf (jax.numpy dropped the NumPy 1 constant aliases NINF, PINF, NaN, Inf);
- jax.tree_map -> jax.tree.map (the top-level jax.tree_* aliases are gone);
- jax.random.KeyArray -> jax.Array (typed keys from jax.random.key are arrays with a key dtype).
"""

import jax
import jax.numpy as jnp


def masked_max(x, mask):
    """Max over the last axis of the entries where mask is True; -inf where a row has none."""
    return jnp.max(jnp.where(mask, x, -jnp.inf), axis=-1)


def scale_tree(tree, factor):
    """Multiply every leaf of a pytree by factor."""
    return jax.tree.map(lambda leaf: leaf * factor, tree)


def noise(key: jax.Array, shape) -> jax.Array:
    """Standard normal noise of the given shape, for a typed key from jax.random.key."""
    return jax.random.normal(key, shape)
