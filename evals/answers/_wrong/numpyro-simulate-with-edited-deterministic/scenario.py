"""The numpyro 0.18 keyword: exclude_deterministic=False to substitute the stored deterministic draws."""

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
    samples = dict(posterior_samples)
    samples["mean"] = jnp.asarray(means)
    predictive = Predictive(model, posterior_samples=samples, exclude_deterministic=False)
    return predictive(rng_key, x)["obs"]
