"""SGD step with global-norm clipping that also reports the (unclipped) global gradient norm.

The norm is computed from the raw ``grads`` before they go through the optax chain, with the same
definition optax's ``clip_by_global_norm`` uses (sqrt of the sum of squares of all leaves), so
``grad_norm > max_norm`` tells you exactly when clipping kicked in. ``learning_rate`` and ``max_norm``
may be traced (jit arguments): both ``optax.clip_by_global_norm`` and ``optax.sgd`` only use them in
array arithmetic.

Typical use inside a jitted training step::

    new_params, grad_norm = clipped_sgd_step(params, grads, lr, max_norm)
    metrics["grad_norm"] = grad_norm
    metrics["clipped"] = grad_norm > max_norm
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax


def _global_norm(tree) -> jax.Array:
    leaves = jax.tree_util.tree_leaves(tree)
    if not leaves:
        return jnp.zeros((), jnp.float32)
    return jnp.sqrt(sum(jnp.sum(jnp.square(leaf)) for leaf in leaves))


def clipped_sgd_step(params, grads, learning_rate: float, max_norm: float):
    """One optax.chain(clip_by_global_norm(max_norm), sgd(learning_rate)) update.

    Returns (new_params, grad_norm) with grad_norm the global L2 norm of `grads` before clipping.
    """
    grad_norm = _global_norm(grads)
    tx = optax.chain(optax.clip_by_global_norm(max_norm), optax.sgd(learning_rate))
    # Both transformations are stateless here (plain SGD, no momentum), so a fresh state is exact;
    # in a longer-lived loop keep `opt_state = tx.init(params)` outside and thread it through.
    opt_state = tx.init(params)
    updates, _ = tx.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, grad_norm
