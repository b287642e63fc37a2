"""Grade `clipped_step.clipped_sgd_step`: clip-by-global-norm SGD, with the pre-clip norm logged."""

import jax
import jax.numpy as jnp
import numpy as np


def tree(scale: float) -> tuple[dict, dict]:
    rng = np.random.default_rng(0)
    params = {"dense": {"w": rng.normal(size=(3, 2)).astype(np.float32)}, "out": (np.ones(2, np.float32), np.array(0.5, np.float32))}
    grads = {"dense": {"w": scale * rng.normal(size=(3, 2)).astype(np.float32)},
             "out": (scale * np.array([1.0, -2.0], np.float32), np.array(scale * 0.25, np.float32))}
    return params, grads


def expected(params: dict, grads: dict, learning_rate: float, max_norm: float) -> tuple[list, float]:
    norm = float(np.sqrt(sum(np.sum(np.square(g, dtype=np.float64)) for g in jax.tree.leaves(grads))))
    factor = min(1.0, max_norm / norm)
    return [p - learning_rate * factor * g for p, g in zip(jax.tree.leaves(params), jax.tree.leaves(grads))], norm


def check(step, scale: float, learning_rate: float = 0.1, max_norm: float = 1.0) -> None:
    params, grads = tree(scale)
    new_params, grad_norm = step(params, grads, learning_rate, max_norm)
    want_params, want_norm = expected(params, grads, learning_rate, max_norm)
    assert jax.tree.structure(new_params) == jax.tree.structure(params)
    np.testing.assert_allclose(float(grad_norm), want_norm, rtol=1e-5)
    for got, want in zip(jax.tree.leaves(new_params), want_params):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_norm_above_max_norm_is_clipped(answer):
    check(answer.clipped_sgd_step, scale=10.0)


def test_norm_below_max_norm_is_unchanged(answer):
    check(answer.clipped_sgd_step, scale=0.05)


def test_under_jit_with_traced_hyperparameters(answer):
    step = jax.jit(answer.clipped_sgd_step)
    check(step, scale=10.0, learning_rate=0.2, max_norm=2.0)
    check(step, scale=0.05, learning_rate=0.2, max_norm=2.0)
    assert isinstance(step(*tree(1.0), jnp.float32(0.1), jnp.float32(1.0))[1], jax.Array)
