"""Read DoG (optax.contrib.dog) diagnostics straight from the optimizer state."""
import jax
import jax.numpy as jnp


def _find_dog_state(opt_state):
    """Return the DoGState inside opt_state.

    optax.contrib.dog() is a chain, so its state is a tuple such as
    (EmptyState(), DoGState(...), EmptyState()); search it instead of
    hard-coding the index so wrappers (e.g. inject_hyperparams, chains)
    still work.
    """
    def is_dog(node):
        return hasattr(node, "max_dist") and hasattr(node, "sum_sq_norm_grads")

    found = [
        n for n in jax.tree_util.tree_leaves(opt_state, is_leaf=is_dog) if is_dog(n)
    ]
    if not found:
        raise ValueError("no DoG state (with max_dist / sum_sq_norm_grads) found in opt_state")
    if len(found) > 1:
        raise ValueError(f"found {len(found)} DoG states in opt_state; pass the one to inspect")
    return found[0]


def dog_diagnostics(opt_state) -> tuple[jax.Array, jax.Array]:
    """Return (distance, step_size) of the last DoG update.

    distance:  running maximum of ||x_t - x_0|| (starting from DoG's small
               initial value), as stored in the state (``max_dist``).
    step_size: max_dist / sqrt(sum of squared gradient norms + 1e-8),
               the learning rate that the last update applied.
    """
    state = _find_dog_state(opt_state)
    distance = jnp.asarray(state.max_dist)
    step_size = distance / jnp.sqrt(jnp.asarray(state.sum_sq_norm_grads) + 1e-8)
    return distance, step_size
