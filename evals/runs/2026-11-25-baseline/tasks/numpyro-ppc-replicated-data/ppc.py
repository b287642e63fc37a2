"""Posterior predictive check for a NumPyro linear regression.

Why the "simulated" data looked exactly like the observed data
----------------------------------------------------------------
`Predictive(model, posterior_samples=samples)(key, x, y)` runs the model with `y` passed in, so the
site "obs" is still an *observed* site: `numpyro.sample("obs", ..., obs=y)` just returns `y`, and
Predictive hands that back for every draw. To simulate replicated data, run the model with
`y=None`, so that "obs" becomes a latent site that Predictive samples from
Normal(alpha_s + beta_s * x, sigma_s) for each posterior draw s.
"""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive

_PARAM_SITES = ("alpha", "beta", "sigma")


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    x = jnp.asarray(x)
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mu = alpha + beta * x
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mu, sigma), obs=y)


def replicated_data(
    rng_key: jax.Array,
    posterior_samples: dict[str, jax.Array],
    x: jax.Array,
    y: jax.Array,
) -> jax.Array:
    """One simulated data set per posterior draw, shape (num_draws, len(x)).

    `y` is the observed data the replicates are to be compared with; it is deliberately *not* passed
    to the model (passing it would make "obs" observed and return `y` itself).
    """
    x = jnp.asarray(x)
    if y is not None and jnp.shape(y)[0] != x.shape[0]:
        raise ValueError("x and y must have the same length")
    # Only the latent parameters are substituted; if the samples dict also carried an "obs" entry
    # it would otherwise pin the site again.
    samples = {name: posterior_samples[name] for name in _PARAM_SITES}
    predictive = Predictive(model, posterior_samples=samples, return_sites=["obs"])
    return predictive(rng_key, x, None)["obs"]  # y=None -> "obs" is sampled, not observed


if __name__ == "__main__":
    from numpyro.infer import MCMC, NUTS

    key = jax.random.key(0)
    k_x, k_noise, k_mcmc, k_ppc = jax.random.split(key, 4)
    x = jax.random.normal(k_x, (50,))
    y = 1.0 + 2.0 * x + 0.5 * jax.random.normal(k_noise, (50,))

    mcmc = MCMC(NUTS(model), num_warmup=500, num_samples=500)
    mcmc.run(k_mcmc, x, y)
    y_rep = replicated_data(k_ppc, mcmc.get_samples(), x, y)
    print(y_rep.shape, bool(jnp.allclose(y_rep[0], y)))  # (500, 50) False
