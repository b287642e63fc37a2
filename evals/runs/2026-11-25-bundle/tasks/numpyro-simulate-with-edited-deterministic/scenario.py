"""Regression with a deterministic mean, and simulation from edited (scenario) means.

Why the edits were ignored: in numpyro 0.22.0 `Predictive` recomputes deterministic sites from their
parents by default (`condition_deterministic=False`; in older releases the same default was spelled
`exclude_deterministic=True`). Your edited "mean" draws were thrown away, "mean" was recomputed as
alpha + beta * x, and "obs" was drawn around that.

With `condition_deterministic=True`, Predictive substitutes the stored values of deterministic sites
as well: `numpyro.deterministic("mean", ...)` then returns your scenario mean, and "obs" downstream is
drawn from Normal(means[d], sigma[d]). Call the model without y so that "obs" is simulated, not
returned as the data.
"""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(mean_i, sigma) with mean = alpha + beta * x recorded as a deterministic site."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def simulate_with_means(
    rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x: jax.Array, means: jax.Array
) -> jax.Array:
    """Simulated "obs" of shape (D, len(x)) with obs[d] ~ Normal(means[d], sigma[d])."""
    num_draws = posterior_samples["sigma"].shape[0]
    if means.shape != (num_draws, x.shape[0]):
        raise ValueError(f"means must have shape {(num_draws, x.shape[0])}, got {means.shape}")
    edited = {**posterior_samples, "mean": means}  # replace the MCMC "mean" draws
    predictive = Predictive(
        model,
        posterior_samples=edited,
        return_sites=["obs"],
        condition_deterministic=True,  # use the stored (edited) "mean" instead of recomputing it
    )
    return predictive(rng_key, x)["obs"]  # no y: "obs" is simulated
