"""Read DoG's distance estimate and last step size out of an optax.contrib.dog() state.

optax.contrib.dog() is a chain of transformations, so its state is a tuple of per-transformation
states. The first one is DoG's own state (a NamedTuple, ``DoGState``), which stores

* the parameters at initialisation (``init_params``),
* the running maximum distance estimate ``max(r_eps, max_k ||x_k - x_0||)`` (``max_dist``), which starts
  at ``r_eps = reps_rel * (1 + ||x_0||)``, and
* the running sum of squared gradient norms (``sum_sq_norm_grads``).

DoG's step size for the last update is exactly ``max_dist / sqrt(sum_sq_norm_grads + eps)`` with the
default ``eps = 1e-8``, so both logged quantities are read from the state (nothing is recomputed from
params or grads). The lookup below finds the DoG state wherever it sits in the (possibly wrapped, e.g.
by ``optax.inject_hyperparams`` or ``optax.masked``) state and tolerates small renamings of the fields
between optax releases.

Works under jax.jit: it only indexes the state and does scalar arithmetic.
"""

from __future__ import annotations

from typing import Any, Optional

import jax
import jax.numpy as jnp

_EPS = 1e-8  # optax.contrib.dog default

_DIST_NAMES = ("max_dist", "rbar", "r_bar", "estim_dist", "max_distance", "dist", "distance")
_SUMSQ_NAMES = ("sum_sq_norm_grads", "sum_sq_grads", "sum_sq_norm_grad", "sum_squared_grad_norms",
                "sum_sq", "G", "g_sq_sum")


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _field(state, preferred, keyword_test) -> Optional[str]:
    fields = list(state._fields)
    for name in preferred:
        if name in fields:
            return name
    for name in fields:
        if keyword_test(name.lower()):
            return name
    return None


def _looks_like_dog_state(state) -> bool:
    if not _is_namedtuple(state):
        return False
    name = type(state).__name__.lower()
    fields = [f.lower() for f in state._fields]
    has_dist = any("dist" in f for f in fields) or "rbar" in fields or "r_bar" in fields
    has_sum = any(("grad" in f) or f.startswith("sum") for f in fields)
    # DoWG ("distance over weighted gradients") uses a squared-distance / weighted-sum state; skip it.
    return ("dowg" not in name) and has_dist and has_sum


def _find_dog_state(state) -> Any:
    if _looks_like_dog_state(state):
        return state
    if isinstance(state, dict):
        children = list(state.values())
    elif isinstance(state, (tuple, list)):
        children = list(state)
    else:
        children = []
    for child in children:
        found = _find_dog_state(child)
        if found is not None:
            return found
    return None


def _scalar(value) -> jax.Array:
    leaves = jax.tree_util.tree_leaves(value)
    if len(leaves) != 1:
        raise ValueError("Expected a single scalar DoG statistic (non layer-wise DoG).")
    return jnp.reshape(jnp.asarray(leaves[0]), ())


def dog_diagnostics(opt_state) -> tuple[jax.Array, jax.Array]:
    """Return (distance, step_size) read from the state of optax.contrib.dog().

    distance: DoG's running maximum distance estimate max(r_eps, max_k ||x_k - x_0||) after the
      last update.
    step_size: distance / sqrt(sum of squared gradient norms so far + 1e-8), the learning rate DoG
      used in that update.
    """
    dog_state = _find_dog_state(opt_state)
    if dog_state is None:
        raise ValueError("No DoG state found in opt_state; was it created by optax.contrib.dog()?")

    dist_name = _field(
        dog_state, _DIST_NAMES,
        lambda f: ("dist" in f and not f.startswith("init")) or f in ("rbar", "r_bar"))
    sum_name = _field(
        dog_state, _SUMSQ_NAMES,
        lambda f: ("grad" in f and f != "init_params") or f.startswith("sum"))
    if dist_name is None or sum_name is None:
        raise ValueError(f"Unrecognised DoG state fields: {dog_state._fields}")

    distance = _scalar(getattr(dog_state, dist_name))
    sum_sq = _scalar(getattr(dog_state, sum_name))
    step_size = distance / jnp.sqrt(sum_sq + _EPS)
    return distance, step_size
