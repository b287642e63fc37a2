"""Posterior predictions at new inputs for a NumPyro regression with a deterministic site.

Why the old code failed: MCMC stores the deterministic site "mean" at the *training* inputs, shape
(num_draws, num_training_points). Substituting a whole draw into the model (``handlers.substitute``
handles deterministic sites too, as does ``Predictive(..., condition_deterministic=True)``) puts that
stored line back: with a different number of new points it breaks with "Incompatible shapes for
broadcasting", with the same number it silently returns the training line.

Fix: substitute only the latent sample sites (alpha, beta, sigma) and let the model recompute "mean"
from them at x_new. ``Predictive`` does that with its default ``condition_deterministic=False``;
the stored "mean" is also dropped from the draws, so nothing stale can come back.
"""

from __future__ import annotations

import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive

LATENT_SITES = ("alpha", "beta", "sigma")


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    """y_i ~ Normal(alpha + beta * x_i, sigma); the line is recorded as the deterministic site "mean"."""
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def predict(
    rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x_new: jax.Array
) -> dict[str, jax.Array]:
    """The regression line and simulated observations at x_new, one row per posterior draw.

    Returns {"mean": (num_draws, len(x_new)), "obs": (num_draws, len(x_new))}.
    """
    # Keep only the latent draws: the stored "mean" belongs to the training inputs.
    latents = {name: posterior_samples[name] for name in LATENT_SITES}
    predictive = Predictive(
        model,
        posterior_samples=latents,
        return_sites=["mean", "obs"],
        condition_deterministic=False,  # recompute deterministic sites (the default, made explicit)
    )
    out = predictive(rng_key, x_new)  # y=None: "obs" is simulated, not observed
    return {"mean": out["mean"], "obs": out["obs"]}


if __name__ == "__main__":
    import jax.numpy as jnp
    from numpyro.infer import MCMC, NUTS

    kx, kn = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (100,))
    y = 1.0 + 2.0 * x + 0.5 * jax.random.normal(kn, (100,))

    mcmc = MCMC(NUTS(model), num_warmup=300, num_samples=300, progress_bar=False)
    mcmc.run(jax.random.key(1), x, y)
    samples = mcmc.get_samples()
    print({k: v.shape for k, v in samples.items()})  # mean: (300, 100)

    for n_new in (25, 100):
        x_new = jnp.linspace(-2.0, 2.0, n_new)
        pred = predict(jax.random.key(2), samples, x_new)
        line = samples["alpha"][:, None] + samples["beta"][:, None] * x_new
        assert pred["mean"].shape == pred["obs"].shape == (300, n_new)
        assert jnp.allclose(pred["mean"], line, atol=1e-5)
    print("ok")
