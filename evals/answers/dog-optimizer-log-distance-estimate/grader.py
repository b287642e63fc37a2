"""Grade `dog_logging.dog_diagnostics`: DoG's distance estimate and step size, read from its state."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import optax.contrib

CURVATURE = {"w": np.array([1.0, 4.0, 0.5], np.float32), "b": np.array([2.0, 0.25], np.float32)}
TARGET = {"w": np.array([1.0, -2.0, 3.0], np.float32), "b": np.array([0.5, -1.0], np.float32)}
START = {"w": np.array([3.0, 0.0, -4.0], np.float32), "b": np.array([0.1, 0.1], np.float32)}


def loss(params: dict) -> jax.Array:
    return sum(0.5 * jnp.sum(CURVATURE[k] * (params[k] - TARGET[k]) ** 2) for k in params)


def flat(tree: dict) -> np.ndarray:
    return np.concatenate([np.asarray(tree[k], np.float64) for k in ("b", "w")])


def test_distance_and_step_size_after_each_update(answer):
    opt = optax.contrib.dog()
    params = jax.tree.map(jnp.asarray, START)
    state = opt.init(params)
    x0 = flat(START)
    initial = 1e-6 * (1.0 + np.linalg.norm(x0))  # DoG's default initial distance
    running_max = initial
    for _ in range(6):
        grads = jax.grad(loss)(params)
        running_max = max(running_max, np.linalg.norm(flat(params) - x0))
        updates, state = opt.update(grads, state, params)
        distance, step_size = answer.dog_diagnostics(state)
        np.testing.assert_allclose(float(distance), running_max, rtol=1e-5)
        used = np.linalg.norm(flat(updates)) / np.linalg.norm(flat(grads))
        np.testing.assert_allclose(float(step_size), used, rtol=1e-5)
        params = optax.apply_updates(params, updates)
    assert float(distance) > 3 * initial, "six steps moved the parameters; the estimate should have grown"
