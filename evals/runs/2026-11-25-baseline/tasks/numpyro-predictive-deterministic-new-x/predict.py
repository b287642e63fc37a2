"""Predictions of a NumPyro regression at new inputs.

Why the hand-written prediction broke
-------------------------------------
MCMC's samples include the deterministic site "mean", shape (num_draws, num_training_points).
Substituting a whole draw into the model (`handlers.substitute(model, draw)`) also replaces
`numpyro.deterministic("mean", alpha + beta * x_new)` by the *training* mean, so the model either
fails to broadcast it against x_new or silently returns the line at the training inputs.

Deterministic sites are functions of the latent draws, so they must be recomputed, not substituted:
keep only the latent sites ("alpha", "beta", "sigma"), and run the model at x_new with y=None through
`Predictive`, which recomputes "mean" at x_new and samples "obs" there.
"""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive

_LATENT_SITES = ("alpha", "beta", "sigma")


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    x = jnp.asarray(x)
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def predict(
    rng_key: jax.Array,
    posterior_samples: dict[str, jax.Array],
    x_new: jax.Array,
) -> dict[str, jax.Array]:
    """Regression line and simulated observations at x_new, one row per posterior draw.

    Returns {"mean": (num_draws, len(x_new)), "obs": (num_draws, len(x_new))}.
    """
    x_new = jnp.asarray(x_new)
    # Drop "mean" (and anything else that is not a latent parameter): it is recomputed at x_new.
    latent = {name: posterior_samples[name] for name in _LATENT_SITES}
    predictive = Predictive(model, posterior_samples=latent, return_sites=["mean", "obs"])
    out = predictive(rng_key, x_new, None)
    return {"mean": out["mean"], "obs": out["obs"]}


if __name__ == "__main__":
    from numpyro.infer import MCMC, NUTS

    k_x, k_noise, k_mcmc, k_pred = jax.random.split(jax.random.key(0), 4)
    x = jax.random.normal(k_x, (40,))
    y = 1.0 + 2.0 * x + 0.3 * jax.random.normal(k_noise, (40,))
    mcmc = MCMC(NUTS(model), num_warmup=300, num_samples=300)
    mcmc.run(k_mcmc, x, y)
    pred = predict(k_pred, mcmc.get_samples(), jnp.linspace(-3.0, 3.0, 7))
    print({k: v.shape for k, v in pred.items()})  # {'mean': (300, 7), 'obs': (300, 7)}
