"""One SGD step with global-norm gradient clipping, and the pre-clipping gradient norm for logging.

Works unchanged inside ``jax.jit`` with ``learning_rate`` and ``max_norm`` traced:
``optax.clip_by_global_norm`` compares the norm against ``max_norm`` with ``jnp``/``lax`` ops (no Python
``if``), and ``optax.sgd`` without momentum only multiplies by ``-learning_rate``. Both links of the
chain are stateless, so building the chain and its (empty) state inside the step costs nothing and
lets the hyperparameters be ordinary traced arguments.

Example::

    step = jax.jit(clipped_sgd_step)
    params, grad_norm = step(params, grads, 0.1, 1.0)
    clipped_this_step = grad_norm > 1.0   # log this to see how often clipping kicks in
"""

from __future__ import annotations

import jax
import optax


def clipped_sgd_step(params, grads, learning_rate: float, max_norm: float) -> tuple:
    """Apply ``optax.chain(clip_by_global_norm(max_norm), sgd(learning_rate))`` once.

    Args:
        params: pytree of float32 arrays (nested dicts/tuples).
        grads: pytree with the same structure as ``params``.
        learning_rate: SGD learning rate (Python float or traced scalar).
        max_norm: clipping threshold on the global L2 norm (Python float or traced scalar).

    Returns:
        ``(new_params, grad_norm)``: the updated parameters, and the global L2 norm over all leaves of
        ``grads`` *before* clipping (a float32 scalar). Clipping was active when ``grad_norm > max_norm``.
    """
    # The global norm of the raw gradients: sqrt of the sum of squares over every leaf together.
    # This is the same quantity clip_by_global_norm computes internally to decide whether to rescale.
    grad_norm = optax.tree.norm(grads)

    tx = optax.chain(
        optax.clip_by_global_norm(max_norm),  # clip the raw gradient first ...
        optax.sgd(learning_rate),  # ... then scale by -learning_rate
    )
    opt_state = tx.init(params)  # both links are stateless: an empty state
    updates, _ = tx.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, grad_norm
