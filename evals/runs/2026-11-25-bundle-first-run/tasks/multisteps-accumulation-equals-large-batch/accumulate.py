"""Gradient accumulation with Optax: ``optax.MultiSteps`` around Adam.

``optax.MultiSteps(inner, every_k_schedule=k)`` keeps a running mean of the gradients it receives.
On the first ``k - 1`` calls of ``update`` it returns zero updates (the parameters do not move); on the
k-th call it hands the *mean* of the k gradients to ``inner`` and returns the inner update, then starts
a new window. With a mean loss and k equal-sized micro-batches, the mean of the micro-batch gradients
equals the gradient of the full batch, so k accumulated calls give the same parameters as one Adam step
on the full batch (up to float rounding), and Adam's moments and step count advance once per window.

Do not use ``optax.chain(optax.adam(lr), optax.apply_every(k))`` for this: it sums Adam's *updates*
and updates Adam's moments on every micro-batch, which is not the large-batch step.

Usage::

    tx = make_accumulating_optimizer(1e-3, k=4)
    opt_state = tx.init(params)

    @jax.jit
    def micro_step(params, opt_state, x, y):
        grads = jax.grad(mean_loss)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)   # pass params (wrapped optimizers may need them)
        return optax.apply_updates(params, updates), opt_state

    for x_micro, y_micro in micro_batches:    # k micro-batches per full batch
        params, opt_state = micro_step(params, opt_state, x_micro, y_micro)

With Flax NNX it drops in the same way: ``nnx.Optimizer(model, tx, wrt=nnx.Param)`` and
``optimizer.update(model, grads)`` once per micro-batch.

Memory: the state holds one parameter-sized accumulator (``acc_grads``, float32 by default) next to
Adam's two moment trees.
"""

from __future__ import annotations

import optax


def make_accumulating_optimizer(learning_rate: float, k: int) -> optax.MultiSteps:
    """Adam(``learning_rate``) applied once per ``k`` update calls, on the mean of their gradients.

    The first ``k - 1`` of each ``k`` consecutive ``update`` calls return zero updates; the k-th returns
    the Adam update for the mean of the k gradients. Returns an object with ``init(params)`` and
    ``update(grads, state, params)``.
    """
    if int(k) < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    # The MultiSteps object has init(params) and update(grads, state, params); nnx.Optimizer accepts it
    # too. Its state (optax.MultiStepsState) exposes mini_step, gradient_step and acc_grads.
    return optax.MultiSteps(optax.adam(learning_rate), every_k_schedule=int(k))
