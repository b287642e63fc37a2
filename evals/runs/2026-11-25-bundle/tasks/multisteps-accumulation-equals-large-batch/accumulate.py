"""Gradient accumulation with Optax: optax.MultiSteps around Adam.

`optax.MultiSteps(optax.adam(lr), every_k_schedule=k)` keeps a running mean of the gradients it is
given. On the first k - 1 calls of every group of k it returns zero updates (parameters unchanged);
on the k-th it hands the mean of the k gradients to Adam, returns Adam's update and resets the
accumulator. Adam's own state (moments, step count) only advances on those k-th calls.

With a *mean* loss and k equal-sized micro-batches, the mean of the micro-batch gradients equals the
gradient of the full batch, so k accumulated calls give the same parameters as one Adam step on the
full batch (up to float rounding).

Not `optax.chain(optax.adam(lr), optax.apply_every(k))`, the older recipe: it *sums* Adam updates
computed on every micro-batch, and Adam's moments then move k times per batch: it is not the
large-batch step.

Usage (in your jitted micro-step, pass the params: MultiSteps forwards them to the inner optimizer,
which matters for transformations such as adamw):

    tx = make_accumulating_optimizer(1e-3, k=4)
    opt_state = tx.init(params)
    grads = jax.grad(mean_loss)(params, micro_batch)
    updates, opt_state = tx.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)

With Flax NNX it plugs in unchanged: `nnx.Optimizer(model, tx, wrt=nnx.Param)` and
`optimizer.update(model, grads)` once per micro-batch.

Memory: the state holds one parameter-sized float32 accumulator (`acc_grads`) besides Adam's two
moment trees; `accumulator_dtype=` can narrow it.
"""

import optax


def make_accumulating_optimizer(learning_rate: float, k: int) -> optax.MultiSteps:
    """Adam(learning_rate), applied once every `k` update calls to the mean of their gradients.

    Returns an optax.MultiSteps: `init(params)` and `update(grads, state, params)`. For each k
    consecutive calls, the first k - 1 return zero updates and the k-th returns the Adam update for
    the mean of the k gradients.
    """
    if k < 1:
        raise ValueError(f"k must be a positive number of micro-batches, got {k}")
    return optax.MultiSteps(optax.adam(learning_rate), every_k_schedule=k)
