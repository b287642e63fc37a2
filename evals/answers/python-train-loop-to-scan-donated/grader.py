"""Grade `train.train`: same numbers as the old loop, compiled once, params donated."""

import jax
import jax.numpy as jnp
import numpy as np

from grading import count_compilations

LEARNING_RATE = 0.05


def problem(steps: int, seed: int = 0):
    model = __import__("model")  # the answer folder's model.py, on sys.path
    params = model.init_params(jax.random.key(seed), 4, 8, 2)
    rng = np.random.default_rng(seed)
    xs = jnp.asarray(rng.normal(size=(steps, 16, 4)), jnp.float32)
    ys = jnp.asarray(rng.normal(size=(steps, 16, 2)), jnp.float32)
    return params, xs, ys


def numpy_train(params: dict, xs: np.ndarray, ys: np.ndarray):
    """The old loop in float64 NumPy, backpropagation written out."""
    p = {name: np.asarray(value, np.float64) for name, value in params.items()}
    losses = []
    for x, y in zip(np.asarray(xs, np.float64), np.asarray(ys, np.float64)):
        hidden = np.tanh(x @ p["w1"] + p["b1"])
        residual = hidden @ p["w2"] + p["b2"] - y
        losses.append(np.mean(residual**2))
        d_out = 2.0 * residual / residual.size
        d_hidden = (d_out @ p["w2"].T) * (1 - hidden**2)
        grads = {"w2": hidden.T @ d_out, "b2": d_out.sum(0), "w1": x.T @ d_hidden, "b1": d_hidden.sum(0)}
        p = {name: p[name] - LEARNING_RATE * grads[name] for name in p}
    return p, np.array(losses)


def test_matches_the_old_loop(answer):
    params, xs, ys = problem(12)
    want_params, want_losses = numpy_train(params, xs, ys)
    got_params, got_losses = answer.train(params, xs, ys, LEARNING_RATE)
    assert np.asarray(got_losses).shape == (12,)
    np.testing.assert_allclose(np.asarray(got_losses), want_losses, rtol=1e-4)
    for name, value in want_params.items():
        np.testing.assert_allclose(np.asarray(got_params[name]), value, rtol=1e-4, atol=1e-5)


def test_the_run_compiles_once(answer):
    params, xs, ys = problem(25, seed=1)
    with count_compilations() as compiled:
        _, losses = answer.train(params, xs, ys, LEARNING_RATE)
        jax.block_until_ready(losses)
    assert compiled.count <= 3, f"{compiled.count} XLA compilations for a 25-step run"


def test_params_passed_in_are_donated(answer):
    params, xs, ys = problem(5, seed=2)
    new_params, losses = answer.train(params, xs, ys, LEARNING_RATE)
    jax.block_until_ready((new_params, losses))
    alive = [name for name, leaf in params.items() if not leaf.is_deleted()]
    assert not alive, f"the caller's params {alive} are still allocated after train(): they were not donated"
