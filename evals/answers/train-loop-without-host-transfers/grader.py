"""Grade `fit.fit`: SGD over device-resident batches with no host-to-device transfer."""

import jax
import jax.numpy as jnp
import numpy as np

LEARNING_RATE = 0.1


def problem(num_batches: int = 12, batch: int = 8, d: int = 5, k: int = 2):
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(d, k)).astype(np.float32) / 3, "b": np.zeros(k, np.float32)}
    xs = rng.normal(size=(num_batches, batch, d)).astype(np.float32)
    ys = rng.normal(size=(num_batches, batch, k)).astype(np.float32)
    return params, xs, ys


def numpy_fit(params: dict, xs: np.ndarray, ys: np.ndarray):
    """The same SGD in float64 NumPy, gradients written out by hand."""
    w, b = params["w"].astype(np.float64), params["b"].astype(np.float64)
    losses = []
    for x, y in zip(xs, ys):
        residual = x @ w + b - y
        losses.append(np.mean(residual**2))
        scale = 2.0 / residual.size
        w, b = w - LEARNING_RATE * scale * x.T @ residual, b - LEARNING_RATE * scale * residual.sum(axis=0)
    return {"w": w, "b": b}, np.array(losses)


def on_device(*trees):
    return jax.device_put(trees)


def test_values_match_numpy(answer):
    params, xs, ys = problem()
    got_params, got_losses = answer.fit(*on_device(params, xs, ys))
    want_params, want_losses = numpy_fit(params, xs, ys)
    assert np.asarray(got_losses).shape == (12,)
    np.testing.assert_allclose(np.asarray(got_losses), want_losses, rtol=1e-4)
    for name in ("w", "b"):
        np.testing.assert_allclose(np.asarray(got_params[name]), want_params[name], rtol=1e-4, atol=1e-6)


def test_no_host_to_device_transfer_in_the_loop(answer):
    params, xs, ys = on_device(*problem(num_batches=20))
    jax.block_until_ready((params, xs, ys))
    with jax.transfer_guard("disallow"):
        got_params, got_losses = answer.fit(params, xs, ys)
        jax.block_until_ready((got_params, got_losses))
    assert jnp.shape(got_losses) == (20,)
