"""The hand-written loop of older tutorials: substitute each draw, deterministic site included, and trace."""

import jax
import numpyro
import numpyro.distributions as dist
from numpyro import handlers


def model(x: jax.Array, y: jax.Array | None = None) -> None:
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 10.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 10.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
    mean = numpyro.deterministic("mean", alpha + beta * x)
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def predict(rng_key: jax.Array, posterior_samples: dict[str, jax.Array], x_new: jax.Array) -> dict[str, jax.Array]:
    def one(key: jax.Array, draw: dict[str, jax.Array]) -> dict[str, jax.Array]:
        trace = handlers.trace(handlers.seed(handlers.substitute(model, draw), key)).get_trace(x_new)
        return {"mean": trace["mean"]["value"], "obs": trace["obs"]["value"]}

    keys = jax.random.split(rng_key, posterior_samples["alpha"].shape[0])
    return jax.vmap(one)(keys, posterior_samples)
