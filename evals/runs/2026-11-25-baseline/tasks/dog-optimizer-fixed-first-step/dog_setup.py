"""DoG (Distance over Gradients) whose first step uses a learning rate you choose.

By default DoG's first step size is r_eps / ||g_0|| with r_eps = 1e-6 * (1 + ||x_0||), i.e. tiny.
optax.contrib.dog accepts an explicit first-step learning rate (``init_learning_rate=``; in some
releases spelled ``init_step=("learning_rate", value)``): the first update is then
``-first_step_size * g_0`` and from the second update on DoG's own rule is used:

    eta_t = max_{k<=t} ||x_k - x_0|| / sqrt(sum_{k<=t} ||g_k||^2 + eps)

Usage::

    opt = make_optimizer(1e-2)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)   # DoG needs params
    params = optax.apply_updates(params, updates)

The factory builds optax.contrib.dog with the keyword the installed optax understands, checks on a
tiny problem that it behaves as described, and only if that is impossible falls back to an equivalent
local implementation of the same rule.
"""

from __future__ import annotations

import inspect
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

_EPS = 1e-8
_DEFAULT_REPS_REL = 1e-6


# --------------------------------------------------------------------------------------------
# Preferred path: optax.contrib.dog
# --------------------------------------------------------------------------------------------
def _optax_candidates(first_step_size: float):
    dog = getattr(getattr(optax, "contrib", None), "dog", None)
    if dog is None:
        return
    try:
        names = set(inspect.signature(dog).parameters)
    except (TypeError, ValueError):
        names = set()
    if "init_learning_rate" in names:
        yield lambda: dog(learning_rate=1.0, eps=_EPS, init_learning_rate=first_step_size)
    if "init_step" in names:
        yield lambda: dog(learning_rate=1.0, eps=_EPS, init_step=("learning_rate", first_step_size))


def _tree_norm_np(tree) -> float:
    return float(np.sqrt(sum(np.sum(np.square(np.asarray(l, np.float64)))
                             for l in jax.tree_util.tree_leaves(tree))))


def _behaves_as_specified(opt: optax.GradientTransformation, first_step_size: float) -> bool:
    """Three steps on a tiny problem compared with the rule stated in make_optimizer's docstring."""
    x0 = {"a": jnp.array([1.0, -2.0, 0.5], jnp.float32), "b": jnp.array([[0.25]], jnp.float32)}
    gs = [
        {"a": jnp.array([0.3, -0.4, 1.2], jnp.float32), "b": jnp.array([[-0.7]], jnp.float32)},
        {"a": jnp.array([-0.2, 0.9, 0.1], jnp.float32), "b": jnp.array([[0.5]], jnp.float32)},
        {"a": jnp.array([0.6, 0.1, -0.3], jnp.float32), "b": jnp.array([[0.2]], jnp.float32)},
    ]
    r_eps = _DEFAULT_REPS_REL * (1.0 + _tree_norm_np(x0))

    def close(a, b):
        return all(np.allclose(np.asarray(x, np.float64), y, rtol=1e-3, atol=1e-9)
                   for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))

    state = opt.init(x0)
    x = x0
    sum_sq = 0.0
    max_dist = 0.0
    for t, g in enumerate(gs):
        sum_sq += _tree_norm_np(g) ** 2
        d = _tree_norm_np(jax.tree_util.tree_map(
            lambda a, b: np.asarray(a, np.float64) - np.asarray(b, np.float64), x, x0))
        max_dist = max(max_dist, d)
        if t == 0:
            eta = first_step_size
        else:
            # r_eps is negligible once the first step has been taken; allow either convention.
            eta = max(max_dist, r_eps) / np.sqrt(sum_sq + _EPS)
        u, state = opt.update(g, state, x)
        expected = jax.tree_util.tree_map(lambda gg: -eta * np.asarray(gg, np.float64), g)
        if not close(u, expected):
            return False
        x = optax.apply_updates(x, u)
    return True


# --------------------------------------------------------------------------------------------
# Fallback: the same rule written out (used only if optax.contrib.dog cannot be configured).
# --------------------------------------------------------------------------------------------
class DoGState(NamedTuple):
    is_init_step: jax.Array
    init_params: Any
    max_dist: jax.Array
    sum_sq_norm_grads: jax.Array


def _tree_sq_norm(tree) -> jax.Array:
    leaves = jax.tree_util.tree_leaves(tree)
    if not leaves:
        return jnp.zeros((), jnp.float32)
    return sum(jnp.sum(jnp.square(jnp.asarray(l, jnp.float32))) for l in leaves)


def _local_dog(first_step_size: float, eps: float = _EPS) -> optax.GradientTransformation:
    def init_fn(params):
        r_eps = _DEFAULT_REPS_REL * (1.0 + jnp.sqrt(_tree_sq_norm(params)))
        return DoGState(
            is_init_step=jnp.asarray(True),
            init_params=jax.tree_util.tree_map(jnp.asarray, params),
            max_dist=jnp.asarray(r_eps, jnp.float32),
            sum_sq_norm_grads=jnp.zeros((), jnp.float32),
        )

    def update_fn(updates, state, params=None):
        if params is None:
            raise ValueError("DoG needs params: call opt.update(grads, state, params).")
        dist = jnp.sqrt(_tree_sq_norm(
            jax.tree_util.tree_map(lambda p, p0: p - p0, params, state.init_params)))
        max_dist = jnp.maximum(state.max_dist, dist)
        sum_sq = state.sum_sq_norm_grads + _tree_sq_norm(updates)
        dog_step = max_dist / jnp.sqrt(sum_sq + eps)
        step = jnp.where(state.is_init_step, jnp.asarray(first_step_size, jnp.float32), dog_step)
        new_updates = jax.tree_util.tree_map(lambda g: (-step * g).astype(g.dtype), updates)
        return new_updates, DoGState(jnp.asarray(False), state.init_params, max_dist, sum_sq)

    return optax.GradientTransformation(init_fn, update_fn)


# --------------------------------------------------------------------------------------------
def make_optimizer(first_step_size: float) -> optax.GradientTransformation:
    """optax.contrib DoG (learning_rate 1.0, eps 1e-8, no weight decay) with a fixed first step.

    The first update is -first_step_size * g_0; afterwards the step size is DoG's
    max_{k<=t} ||x_k - x_0|| / sqrt(sum_{k<=t} ||g_k||^2 + eps).
    """
    first_step_size = float(first_step_size)
    for build in _optax_candidates(first_step_size):
        try:
            opt = build()
            if _behaves_as_specified(opt, first_step_size):
                return opt
        except Exception:  # pragma: no cover - signature differences between optax releases
            continue
    return _local_dog(first_step_size)
