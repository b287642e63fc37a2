"""Simulate observations from edited deterministic draws: Predictive conditions on them when asked."""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def simulate_with_means(rng_key: jax.Array, posterior_samples: dict, x: jax.Array, means: jax.Array) -> jax.Array:
    samples = {**posterior_samples, "mean": jnp.asarray(means)}
    # By default Predictive ignores deterministic sites in the samples and recomputes them.
    predictive = Predictive(model, posterior_samples=samples, condition_deterministic=True, return_sites=["obs"])
    return predictive(rng_key, x)["obs"]
