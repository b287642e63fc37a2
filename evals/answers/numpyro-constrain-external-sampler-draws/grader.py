"""Grade `constrain.to_constrained`: unconstrained draws mapped through each site's transform."""

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist

DRAWS = 16


def model(x, y=None):
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(2.0))  # positive: exp transform
    p = numpyro.sample("p", dist.Beta(2.0, 2.0))  # (0, 1): sigmoid transform
    numpyro.deterministic("variance", sigma**2)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("y", dist.Normal(mu + p * x, sigma), obs=y)


def unconstrained_draws():
    k1, k2, k3 = jax.random.split(jax.random.key(3), 3)
    return {"mu": jax.random.normal(k1, (DRAWS,)), "sigma": jax.random.normal(k2, (DRAWS,)),
            "p": 2.0 * jax.random.normal(k3, (DRAWS,))}


def test_constrained_values_and_deterministic_sites(answer):
    x = jnp.linspace(0.0, 1.0, 5)
    y = 1.0 + 0.5 * x
    draws = unconstrained_draws()
    out = answer.to_constrained(model, (x, y), draws)
    np.testing.assert_allclose(np.asarray(out["mu"]), np.asarray(draws["mu"]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out["sigma"]), np.exp(np.asarray(draws["sigma"])), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out["p"]), 1 / (1 + np.exp(-np.asarray(draws["p"]))), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out["variance"]), np.exp(2 * np.asarray(draws["sigma"])), rtol=1e-5)
    assert all(np.shape(out[name]) == (DRAWS,) for name in ("mu", "sigma", "p", "variance"))


def test_model_arguments_are_used(answer):
    def scaled(x, scale):
        tau = numpyro.sample("tau", dist.Uniform(0.0, scale))  # (0, scale): scaled sigmoid
        numpyro.deterministic("twice", 2.0 * tau)
        numpyro.sample("obs", dist.Normal(tau, 1.0), obs=x)

    draws = {"tau": jnp.linspace(-3.0, 3.0, DRAWS)}
    out = answer.to_constrained(scaled, (jnp.ones(3), 10.0), draws)
    want = 10.0 / (1 + np.exp(-np.asarray(draws["tau"])))
    np.testing.assert_allclose(np.asarray(out["tau"]), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out["twice"]), 2 * want, rtol=1e-5)
