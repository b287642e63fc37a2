"""Scenario simulation: Predictive with edited values of a deterministic site."""
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    # numpyro.deterministic returns the site's value; when Predictive substitutes
    # a value for "mean", the model continues with that value.
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def simulate_with_means(rng_key: jax.Array, posterior_samples: dict[str, jax.Array],
                        x: jax.Array, means: jax.Array) -> jax.Array:
    """Simulate "obs" (shape (D, len(x))) with obs[d] ~ Normal(means[d], sigma[d]).

    By default Predictive does not condition on deterministic sites found in
    posterior_samples (condition_deterministic=False) and recomputes them as
    alpha + beta * x, which is why edited means had no effect. With
    condition_deterministic=True the supplied "mean" draws are substituted into
    the model. (The older spelling of this option, exclude_deterministic=False,
    is deprecated in NumPyro 0.22.)
    """
    x = jnp.asarray(x)
    means = jnp.asarray(means)
    samples = dict(posterior_samples)
    samples["mean"] = means
    samples.pop("obs", None)  # never condition the simulation on old simulated data
    predictive = Predictive(
        model,
        posterior_samples=samples,
        return_sites=["obs"],
        condition_deterministic=True,
    )
    return predictive(rng_key, x)["obs"]
