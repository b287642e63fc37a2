"""Eight schools, non-centered: same priors and data, no funnel for NUTS.

In the centered model theta_j ~ Normal(mu, tau) the posterior has Neal's funnel shape: as tau -> 0 the
thetas are squeezed together, and NUTS's single step size cannot handle both the narrow neck and the
wide mouth, hence divergences and poor mixing of tau. The non-centered parameterisation samples
standardized effects theta_std_j ~ Normal(0, 1) and sets theta_j = mu + tau * theta_std_j. This is the
same joint distribution for (mu, tau, theta) (same priors), but the geometry NUTS sees is much
friendlier. ``theta`` is recorded with ``numpyro.deterministic`` so it is still in the samples.

    mcmc = MCMC(NUTS(model), num_warmup=1000, num_samples=1000)
    mcmc.run(jax.random.PRNGKey(0), sigma, y=y)
    mcmc.get_samples()["theta"]  # (num_samples, 8)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist


def model(sigma: jax.Array, y: jax.Array | None = None) -> None:
    sigma = jnp.asarray(sigma)
    num_schools = sigma.shape[0]
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
    with numpyro.plate("schools", num_schools):
        theta_std = numpyro.sample("theta_std", dist.Normal(0.0, 1.0))
        theta = numpyro.deterministic("theta", mu + tau * theta_std)
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)
