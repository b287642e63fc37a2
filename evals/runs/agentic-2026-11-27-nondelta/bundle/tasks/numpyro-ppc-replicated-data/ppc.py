"""Linear regression in NumPyro and a posterior predictive check that really simulates data.

Why your "simulated" data looked exactly like y: an observed site stays observed under
``Predictive``. Calling ``Predictive(model, posterior_samples=samples)(key, x, y)`` runs the model
with ``obs=y``, so every "draw" of ``obs`` *is* ``y`` (num_draws copies of the data). For replicated
data, call the model without ``y`` (``y=None``): ``obs`` is then sampled from
Normal(alpha_s + beta_s * x, sigma_s) for each posterior draw s.
"""

from __future__ import annotations

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive

LATENT_SITES = ("alpha", "beta", "sigma")


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(alpha + beta * x_i, sigma); y=None makes it generative."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(alpha + beta * x, sigma), obs=y)


def replicated_data(
    rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x: jax.Array, y: jax.Array
) -> jax.Array:
    """One simulated data set per posterior draw, shape (num_draws, len(x)).

    ``y`` is what the replicated data sets are compared with; it is deliberately NOT passed to the
    model, since that would condition ``obs`` on it and return copies of ``y``.
    """
    del y  # only for the comparison, never for the simulation
    # Keep only the latent sites: a stray "obs" entry would also pin the site to fixed values.
    latents = {name: posterior_samples[name] for name in LATENT_SITES}
    predictive = Predictive(model, posterior_samples=latents, return_sites=["obs"])
    return predictive(rng_key, x)["obs"]


if __name__ == "__main__":
    import jax.numpy as jnp
    from numpyro.infer import MCMC, NUTS

    kx, knoise, kmcmc, kppc = jax.random.split(jax.random.key(0), 4)
    x = jax.random.normal(kx, (50,))
    y = 1.0 + 2.0 * x + 0.5 * jax.random.normal(knoise, (50,))

    mcmc = MCMC(NUTS(model), num_warmup=300, num_samples=300, progress_bar=False)
    mcmc.run(kmcmc, x, y)
    samples = mcmc.get_samples()

    yrep = replicated_data(kppc, samples, x, y)
    assert yrep.shape == (300, 50)
    assert not bool(jnp.any(yrep == y))  # simulated, not copies of y
    wrong = Predictive(model, posterior_samples=samples)(kppc, x, y)["obs"]
    assert bool(jnp.all(wrong == y))  # the original call: 300 copies of the data

    # Draw s really comes from Normal(alpha_s + beta_s * x, sigma_s): standardised residuals ~ N(0, 1).
    z = (yrep - (samples["alpha"][:, None] + samples["beta"][:, None] * x)) / samples["sigma"][:, None]
    print(f"standardised residuals: mean {float(z.mean()):.3f}, sd {float(z.std()):.3f}")
    assert abs(float(z.mean())) < 0.05 and abs(float(z.std()) - 1) < 0.05

    # The check itself: the data's spread against the replicated data sets' spreads.
    sd_rep = jnp.std(yrep, axis=1)
    p = float(jnp.mean(sd_rep >= jnp.std(y)))
    print(f"sd(y) = {float(jnp.std(y)):.3f}; replicated sd median {float(jnp.median(sd_rep)):.3f}; p = {p:.2f}")
