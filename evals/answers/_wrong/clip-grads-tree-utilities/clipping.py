"""The version most tutorials show: top-level jax.tree_* aliases, removed from JAX."""

import jax
import jax.numpy as jnp


def global_norm(tree) -> jax.Array:
    return jnp.sqrt(sum(jnp.sum(jnp.square(leaf)) for leaf in jax.tree_leaves(tree)))


def clip_by_global_norm(tree, max_norm: float):
    scale = jnp.minimum(1.0, max_norm / global_norm(tree))
    return jax.tree_map(lambda leaf: leaf * scale, tree)
