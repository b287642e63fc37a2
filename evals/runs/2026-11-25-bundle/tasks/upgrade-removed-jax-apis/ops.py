"""Small array helpers (upgraded to the current JAX API: jax 0.12).

Changes from the jax 0.4.1x version, all pure renames (names, arguments and results unchanged):
- `jnp.NINF` was removed with NumPy 2's aliases (AttributeError at import time): use `-jnp.inf`.
- `jax.tree_map` was removed (AttributeError): use `jax.tree.map`.
- `jax.random.KeyArray` was removed (AttributeError when the annotation is evaluated at import):
  keys are plain `jax.Array`s with a key dtype, as returned by `jax.random.key`.
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
