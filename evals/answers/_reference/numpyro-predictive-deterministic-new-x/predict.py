"""Predictions at new inputs with Predictive, which recomputes deterministic sites from their parents."""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y ~ Normal(alpha + beta * x, sigma), with the line recorded as `mean`."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def predict(rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x_new: jax.Array) -> dict[str, jax.Array]:
    """The line and simulated observations at x_new, one row per posterior draw."""
    predictive = Predictive(model, posterior_samples=posterior_samples, return_sites=["mean", "obs"])
    return predictive(rng_key, x_new)
