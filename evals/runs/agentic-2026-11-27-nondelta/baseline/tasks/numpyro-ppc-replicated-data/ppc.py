"""Linear regression in NumPyro and posterior predictive replicated data.

Why your "simulated" data equalled y: ``Predictive`` runs the model with the
arguments you give it, and when ``y`` is passed the ``"obs"`` site is
*observed* (``obs=y``), so its value is just y, whatever the posterior draw.
To simulate, run the model with ``y=None``: the ``"obs"`` site is then
sampled from ``Normal(alpha_s + beta_s * x, sigma_s)`` for each draw s.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
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

    ``y`` is the observed data the replicates are compared with; it is
    deliberately *not* passed to the model, otherwise "obs" would be
    conditioned on it and every replicate would equal y.
    """
    del y  # only used for the comparison by the caller
    x = jnp.asarray(x)
    # Only the latent parameters drive the simulation; drop anything else
    # (e.g. a stored "obs") so it cannot be substituted into the model.
    params = {k: posterior_samples[k] for k in ("alpha", "beta", "sigma")}
    predictive = Predictive(model, posterior_samples=params, return_sites=["obs"])
    return predictive(rng_key, x, None)["obs"]
