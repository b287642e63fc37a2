"""Grade `dog_setup.make_optimizer`: optax.contrib.dog with the relative initial distance heuristic."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import optax.contrib

EPS = 1e-8
CURVATURE = {"w": np.array([1.0, 4.0, 0.5], np.float32), "b": np.array([2.0, 0.25], np.float32)}
TARGET = {"w": np.array([1.0, -2.0, 3.0], np.float32), "b": np.array([0.5, -1.0], np.float32)}
START = {"w": np.array([3.0, 0.0, -4.0], np.float32), "b": np.array([0.1, 0.1], np.float32)}  # ||x_0|| ~ 5


def loss(params: dict) -> jax.Array:
    return sum(0.5 * jnp.sum(CURVATURE[k] * (params[k] - TARGET[k]) ** 2) for k in params)


def flat(tree: dict) -> np.ndarray:
    return np.concatenate([np.asarray(tree[k], np.float64) for k in ("b", "w")])


def numpy_dog(relative: float, steps: int) -> list[np.ndarray]:
    """DoG in float64 on the flattened parameters, r_eps = relative * (1 + ||x_0||)."""
    a, b, x = flat(CURVATURE), flat(TARGET), flat(START)
    x0, sum_sq, path = x.copy(), 0.0, []
    max_dist = relative * (1.0 + np.linalg.norm(x0))
    for _ in range(steps):
        g = a * (x - b)
        sum_sq += g @ g
        max_dist = max(max_dist, np.linalg.norm(x - x0))
        x = x - max_dist / np.sqrt(sum_sq + EPS) * g
        path.append(x.copy())
    return path


def run(answer, relative: float, steps: int) -> list[np.ndarray]:
    opt = answer.make_optimizer(relative)
    params = jax.tree.map(jnp.asarray, START)
    state = opt.init(params)
    update = jax.jit(lambda p, s: opt.update(jax.grad(loss)(p), s, p))
    path = []
    for _ in range(steps):
        updates, state = update(params, state)
        params = optax.apply_updates(params, updates)
        path.append(flat(params))
    return path


def test_state_is_optax_dog(answer):
    opt = answer.make_optimizer(1e-4)
    state = opt.init(jax.tree.map(jnp.asarray, START))
    found = jax.tree.leaves(state, is_leaf=lambda s: isinstance(s, optax.contrib.DoGState))
    assert any(isinstance(s, optax.contrib.DoGState) for s in found), "the optimizer is not optax.contrib's DoG"


def test_first_step_uses_the_relative_initial_distance(answer):
    (first,) = run(answer, 1e-2, 1)
    (want,) = numpy_dog(1e-2, 1)
    np.testing.assert_allclose(first, want, rtol=1e-6, atol=1e-7)
    default_step = numpy_dog(1e-6, 1)[0]
    assert not np.allclose(first, default_step, rtol=0, atol=1e-6), "the first step ignores the relative value"


def test_trajectory_follows_dog(answer):
    for relative in (1e-4, 1e-2):
        for got, want in zip(run(answer, relative, 6), numpy_dog(relative, 6)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
