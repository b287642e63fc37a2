"""Grade `running_stats.running_mean_var`: running mean and variance for float and integer data."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def reference(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of xs[:i+1] for every i, in float64."""
    data = xs.astype(np.float64)
    counts = np.arange(1, data.shape[0] + 1)[:, None]
    means = np.cumsum(data, axis=0) / counts
    variances = np.cumsum(data**2, axis=0) / counts - means**2
    return means, variances


def data(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    if dtype == "int32":
        return rng.integers(-20, 20, size=(9, 3)).astype(np.int32)
    return rng.normal(1.5, 2.0, size=(9, 3)).astype(np.float32)


def check(result: tuple[jax.Array, jax.Array], xs: np.ndarray) -> None:
    means, variances = result
    want_means, want_variances = reference(xs)
    for name, got, want in [("means", means, want_means), ("variances", variances, want_variances)]:
        assert got.shape == xs.shape, f"{name} has shape {got.shape}, expected {xs.shape}"
        assert got.dtype == jnp.float32, f"{name} has dtype {got.dtype}, expected float32"
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_values_match_numpy(answer, dtype):
    xs = data(dtype)
    check(answer.running_mean_var(jnp.asarray(xs)), xs)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_values_match_numpy_under_jit(answer, dtype):
    xs = data(dtype)
    check(jax.jit(answer.running_mean_var)(jnp.asarray(xs)), xs)
