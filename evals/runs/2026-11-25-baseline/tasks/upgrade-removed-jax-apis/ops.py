"""Small array helpers (updated for the current JAX).

Changes from the jax 0.4.1x version:
* `jnp.NINF` was removed (NumPy 2 removed it too): use `-jnp.inf`.
* `jax.tree_map` was removed: use `jax.tree.map`.
* `jax.random.KeyArray` was removed: keys are plain `jax.Array`s (typed keys from
  `jax.random.key` have a key dtype), so the annotation is `jax.Array`.
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
    """Standard normal noise of the given shape (key: a typed key from jax.random.key)."""
    return jax.random.normal(key, shape)
