"""Gradient clipping by global norm for arbitrary gradient pytrees, without optax.

Works on nested dicts / tuples / lists with `None` for frozen parts: `None` is an empty subtree in
JAX (not a leaf), so `jax.tree.leaves` skips it and `jax.tree.map` returns it unchanged.

Everything is traceable (no Python `if` on array values), so both functions work inside `jax.jit`.
Uses the `jax.tree` module (`jax.tree.leaves`, `jax.tree.map`); the old top-level aliases
`jax.tree_map` / `jax.tree_leaves` have been removed from JAX.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp


def global_norm(tree: Any) -> jax.Array:
    """sqrt of the sum of squares of every leaf of `tree` (a float32 scalar, or wider if leaves are).

    Squares are accumulated in at least float32, so bfloat16/float16 gradients do not overflow or
    lose precision in the sum. An empty tree (or one that is all None) has norm 0.
    """
    leaves = jax.tree.leaves(tree)
    if not leaves:
        return jnp.zeros((), dtype=jnp.float32)
    sq_sums = []
    for leaf in leaves:
        leaf = jnp.asarray(leaf)
        acc_dtype = jnp.promote_types(leaf.dtype, jnp.float32)
        sq_sums.append(jnp.sum(jnp.square(leaf.astype(acc_dtype))))
    return jnp.sqrt(sum(sq_sums))


def clip_by_global_norm(tree: Any, max_norm: float) -> Any:
    """Scale every leaf by min(1, max_norm / global_norm(tree)).

    If the global norm is at most `max_norm` the tree is returned numerically unchanged; otherwise
    every leaf is scaled by the same factor so that the new global norm equals `max_norm`. Leaf
    dtypes and the pytree structure (including None subtrees) are preserved. `max_norm` may be a
    Python float or a traced scalar.
    """
    norm = global_norm(tree)
    # jnp.where instead of a Python `if` (traced under jit). When norm == 0 the division gives inf,
    # but that branch is not selected, so the scale is exactly 1.
    scale = jnp.where(norm > max_norm, max_norm / norm, 1.0).astype(norm.dtype)
    return jax.tree.map(lambda g: (g * scale).astype(jnp.asarray(g).dtype), tree)


if __name__ == "__main__":
    grads = {
        "encoder": {"w": jnp.full((2, 2), 3.0), "b": jnp.full((2,), 4.0)},
        "head": (jnp.ones(3), None),  # None: frozen part
        "frozen": None,
    }

    @jax.jit
    def clip(g):
        return clip_by_global_norm(g, 1.0)

    clipped = clip(grads)
    print(global_norm(grads))        # sqrt(4*9 + 2*16 + 3) = sqrt(71) ~ 8.43
    print(global_norm(clipped))      # 1.0
    assert clipped["frozen"] is None and clipped["head"][1] is None
    same = clip_by_global_norm(grads, 100.0)  # below the threshold: unchanged
    assert all(bool(jnp.array_equal(a, b)) for a, b in zip(jax.tree.leaves(same), jax.tree.leaves(grads)))
