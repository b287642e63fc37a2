"""Linear regression and posterior predictive replicated data sets.

Why your "simulated" data equal y: an observed site stays observed under Predictive. Calling
`Predictive(model, posterior_samples=samples)(key, x, y)` passes y as `obs=y`, so every returned
draw of "obs" *is* y (num_draws copies of the data, nothing simulated). Call the model without y
(y=None): then "obs" is a sample site, and Predictive draws it from
Normal(alpha_s + beta_s * x, sigma_s) for each posterior draw s.
"""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(alpha + beta * x_i, sigma)."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(alpha + beta * x, sigma), obs=y)


def replicated_data(
    rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x: jax.Array, y: jax.Array
) -> jax.Array:
    """One simulated data set per posterior draw, shape (num_draws, len(x)).

    `y` is accepted only so that the caller can keep it next to the replicates for the check
    (e.g. compare jnp.std(y) with jnp.std(rep, axis=1)); it is deliberately NOT passed to the
    model, because passing it would return y itself instead of simulated data.
    """
    del y  # never condition the predictive on the data
    latents = {name: posterior_samples[name] for name in ("alpha", "beta", "sigma")}
    predictive = Predictive(model, posterior_samples=latents, return_sites=["obs"])
    return predictive(rng_key, x)["obs"]  # y=None: "obs" is sampled, not observed
