"""Mid-2025 form: the norm logged with optax.global_norm (deprecated since)."""

import jax
import optax


def clipped_sgd_step(params, grads, learning_rate: float, max_norm: float):
    optimizer = optax.chain(optax.clip_by_global_norm(max_norm), optax.sgd(learning_rate))
    updates, _ = optimizer.update(grads, optimizer.init(params), params)
    return optax.apply_updates(params, updates), optax.global_norm(grads)
