"""One SGD step with global-norm clipping that also returns the global gradient norm before clipping.

Log `grad_norm` every step. Clipping kicked in on exactly the steps where `grad_norm > max_norm`,
because `optax.clip_by_global_norm` rescales the whole gradient tree when its global norm exceeds
`max_norm` and passes it through unchanged otherwise.

The norm comes from `optax.tree.norm`, the same helper `clip_by_global_norm` uses internally, so the
logged value is exactly the one the clip compared with `max_norm`. (`optax.global_norm` is
deprecated in optax 0.2.8 and warns; `optax.tree.norm` is the current name.)

Usage under jit, with both hyperparameters traced (changing them does not recompile):

    step = jax.jit(clipped_sgd_step)
    params, grad_norm = step(params, grads, 0.1, 1.0)
    clipped_this_step = grad_norm > 1.0
"""

import jax
import optax


def clipped_sgd_step(
    params: optax.Params, grads: optax.Updates, learning_rate: float, max_norm: float
) -> tuple[optax.Params, jax.Array]:
    """One update of optax.chain(clip_by_global_norm(max_norm), sgd(learning_rate)).

    Args:
        params: pytree of float32 arrays (nested dicts and tuples).
        grads: gradients, same structure as `params`.
        learning_rate: SGD step size; may be a traced scalar.
        max_norm: global-norm threshold of the clip; may be a traced scalar.

    Returns:
        (new_params, grad_norm): the updated parameters, and the global L2 norm over all leaves of
        `grads`, measured before clipping (a float32 scalar).
    """
    # Global L2 norm over every leaf together, on the raw (unclipped) gradients.
    grad_norm = optax.tree.norm(grads)

    tx = optax.chain(optax.clip_by_global_norm(max_norm), optax.sgd(learning_rate))
    # Plain SGD (no momentum) and the clip are stateless, so a fresh state per step is exact. If you
    # add momentum later, create `tx` once, keep `opt_state` in your train state and pass it in.
    opt_state = tx.init(params)
    updates, _ = tx.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, grad_norm
