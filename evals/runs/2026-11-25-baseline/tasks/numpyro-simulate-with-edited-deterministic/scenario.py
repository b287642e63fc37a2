"""Simulate observations of a NumPyro regression from edited ("scenario") means.

Why the edited means were ignored
---------------------------------
`numpyro.infer.Predictive` ignores deterministic sites found in `posterior_samples` by default
(`exclude_deterministic=True`): it recomputes `numpyro.deterministic("mean", alpha + beta * x)` from
the substituted alpha and beta, so "obs" follows alpha + beta * x whatever you put under "mean".

With `exclude_deterministic=False`, Predictive substitutes the "mean" values too: the
`numpyro.deterministic` call then returns your scenario mean, and "obs" is sampled from
Normal(means[d], sigma[d]) for each draw d. Pass y=None so that "obs" is sampled, not observed.
"""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    x = jnp.asarray(x)
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
    """obs[d] ~ Normal(means[d], sigma[d]); returns shape (D, len(x))."""
    x = jnp.asarray(x)
    means = jnp.asarray(means)
    num_draws = posterior_samples["sigma"].shape[0]
    if means.shape != (num_draws, x.shape[0]):
        raise ValueError(
            f"means must have shape {(num_draws, x.shape[0])} (draws, len(x)), got {means.shape}"
        )
    samples = {
        "alpha": posterior_samples["alpha"],
        "beta": posterior_samples["beta"],
        "sigma": posterior_samples["sigma"],
        "mean": means,
    }
    predictive = Predictive(
        model,
        posterior_samples=samples,
        return_sites=["obs"],
        exclude_deterministic=False,  # use the edited "mean" draws instead of recomputing them
    )
    return predictive(rng_key, x, None)["obs"]


if __name__ == "__main__":
    from numpyro.infer import MCMC, NUTS

    k_x, k_noise, k_mcmc, k_sim = jax.random.split(jax.random.key(0), 4)
    x = jax.random.normal(k_x, (30,))
    y = 1.0 + 2.0 * x + 0.3 * jax.random.normal(k_noise, (30,))
    mcmc = MCMC(NUTS(model), num_warmup=300, num_samples=300)
    mcmc.run(k_mcmc, x, y)
    samples = mcmc.get_samples()
    scenario = samples["mean"] + 100.0  # shift every line up by 100
    obs = simulate_with_means(k_sim, samples, x, scenario)
    print(obs.shape, float(jnp.mean(obs - scenario)))  # (300, 30) ~0.0
