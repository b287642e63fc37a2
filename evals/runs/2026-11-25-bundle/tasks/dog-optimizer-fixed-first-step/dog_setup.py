"""optax.contrib DoG whose first step uses a learning rate you choose.

DoG ("Distance over Gradients") sets its own step size from step to step:

    eta_t = max_{k<=t} ||x_k - x_0|| / sqrt(sum_{k<=t} ||g_k||^2 + eps)

At the very first step the parameters have not moved yet, so DoG needs a starting value. By default
(`init_step=("heuristic", 1e-6)`) that is the tiny distance 1e-6 * (1 + ||x_0||), hence the tiny
first step. In optax 0.2.8 the start is chosen with one keyword, `init_step=(tag, value)`:

    init_step=("learning_rate", lr)  -> the first update is exactly -lr * g_0   (what you want)
    init_step=("distance", r)        -> first distance r
    init_step=("heuristic", rel)     -> first distance rel * (1 + ||x_0||)      (the default)

From the second update on, DoG's own rule is used, with the distance measured from x_0 (the params
passed to `init`) and the gradient norms accumulated from g_0 on.

The old `init_learning_rate=` keyword (optax <= 0.2.5) was removed; it now raises
`TypeError: dog() got an unexpected keyword argument 'init_learning_rate'`.
"""

from __future__ import annotations

import optax
import optax.contrib


def make_optimizer(first_step_size: float) -> optax.GradientTransformation:
    """DoG (learning_rate 1.0, eps 1e-8, no weight decay) whose first update is -first_step_size * g_0.

    Use as:
        opt = make_optimizer(0.1)
        state = opt.init(params)
        updates, state = opt.update(grads, state, params)
        params = optax.apply_updates(params, updates)
    """
    if first_step_size <= 0:
        raise ValueError(f"first_step_size must be > 0, got {first_step_size}")
    return optax.contrib.dog(
        learning_rate=1.0,  # multiplier on DoG's own step size: keep it at 1
        init_step=("learning_rate", first_step_size),
        eps=1e-8,
        # weight_decay left at its default (None): no weight decay
    )


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp

    params = {"w": jnp.zeros((3, 2)), "b": jnp.zeros(2)}
    grads = {"w": jnp.ones((3, 2)), "b": jnp.full((2,), 2.0)}
    opt = make_optimizer(0.1)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    print(optax.tree.allclose(updates, jax.tree.map(lambda g: -0.1 * g, grads)))  # True
    params = optax.apply_updates(params, updates)
    updates, state = opt.update(grads, state, params)  # DoG's rule from here on
    dist = optax.tree.norm(optax.tree.sub(params, {"w": jnp.zeros((3, 2)), "b": jnp.zeros(2)}))
    lr = dist / jnp.sqrt(2 * optax.tree.norm(grads, squared=True) + 1e-8)
    print(optax.tree.allclose(updates, jax.tree.map(lambda g: -lr * g, grads)))  # True
