"""optax.contrib DoG whose first update uses a learning rate you choose.

In optax 0.2.8 DoG's first step is set with one keyword, ``init_step=(tag, value)``; the old
``init_learning_rate=`` keyword of optax <= 0.2.5 is gone (``TypeError: dog() got an unexpected keyword
argument 'init_learning_rate'``). With the tag ``"learning_rate"`` the first update is
``-value * g_0``; from the second update on, the step size is DoG's own rule,

    max_{k<=t} ||x_k - x_0|| / sqrt(sum_{k<=t} ||g_k||^2 + eps),

where the distance now starts from the real movement of the first step (no tiny r_eps heuristic).
"""

from __future__ import annotations

import optax
import optax.contrib


def make_optimizer(first_step_size: float) -> optax.GradientTransformation:
    """DoG (learning_rate 1.0, default eps 1e-8, default no weight decay) whose first update is -first_step_size * g_0.

    DoG needs the parameters at every update: ``updates, state = opt.update(grads, state, params)``.
    """
    # eps (1e-8) and weight_decay (None) are left at their defaults.
    return optax.contrib.dog(
        learning_rate=1.0,
        init_step=("learning_rate", first_step_size),
    )


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp

    params = {"w": jnp.zeros((3, 2)), "b": jnp.zeros(2)}
    grads = {"w": jnp.ones((3, 2)), "b": jnp.full(2, -2.0)}
    opt = make_optimizer(0.1)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    assert all(jnp.allclose(u, -0.1 * g) for u, g in zip(jax.tree.leaves(updates), jax.tree.leaves(grads)))

    params1 = optax.apply_updates(params, updates)
    updates2, state = opt.update(grads, state, params1)
    dist = jnp.sqrt(sum(jnp.sum((a - b) ** 2) for a, b in zip(jax.tree.leaves(params1), jax.tree.leaves(params))))
    g_sq = sum(jnp.sum(g**2) for g in jax.tree.leaves(grads))
    lr2 = dist / jnp.sqrt(2 * g_sq + 1e-8)
    assert jnp.allclose(updates2["w"], -lr2 * grads["w"], rtol=1e-5)
    print("second step size", float(lr2))
