"""Grade `hessdiag.hessian_diagonal`: the exact diagonal on functions whose Hessian is not diagonal."""

import jax
import jax.numpy as jnp
import numpy as np


def coupled_problem(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A symmetric matrix A with large off-diagonal entries, and a point x."""
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(n, n))
    return ((m + m.T) / 2).astype(np.float32), rng.normal(size=n).astype(np.float32)


def coupled(a: jax.Array):
    """f(x) = x.A.x / 2 + sum(sin x): Hessian A - diag(sin x), whose diagonal is diag(A) - sin(x)."""
    return lambda x: 0.5 * x @ (a @ x) + jnp.sum(jnp.sin(x))


def test_diagonal_of_a_coupled_function(answer):
    for n in (6, 40):
        a, x = coupled_problem(n, seed=n)
        got = np.asarray(answer.hessian_diagonal(coupled(jnp.asarray(a)), jnp.asarray(x)))
        assert got.shape == (n,)
        np.testing.assert_allclose(got, np.diag(a) - np.sin(x), rtol=1e-4, atol=1e-4)


def test_separable_function(answer):
    x = jnp.linspace(-2.0, 2.0, 7)
    got = answer.hessian_diagonal(lambda v: jnp.sum(v**3 + jnp.cos(v)), x)
    np.testing.assert_allclose(np.asarray(got), 6 * np.asarray(x) - np.cos(np.asarray(x)), rtol=1e-5, atol=1e-5)


def test_works_under_jit(answer):
    a, x = coupled_problem(5, seed=3)
    f = coupled(jnp.asarray(a))
    got = jax.jit(lambda v: answer.hessian_diagonal(f, v))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), np.diag(a) - np.sin(x), rtol=1e-4, atol=1e-4)
