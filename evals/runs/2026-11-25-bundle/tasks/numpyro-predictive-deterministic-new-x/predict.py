"""Regression with a deterministic regression line, and predictions at new inputs.

Why the hand-written loop fails: `numpyro.handlers.substitute(model, draw)` also substitutes
deterministic sites. The draw's stored "mean" was computed at the *training* x, so with a different
number of new points the stored line cannot broadcast against x_new (the broadcasting error), and
with the same number of points the stale training line comes back silently.

The fix: substitute only the latent sample sites (alpha, beta, sigma) and let the model recompute
"mean" from them at x_new. `numpyro.infer.Predictive` does exactly that with its default
`condition_deterministic=False`; the stored "mean" is also dropped from the draws below, so the
result does not depend on that default.
"""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive

_LATENT_SITES = ("alpha", "beta", "sigma")


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(alpha + beta * x_i, sigma), with the line recorded as "mean"."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def predict(
    rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x_new: jax.Array
) -> dict[str, jax.Array]:
    """The line and simulated observations at x_new: {"mean", "obs"}, each (num_draws, len(x_new))."""
    latents = {name: posterior_samples[name] for name in _LATENT_SITES}  # drop the stale "mean"
    predictive = Predictive(
        model,
        posterior_samples=latents,
        return_sites=["mean", "obs"],
        condition_deterministic=False,  # recompute deterministic sites at the new inputs
    )
    out = predictive(rng_key, x_new)  # no y: "obs" is simulated
    return {"mean": out["mean"], "obs": out["obs"]}
