"""Grade `prior_transform.prior_transform`: unit-cube points mapped through each prior's quantile function."""

import jax
import jax.numpy as jnp
import numpy as np
import numpyro.distributions as dist


def priors() -> dict:
    return {
        "offset": dist.Uniform(-2.0, 3.0),
        "slope": dist.SoftLaplace(1.0, 0.5),
        "skew": dist.AsymmetricLaplace(0.0, 1.0, 2.0),
    }


def cube(n: int = 64) -> jax.Array:
    return jax.random.uniform(jax.random.key(0), (n, 3), minval=0.01, maxval=0.99)


def test_quantiles_of_each_prior(answer):
    u = cube()
    out = answer.prior_transform(priors(), u)
    assert set(out) == {"offset", "slope", "skew"}
    np.testing.assert_allclose(np.asarray(out["offset"]), -2.0 + 5.0 * np.asarray(u[:, 0]), rtol=1e-5, atol=1e-6)
    for i, (name, prior) in enumerate(priors().items()):
        values = jnp.asarray(out[name])
        assert values.shape == (64,), (name, values.shape)
        # the quantile function inverts the CDF: cdf(transform(u)) == u
        np.testing.assert_allclose(np.asarray(prior.cdf(values)), np.asarray(u[:, i]), rtol=1e-4, atol=1e-5)


def test_medians_and_order(answer):
    u = jnp.tile(jnp.array([[0.25], [0.5], [0.75]]), (1, 3))
    out = answer.prior_transform(priors(), u)
    np.testing.assert_allclose(float(out["slope"][1]), 1.0, atol=1e-5)  # SoftLaplace is symmetric about loc
    for name in out:
        assert np.all(np.diff(np.asarray(out[name])) > 0), f"{name}: quantiles do not increase with u"
