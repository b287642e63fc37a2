"""optax.contrib DoG with a chosen relative initial distance (1e-4 for batch-normalised networks).

In optax 0.2.8 the initial movement of DoG is set with one keyword, ``init_step=(tag, value)``; the
old ``reps_rel=`` keyword of optax <= 0.2.5 is gone (it raises ``TypeError: dog() got an unexpected
keyword argument 'reps_rel'``). The tag ``"heuristic"`` is the DoG paper's relative rule:

    r_eps = value * (1 + ||x_0||)          (default value 1e-6; the paper uses 1e-4 with batch norm)

and step t uses ``max(r_eps, max_{k<=t} ||x_k - x_0||) / sqrt(sum_{k<=t} ||g_k||^2 + eps)``.
"""

from __future__ import annotations

import optax
import optax.contrib


def make_optimizer(relative_initial_distance: float) -> optax.GradientTransformation:
    """DoG (learning_rate 1.0, default eps 1e-8, default no weight decay) with r_eps = value * (1 + ||x_0||).

    DoG needs the parameters at every update: ``updates, state = opt.update(grads, state, params)``.
    """
    # eps (1e-8) and weight_decay (None) are left at their defaults.
    return optax.contrib.dog(
        learning_rate=1.0,
        init_step=("heuristic", relative_initial_distance),
    )


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp

    params = {"w": jnp.full((3, 2), 0.5), "b": jnp.ones(2)}
    grads = {"w": jnp.ones((3, 2)), "b": jnp.ones(2)}
    opt = make_optimizer(1e-4)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)

    x0_norm = jnp.sqrt(sum(jnp.sum(p**2) for p in jax.tree.leaves(params)))
    g_sq = sum(jnp.sum(g**2) for g in jax.tree.leaves(grads))
    expected_lr = 1e-4 * (1 + x0_norm) / jnp.sqrt(g_sq + 1e-8)
    assert jnp.allclose(updates["w"], -expected_lr * grads["w"], rtol=1e-5)
    print("first step size", float(expected_lr))
