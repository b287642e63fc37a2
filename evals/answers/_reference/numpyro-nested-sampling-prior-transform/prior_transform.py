"""Nested sampling's prior transform: column i of the unit cube through prior i's inverse CDF."""

import jax
import jax.numpy as jnp


def prior_transform(priors: dict, cube: jax.Array) -> dict[str, jax.Array]:
    cube = jnp.asarray(cube)
    return {name: prior.icdf(cube[:, i]) for i, (name, prior) in enumerate(priors.items())}
