"""Eight schools, non-centred: theta = mu + tau * z with z ~ Normal(0, 1), written by LocScaleReparam(0)."""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer.reparam import LocScaleReparam


def centred(sigma: jax.Array, y: jax.Array | None = None) -> None:
    """The model as written: theta_j ~ Normal(mu, tau), a funnel when tau is small."""
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
    with numpyro.plate("school", sigma.shape[0]):
        theta = numpyro.sample("theta", dist.Normal(mu, tau))
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)


# centered=0 decentres fully; `theta` stays in the samples as a deterministic site.
model = numpyro.handlers.reparam(centred, config={"theta": LocScaleReparam(centered=0)})
