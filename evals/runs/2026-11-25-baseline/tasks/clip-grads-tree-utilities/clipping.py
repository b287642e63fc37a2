"""Gradient clipping by global norm for arbitrary pytrees (no optax needed).

None entries are empty subtrees for jax.tree_util, so frozen (None) parts are simply skipped by
``tree_leaves`` and preserved by ``tree_map``. Everything is jnp code, so it works under jax.jit
(``max_norm`` may also be traced).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _sum_of_squares(x) -> jax.Array:
    x = jnp.asarray(x)
    if jnp.iscomplexobj(x):
        sq = jnp.real(x * jnp.conj(x))
    else:
        # Accumulate low-precision leaves (bf16/f16/int) in at least float32.
        sq = jnp.square(x.astype(jnp.promote_types(x.dtype, jnp.float32)))
    return jnp.sum(sq)


def global_norm(tree) -> jax.Array:
    """Scalar: sqrt of the sum of squares of every leaf of the pytree."""
    leaves = jax.tree_util.tree_leaves(tree)
    if not leaves:
        return jnp.zeros((), jnp.float32)
    total = sum(_sum_of_squares(leaf) for leaf in leaves)
    return jnp.sqrt(total)


def clip_by_global_norm(tree, max_norm: float):
    """Scale every leaf by min(1, max_norm / global_norm(tree)); None subtrees stay None."""
    norm = global_norm(tree)
    max_norm = jnp.asarray(max_norm, norm.dtype)
    clip = norm > max_norm
    # Avoid dividing by zero (the division result is only used when norm > max_norm >= 0).
    safe_norm = jnp.where(clip, norm, jnp.ones_like(norm))
    scale = jnp.where(clip, max_norm / safe_norm, jnp.ones_like(norm))

    def _scale(x):
        x = jnp.asarray(x)
        return (x * scale).astype(x.dtype)

    return jax.tree_util.tree_map(_scale, tree)
