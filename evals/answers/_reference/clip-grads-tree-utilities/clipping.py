"""Clip a gradient pytree by its global norm with the jax.tree utilities."""

import jax
import jax.numpy as jnp


def global_norm(tree) -> jax.Array:
    """sqrt of the sum of squares over every leaf."""
    return jnp.sqrt(sum(jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(tree)))


def clip_by_global_norm(tree, max_norm: float):
    """Scale every leaf by min(1, max_norm / global_norm); None subtrees have no leaves and stay None."""
    scale = jnp.minimum(1.0, max_norm / global_norm(tree))
    return jax.tree.map(lambda leaf: leaf * scale, tree)
