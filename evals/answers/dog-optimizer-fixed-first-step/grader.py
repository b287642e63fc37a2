"""Grade `dog_setup.make_optimizer`: optax.contrib.dog with a chosen first learning rate, then DoG's rule."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import optax.contrib

EPS = 1e-8
CURVATURE = {"w": np.array([1.0, 4.0, 0.5], np.float32), "b": np.array([2.0, 0.25], np.float32)}
TARGET = {"w": np.array([1.0, -2.0, 3.0], np.float32), "b": np.array([0.5, -1.0], np.float32)}
START = {"w": np.zeros(3, np.float32), "b": np.array([0.1, 0.1], np.float32)}


def loss(params: dict) -> jax.Array:
    return sum(0.5 * jnp.sum(CURVATURE[k] * (params[k] - TARGET[k]) ** 2) for k in params)


def numpy_dog(first_step_size: float, steps: int) -> list[np.ndarray]:
    """DoG in float64 on the flattened parameters; the first step uses first_step_size."""
    flat = lambda tree: np.concatenate([np.asarray(tree[k], np.float64) for k in ("b", "w")])
    a, b, x = flat(CURVATURE), flat(TARGET), flat(START)
    x0, max_dist, sum_sq, path = x.copy(), 0.0, 0.0, []
    for t in range(steps):
        g = a * (x - b)
        sum_sq += g @ g
        max_dist = max(max_dist, np.linalg.norm(x - x0))
        rate = first_step_size if t == 0 else max_dist / np.sqrt(sum_sq + EPS)
        x = x - rate * g
        path.append(x.copy())
    return path


def run(answer, first_step_size: float, steps: int):
    opt = answer.make_optimizer(first_step_size)
    params = jax.tree.map(jnp.asarray, START)
    state = opt.init(params)
    update = jax.jit(lambda p, s: opt.update(jax.grad(loss)(p), s, p))
    path, first_update = [], None
    for _ in range(steps):
        updates, state = update(params, state)
        first_update = updates if first_update is None else first_update
        params = optax.apply_updates(params, updates)
        path.append(np.concatenate([np.asarray(params["b"]), np.asarray(params["w"])]))
    return opt, state, path, first_update


def test_state_is_optax_dog(answer):
    opt = answer.make_optimizer(0.1)
    state = opt.init(jax.tree.map(jnp.asarray, START))
    found = jax.tree.leaves(state, is_leaf=lambda s: isinstance(s, optax.contrib.DoGState))
    assert any(isinstance(s, optax.contrib.DoGState) for s in found), "the optimizer is not optax.contrib's DoG"


def test_first_update_uses_the_chosen_step_size(answer):
    _, _, _, first_update = run(answer, 0.1, 1)
    grads = jax.grad(loss)(jax.tree.map(jnp.asarray, START))
    for key in ("w", "b"):
        np.testing.assert_allclose(np.asarray(first_update[key]), -0.1 * np.asarray(grads[key]), rtol=1e-6)


def test_trajectory_follows_dog(answer):
    for first_step_size in (0.1, 0.02):
        _, _, path, _ = run(answer, first_step_size, 6)
        for got, want in zip(path, numpy_dog(first_step_size, 6)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
