"""LocScaleReparam() with its default: the centring is a param at 0.5, which NUTS does not learn."""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer.reparam import LocScaleReparam


def centred(sigma: jax.Array, y: jax.Array | None = None) -> None:
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
    with numpyro.plate("school", sigma.shape[0]):
        theta = numpyro.sample("theta", dist.Normal(mu, tau))
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)


model = numpyro.handlers.reparam(centred, config={"theta": LocScaleReparam()})
