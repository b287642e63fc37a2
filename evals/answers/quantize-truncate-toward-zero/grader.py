"""Grade `quantize.quantize`: round toward zero (not floor) times step, and the remainder, under jit."""

import jax
import jax.numpy as jnp
import numpy as np

VALUES = np.array([-2.7, -2.0, -0.3, 0.0, 0.3, 1.5, 2.7, -7.25, 7.25, 9.99], np.float32)


def expected(x: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    q = np.trunc(x / np.float32(step)) * np.float32(step)
    return q, x - q


def test_rounds_toward_zero_not_down(answer):
    q, r = answer.quantize(jnp.asarray(VALUES), 1.0)
    want_q, want_r = expected(VALUES, 1.0)
    np.testing.assert_allclose(np.asarray(q), want_q, atol=1e-6)
    np.testing.assert_allclose(np.asarray(r), want_r, atol=1e-6)
    assert float(q[0]) == -2.0, f"-2.7 quantized to {float(q[0])}: that is the floor, not toward zero"
    assert np.asarray(q).dtype == np.float32 and np.asarray(r).dtype == np.float32


def test_other_step_and_shape(answer):
    x = VALUES.reshape(2, 5)
    q, r = answer.quantize(jnp.asarray(x), 0.5)
    want_q, want_r = expected(x, 0.5)
    assert q.shape == x.shape and r.shape == x.shape
    np.testing.assert_allclose(np.asarray(q), want_q, atol=1e-6)
    np.testing.assert_allclose(np.asarray(r), want_r, atol=1e-6)


def test_under_jit_with_traced_step(answer):
    compiled = jax.jit(answer.quantize)
    for step in (0.25, 2.0):
        q, r = compiled(jnp.asarray(VALUES), step)
        want_q, want_r = expected(VALUES, step)
        np.testing.assert_allclose(np.asarray(q), want_q, atol=1e-6)
        np.testing.assert_allclose(np.asarray(r), want_r, atol=1e-6)
