"""Posterior predictive check for a NumPyro linear regression.

Why the old check looked perfect: ``Predictive(model, posterior_samples=samples)(key, x, y)`` passes
the data as ``y``, so the ``obs`` site stays *observed* and every "simulated" draw is ``y`` itself.
For replicated data sets, run ``Predictive`` with ``y`` left out (``y=None``): ``obs`` is then sampled
from Normal(alpha_s + beta_s * x, sigma_s) for each posterior draw s.
"""

from __future__ import annotations

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive

LATENT_SITES = ("alpha", "beta", "sigma")


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(alpha + beta * x_i, sigma), with weakly informative priors."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(alpha + beta * x, sigma), obs=y)


def replicated_data(
    rng_key: jax.Array,
    posterior_samples: dict[str, jax.Array],
    x: jax.Array,
    y: jax.Array,
) -> jax.Array:
    """One simulated data set per posterior draw, shape (num_draws, len(x)).

    ``y`` is accepted only so the call site stays the same; it is deliberately NOT passed to the
    model. Passing it would condition ``obs`` on the data and return ``y`` for every draw.
    Compare the returned data sets with ``y`` (e.g. the spread, ``jnp.std(reps, axis=1)`` vs
    ``jnp.std(y)``).
    """
    del y  # never condition the predictive on the observed data
    # Only the latent draws are substituted; "obs" (and anything else) is simulated.
    latents = {name: posterior_samples[name] for name in LATENT_SITES}
    predictive = Predictive(model, posterior_samples=latents, return_sites=["obs"])
    return predictive(rng_key, x)["obs"]  # y=None -> obs is sampled, not observed


if __name__ == "__main__":
    import jax.numpy as jnp
    from numpyro.infer import MCMC, NUTS

    kx, kn = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (100,))
    y = 1.0 + 2.0 * x + 0.5 * jax.random.normal(kn, (100,))

    mcmc = MCMC(NUTS(model), num_warmup=300, num_samples=300, progress_bar=False)
    mcmc.run(jax.random.key(1), x, y)
    samples = mcmc.get_samples()

    reps = replicated_data(jax.random.key(2), samples, x, y)
    print(reps.shape)  # (300, 100)
    assert reps.shape == (300, 100)
    assert not bool(jnp.any(reps == y))  # genuinely simulated, not copies of y
    print("data sd", float(jnp.std(y)), "replicated sd (median)", float(jnp.median(jnp.std(reps, axis=1))))
