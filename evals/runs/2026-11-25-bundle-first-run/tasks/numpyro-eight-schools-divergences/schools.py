"""Eight schools, non-centred: the same model and priors, a geometry NUTS can sample.

Why the centred model diverges: with ``theta_j ~ Normal(mu, tau)`` sampled directly, the scale of the
``theta_j`` is ``tau``, and the posterior spreads ``tau`` over orders of magnitude. Near small ``tau``
the ``theta_j`` are squeezed into a narrow neck (Neal's funnel); NUTS adapts a single step size, which
overshoots there, and those trajectories are reported as divergent transitions. The sampler rarely
enters the neck, so ``tau``'s chains disagree (R-hat > 1.05).

The non-centred form samples standardised effects and rebuilds ``theta`` from them::

    theta_decentered_j ~ Normal(0, 1)
    theta_j = mu + tau * theta_decentered_j          (recorded with numpyro.deterministic)

``theta_j`` still has exactly the distribution ``Normal(mu, tau)`` given ``mu`` and ``tau``, so it is the
same joint model with the same priors and likelihood; only the coordinates NUTS moves in change. The
standardised effects have unit scale whatever ``tau`` is, so one step size fits everywhere. This is the
rewrite ``numpyro.infer.reparam.LocScaleReparam(centered=0)`` performs (and it uses the same site
name, ``theta_decentered``). ``theta`` is a deterministic site, so MCMC's posterior samples contain it
with shape ``(num_draws, len(sigma))`` next to ``mu``, ``tau`` and ``theta_decentered``.

Usage::

    y = jnp.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sigma = jnp.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    mcmc = MCMC(NUTS(model), num_warmup=1000, num_samples=1000, num_chains=4)
    mcmc.run(jax.random.key(0), sigma, y, extra_fields=("diverging",))
    mcmc.get_extra_fields()["diverging"].sum()      # 0, or very rarely a handful
    mcmc.get_samples()["theta"].shape               # (4000, 8)

If a stray divergence remains in a long run, raise ``NUTS(model, target_accept_prob=0.95)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist


def model(sigma: jax.Array, y: jax.Array | None = None) -> None:
    """Eight schools (any number of schools), non-centred parameterisation.

    mu ~ Normal(0, 5), tau ~ HalfCauchy(5), theta_j ~ Normal(mu, tau) (via standardised effects),
    y_j ~ Normal(theta_j, sigma_j) at the observed site ``"obs"``.
    """
    sigma = jnp.asarray(sigma)
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
    with numpyro.plate("school", sigma.shape[0]):
        theta_decentered = numpyro.sample("theta_decentered", dist.Normal(0.0, 1.0))
        theta = numpyro.deterministic("theta", mu + tau * theta_decentered)
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)
