"""Gradient clipping by global norm over an arbitrary pytree, without optax.

Works on nested dicts / tuples / lists (and registered pytree classes). ``None`` is an empty subtree
in JAX, not a leaf: ``jax.tree.leaves`` skips it and ``jax.tree.map`` leaves it as ``None``, so frozen
parts stored as ``None`` need no special handling. Everything is traceable: no Python ``if`` on the
norm (``jnp.minimum`` instead), so both functions work inside ``jax.jit``.

Example::

    grads = {"enc": {"w": jnp.ones((3, 4)), "b": None}, "head": (jnp.ones(2), None)}
    clipped = jax.jit(clip_by_global_norm)(grads, 1.0)  # max_norm may be traced
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _sum_of_squares(leaf) -> jax.Array:
    leaf = jnp.asarray(leaf)
    # Accumulate in at least float32, so bfloat16/float16 gradients do not lose precision or overflow.
    acc_dtype = jnp.promote_types(leaf.dtype, jnp.float32)
    return jnp.sum(jnp.square(leaf.astype(acc_dtype)))


def global_norm(tree) -> jax.Array:
    """Scalar: sqrt of the sum of squares of every leaf of the pytree (``None`` subtrees ignored)."""
    leaves = jax.tree.leaves(tree)
    if not leaves:  # structure is static, so this Python branch is fine under jit
        return jnp.zeros((), dtype=jnp.float32)
    return jnp.sqrt(sum(_sum_of_squares(leaf) for leaf in leaves))


def clip_by_global_norm(tree, max_norm: float):
    """Scale every leaf by ``min(1, max_norm / global_norm(tree))``; same structure, ``None`` kept.

    ``max_norm`` may be a Python float or a (traced) scalar array. A zero gradient (norm 0) gives a
    factor of 1, not NaN.
    """
    norm = global_norm(tree)
    # max_norm / 0 = inf, and min(1, inf) = 1, but guard anyway so no inf/NaN enters the graph.
    safe_norm = jnp.where(norm > 0, norm, 1.0)
    scale = jnp.minimum(1.0, max_norm / safe_norm)
    scale = jnp.where(norm > 0, scale, 1.0)
    # Multiply in each leaf's own dtype, so the clipped tree keeps the dtypes of the input.
    return jax.tree.map(lambda g: (jnp.asarray(g) * scale.astype(jnp.asarray(g).dtype)), tree)


if __name__ == "__main__":
    grads = {
        "encoder": {"w": jnp.full((3, 4), 2.0), "b": None},
        "head": (jnp.array([3.0, 4.0]), None),
    }
    norm = global_norm(grads)
    clipped = jax.jit(clip_by_global_norm)(grads, 1.0)
    print("norm before", float(norm), "after", float(global_norm(clipped)))
    assert clipped["encoder"]["b"] is None and clipped["head"][1] is None
    assert jnp.allclose(global_norm(clipped), 1.0, rtol=1e-6)
    same = jax.jit(clip_by_global_norm)(grads, 100.0)  # below the threshold: unchanged
    assert jnp.allclose(same["head"][0], grads["head"][0])
