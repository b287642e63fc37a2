"""optax.contrib DoG with a larger relative initial distance (for models with batch normalization).

DoG ("Distance over Gradients") sets its own step size

    eta_t = max(r_eps, max_{k<=t} ||x_k - x_0||) / sqrt(sum_{k<=t} ||g_k||^2 + eps)

and needs an initial distance r_eps to get going. The DoG paper uses
r_eps = reps_rel * (1 + ||x_0||) with reps_rel = 1e-6 by default and recommends 1e-4 for networks
with batch normalization.

In optax 0.2.8 this is set with the single keyword `init_step=(tag, value)`:

    init_step=("heuristic", reps_rel)   -> r_eps = reps_rel * (1 + ||x_0||)   (the default, 1e-6)
    init_step=("distance", r)           -> r_eps = r (absolute)
    init_step=("learning_rate", lr)     -> the first update is -lr * g_0

The old `reps_rel=` keyword of optax <= 0.2.5 was removed (it now raises
`TypeError: dog() got an unexpected keyword argument 'reps_rel'`), so `("heuristic", value)` is the
way to pass the relative value. ||x_0|| is computed from the params passed to `opt.init`.
"""

from __future__ import annotations

import optax
import optax.contrib


def make_optimizer(relative_initial_distance: float) -> optax.GradientTransformation:
    """DoG (learning_rate 1.0, eps 1e-8, no weight decay) with r_eps = value * (1 + ||x_0||).

    Use as:
        opt = make_optimizer(1e-4)
        state = opt.init(params)                              # x_0 = params
        updates, state = opt.update(grads, state, params)
        params = optax.apply_updates(params, updates)
    """
    if relative_initial_distance <= 0:
        raise ValueError(f"relative_initial_distance must be > 0, got {relative_initial_distance}")
    return optax.contrib.dog(
        learning_rate=1.0,  # DoG's step size is a multiplier on its own estimate: keep it at 1
        init_step=("heuristic", relative_initial_distance),
        eps=1e-8,
        # weight_decay left at its default (None): no weight decay
    )


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp

    params = {"w": jnp.full((3, 2), 0.5), "b": jnp.zeros(2)}
    opt = make_optimizer(1e-4)
    state = opt.init(params)
    grads = jax.tree.map(jnp.ones_like, params)
    updates, state = opt.update(grads, state, params)

    x0_norm = optax.tree.norm(params)
    r_eps = 1e-4 * (1 + x0_norm)
    g_norm_sq = optax.tree.norm(grads, squared=True)
    expected = jax.tree.map(lambda g: -r_eps / jnp.sqrt(g_norm_sq + 1e-8) * g, grads)
    print(optax.tree.allclose(updates, expected))  # True: first step uses r_eps = 1e-4 * (1 + ||x_0||)
