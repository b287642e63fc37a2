"""Grade `history.descend`: right values, and one compilation for the whole loop, not one per step."""

import jax.numpy as jnp
import numpy as np

from grading import count_compilations


def reference(x0: np.ndarray, num_steps: int, learning_rate: float) -> tuple[np.ndarray, np.ndarray]:
    """The loop in NumPy: f(x) = sum(x**2), gradient 2x."""
    x, losses = x0.astype(np.float64), []
    for _ in range(num_steps):
        losses.append(np.sum(x**2))
        x = x - learning_rate * 2 * x
    return x, np.array(losses)


def test_values_match_a_numpy_loop(answer):
    x0 = np.array([1.0, -2.0, 3.0], np.float32)
    x_final, losses = answer.descend(jnp.asarray(x0), 12, 0.1)
    want_x, want_losses = reference(x0, 12, 0.1)
    assert np.asarray(losses).shape == (12,)
    np.testing.assert_allclose(np.asarray(x_final), want_x, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(losses), want_losses, rtol=1e-5)


def test_the_loop_does_not_compile_once_per_step(answer):
    x0 = jnp.asarray(np.linspace(-1.0, 1.0, 5, dtype=np.float32))
    with count_compilations() as compiled:
        _, losses = answer.descend(x0, 37, 0.05)
        losses.block_until_ready()
    assert losses.shape == (37,)
    assert compiled.count <= 3, f"{compiled.count} XLA compilations for one 37-step run: the history changes shape each step"
