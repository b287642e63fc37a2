"""Grade `lbfgs_solve`: an Optax L-BFGS minimiser that converges and respects its step budget."""

import jax
import jax.numpy as jnp
import numpy as np

SCALES = jnp.logspace(0.0, 3.0, 10)  # curvatures 1 ... 1000
TARGET = jnp.linspace(-2.0, 2.0, 10)


def rosenbrock(x: jax.Array) -> jax.Array:
    return (1.0 - x[0]) ** 2 + 100.0 * (x[1] - x[0] ** 2) ** 2


def ill_conditioned(x: jax.Array) -> jax.Array:
    return 0.5 * jnp.sum(SCALES * (x - TARGET) ** 2)


def tree_quadratic(params: dict) -> jax.Array:
    return jnp.sum((params["w"] - jnp.array([1.0, -2.0, 3.0])) ** 2) + 4.0 * (params["b"] - 0.5) ** 2


def test_rosenbrock_converges_within_the_budget(answer):
    x, steps = answer.minimize(rosenbrock, jnp.array([-1.2, 1.0]), maxiter=100, tol=1e-6)
    np.testing.assert_allclose(np.asarray(x), [1.0, 1.0], atol=1e-3)
    assert 0 < int(steps) < 100, f"{int(steps)} steps: the tolerance never stopped the loop"


def test_ill_conditioned_quadratic(answer):
    x, steps = answer.minimize(ill_conditioned, jnp.zeros(10), maxiter=100, tol=1e-4)
    np.testing.assert_allclose(np.asarray(x), np.asarray(TARGET), atol=1e-3)
    assert 0 < int(steps) < 100


def test_pytree_parameters(answer):
    start = {"w": jnp.zeros(3), "b": jnp.array(0.0)}
    solution, _ = answer.minimize(tree_quadratic, start, maxiter=50, tol=1e-6)
    np.testing.assert_allclose(np.asarray(solution["w"]), [1.0, -2.0, 3.0], atol=1e-4)
    np.testing.assert_allclose(float(solution["b"]), 0.5, atol=1e-4)


def test_maxiter_bounds_the_steps(answer):
    x, steps = answer.minimize(rosenbrock, jnp.array([-1.2, 1.0]), maxiter=3, tol=1e-12)
    assert int(steps) == 3
    assert float(rosenbrock(x)) < float(rosenbrock(jnp.array([-1.2, 1.0]))), "three steps did not descend"
