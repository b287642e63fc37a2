"""Each prior's inverse CDF, called with the keyword these distributions had in numpyro 0.18 (value=)."""

import jax
import jax.numpy as jnp


def prior_transform(priors: dict, cube: jax.Array) -> dict[str, jax.Array]:
    cube = jnp.asarray(cube)
    return {name: prior.icdf(value=cube[:, i]) for i, (name, prior) in enumerate(priors.items())}
