"""Gradient accumulation with optax.MultiSteps.

``optax.MultiSteps(opt, every_k_schedule=k)`` is Optax's recommended wrapper for gradient
accumulation: it keeps a running average of the incoming gradients in its state; for the first k - 1
calls of each group it returns zero updates (the parameters stay unchanged, and the inner Adam state,
including its step count, is not touched); on the k-th call it feeds the mean of the k gradients to
Adam and returns Adam's update. Because the mean of the gradients of the mean loss on k equal
micro-batches equals the gradient of the mean loss on the full batch, training on micro-batches gives
the same parameters as training on the full batches.

    opt = make_accumulating_optimizer(1e-3, k=4)
    state = opt.init(params)
    for micro_x, micro_y in micro_batches:             # 4 micro-batches per full batch
        grads = jax.grad(loss)(params, micro_x, micro_y)
        updates, state = opt.update(grads, state, params)
        params = optax.apply_updates(params, updates)  # no-op except every 4th call
"""

from __future__ import annotations

import optax


def make_accumulating_optimizer(learning_rate: float, k: int) -> optax.MultiSteps:
    """optax.adam(learning_rate) that applies one update per k micro-batch gradients (their mean)."""
    if int(k) < 1:
        raise ValueError("k must be >= 1")
    return optax.MultiSteps(optax.adam(learning_rate), every_k_schedule=int(k), use_grad_mean=True)
