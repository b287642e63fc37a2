"""Simulate observations from edited values of a numpyro.deterministic site with Predictive.

Predictive recomputes deterministic sites from their parents by default (numpyro 0.22.0:
`condition_deterministic=False`), so an edited "mean" in the posterior samples is ignored and
"obs" follows alpha + beta * x. With `condition_deterministic=True` the "mean" draws are
substituted: numpyro.deterministic returns the supplied value, and "obs" is drawn around it.
(`condition_deterministic=True` is the current name of the old `exclude_deterministic=False`,
which still works but warns with a FutureWarning.)
"""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(alpha + beta * x_i, sigma), with the mean recorded as the deterministic "mean"."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def simulate_with_means(
    rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x: jax.Array, means: jax.Array
) -> jax.Array:
    """obs of shape (D, len(x)) with obs[d] ~ Normal(means[d], sigma[d]), simulated by Predictive.

    posterior_samples: "alpha", "beta", "sigma" (D,) and "mean" (D, len(x)) as MCMC returns them;
    means: (D, len(x)) scenario means replacing the "mean" draws. Called without y, so "obs" is
    simulated rather than returned as the data.
    """
    means = jnp.asarray(means)
    num_draws = posterior_samples["sigma"].shape[0]
    if means.shape != (num_draws, x.shape[0]):
        raise ValueError(f"means must have shape {(num_draws, x.shape[0])}, got {means.shape}")
    edited = {**posterior_samples, "mean": means}
    predictive = Predictive(
        model,
        posterior_samples=edited,
        condition_deterministic=True,  # use the supplied "mean", do not recompute alpha + beta * x
        return_sites=["obs"],
    )
    return predictive(rng_key, x)["obs"]
