"""Scenario simulation: observations from edited values of a deterministic site, with Predictive.

Why the edited means were ignored: in numpyro 0.22 ``Predictive`` recomputes deterministic sites
from their parents by default (``condition_deterministic=False``). Your edited "mean" draws were
thrown away and the model computed alpha + beta * x again, so "obs" followed the fitted line.

Fix: ask ``Predictive`` to substitute the stored deterministic values, ``condition_deterministic=True``
(the old, deprecated spelling was ``exclude_deterministic=False``). Then
``numpyro.deterministic("mean", ...)`` returns the scenario mean of each draw, and "obs" is drawn
from Normal(means[d], sigma[d]). Leave ``y`` out of the call so "obs" is simulated, not observed.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(mean_i, sigma), mean = alpha + beta * x recorded as the deterministic site "mean"."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def simulate_with_means(
    rng_key: jax.Array,
    posterior_samples: dict[str, jax.Array],
    x: jax.Array,
    means: jax.Array,
) -> jax.Array:
    """Simulated "obs", shape (D, len(x)), with obs[d] ~ Normal(means[d], sigma[d])."""
    num_draws = posterior_samples["sigma"].shape[0]
    means = jnp.asarray(means)
    if means.shape != (num_draws, x.shape[0]):
        raise ValueError(f"means must have shape {(num_draws, x.shape[0])}, got {means.shape}")

    edited = {
        "alpha": posterior_samples["alpha"],
        "beta": posterior_samples["beta"],
        "sigma": posterior_samples["sigma"],
        "mean": means,  # the scenario replaces the fitted line
    }
    predictive = Predictive(
        model,
        posterior_samples=edited,
        return_sites=["obs"],
        condition_deterministic=True,  # use the stored (edited) "mean" instead of recomputing it
    )
    return predictive(rng_key, x)["obs"]  # y=None: obs is sampled


if __name__ == "__main__":
    from numpyro.infer import MCMC, NUTS

    kx, kn = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (50,))
    y = 1.0 + 2.0 * x + 0.5 * jax.random.normal(kn, (50,))

    mcmc = MCMC(NUTS(model), num_warmup=300, num_samples=400, progress_bar=False)
    mcmc.run(jax.random.key(1), x, y)
    samples = mcmc.get_samples()

    scenario_means = samples["mean"] + 10.0  # e.g. a shift of +10 everywhere
    obs = simulate_with_means(jax.random.key(2), samples, x, scenario_means)
    assert obs.shape == scenario_means.shape
    # Standardised residuals against the scenario means are ~ N(0, 1).
    z = (obs - scenario_means) / samples["sigma"][:, None]
    print(float(z.mean()), float(z.std()))
    assert abs(float(z.mean())) < 0.05 and abs(float(z.std()) - 1.0) < 0.05
