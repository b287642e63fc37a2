"""Posterior predictive replicates: run the model forward on the posterior draws with y left out."""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y ~ Normal(alpha + beta * x, sigma)."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(alpha + beta * x, sigma), obs=y)


def replicated_data(rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    """One simulated data set per draw. y is for the comparison only: passing it would return y itself."""
    del y
    return Predictive(model, posterior_samples=posterior_samples)(rng_key, x)["obs"]
