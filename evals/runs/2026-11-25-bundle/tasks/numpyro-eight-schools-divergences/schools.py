"""Eight schools, non-centred, so that NUTS samples it without divergences.

Same priors and likelihood as the centred model

    mu ~ Normal(0, 5),  tau ~ HalfCauchy(5),  theta_j ~ Normal(mu, tau),  y_j ~ Normal(theta_j, sigma_j)

but theta is written as theta_j = mu + tau * theta_raw_j with theta_raw_j ~ Normal(0, 1). That is the
same distribution for theta_j, so the posterior is unchanged. What changes is the geometry NUTS sees:
in the centred form theta_j lives on the scale tau, and when tau is small the posterior narrows into
a funnel whose neck no single adapted step size can traverse (the divergences, and the poor R-hat of
tau). theta_raw_j has unit scale whatever tau is, so one step size fits everywhere.

theta is recorded with numpyro.deterministic, so MCMC's samples still hold "theta" (shape (J,) per
draw) next to "mu", "tau" and the auxiliary "theta_raw".

Usage:

    mcmc = MCMC(NUTS(model), num_warmup=1000, num_samples=1000, num_chains=4)
    mcmc.run(jax.random.key(0), sigma, y, extra_fields=("diverging",))
    mcmc.get_samples()["theta"].shape   # (4000, 8)
    int(mcmc.get_extra_fields()["diverging"].sum())   # expect 0 (at most a rare one)

If a stray divergence still shows up, raise the acceptance target: NUTS(model, target_accept_prob=0.95).
"""

import jax
import numpyro
import numpyro.distributions as dist


def model(sigma: jax.Array, y: jax.Array | None = None) -> None:
    """Non-centred eight-schools model for len(sigma) schools; observed site "obs"."""
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
    with numpyro.plate("school", sigma.shape[0]):
        theta_raw = numpyro.sample("theta_raw", dist.Normal(0.0, 1.0))
        # theta_j = mu + tau * theta_raw_j  ~  Normal(mu, tau): the same prior as the centred model.
        theta = numpyro.deterministic("theta", mu + tau * theta_raw)
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)


# Equivalent, without touching the centred model's code:
#
#     from numpyro.handlers import reparam
#     from numpyro.infer.reparam import LocScaleReparam
#     model = reparam(centred_model, config={"theta": LocScaleReparam(centered=0)})
#
# Note centered=0: LocScaleReparam() without it makes the degree of centring a learnable param
# initialised at 0.5, which NUTS never moves, so the model would stay half-centred.
