"""Grade `scenario.simulate_with_means`: observations simulated from the edited `mean` draws.

The library's own result is the reference: the same key through numpyro's Predictive conditioned on the
edited deterministic site. Deprecated keywords (numpyro warns with FutureWarning) fail the grade.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.infer import Predictive

pytestmark = pytest.mark.filterwarnings("error::FutureWarning")

DRAWS, N = 40, 6


def posterior(x: jax.Array) -> dict:
    """Fake posterior draws of `model`, with the deterministic site as MCMC stores it."""
    k1, k2 = jax.random.split(jax.random.key(1))
    alpha = 1.0 + 0.1 * jax.random.normal(k1, (DRAWS,))
    beta = 2.0 + 0.1 * jax.random.normal(k2, (DRAWS,))
    sigma = jnp.full((DRAWS,), 0.05)
    return {"alpha": alpha, "beta": beta, "sigma": sigma, "mean": alpha[:, None] + beta[:, None] * x}


def scenario_means() -> jax.Array:
    return jnp.tile(jnp.arange(N, dtype=jnp.float32) * 10.0, (DRAWS, 1)) + jnp.arange(DRAWS)[:, None]


def test_observations_follow_the_edited_means(answer):
    x = jnp.linspace(0.0, 1.0, N)
    samples, means = posterior(x), scenario_means()
    obs = np.asarray(answer.simulate_with_means(jax.random.key(0), samples, x, means))
    assert obs.shape == (DRAWS, N)
    residual = obs - np.asarray(means)
    assert np.abs(residual).max() < 0.5, "the simulations do not follow the edited means (recomputed from alpha, beta?)"
    assert 0.02 < residual.std() < 0.1, f"spread {residual.std():.3f}: sigma is 0.05"


def test_same_draws_as_numpyro_predictive(answer):
    x = jnp.linspace(-1.0, 1.0, N)
    samples, means = posterior(x), scenario_means()
    key = jax.random.key(7)
    want = Predictive(answer.model, posterior_samples={**samples, "mean": means},
                      condition_deterministic=True)(key, x)["obs"]
    got = answer.simulate_with_means(key, samples, x, means)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
