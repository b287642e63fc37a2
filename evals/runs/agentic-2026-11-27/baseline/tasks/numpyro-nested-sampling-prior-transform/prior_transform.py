"""Prior transform for nested sampling using NumPyro distributions' own quantile functions."""
import jax
import jax.numpy as jnp
import numpyro.distributions as dist


def prior_transform(priors: dict[str, dist.Distribution], cube: jax.Array) -> dict[str, jax.Array]:
    """Map unit-hypercube points to parameters.

    priors: univariate NumPyro distributions, in parameter order (dict order).
    cube:   shape (n, len(priors)), values in (0, 1).
    Returns {name: priors[name].icdf(cube[:, i])}, each of shape (n,).
    """
    cube = jnp.asarray(cube)
    if cube.ndim != 2 or cube.shape[-1] != len(priors):
        raise ValueError(
            f"cube must have shape (n, {len(priors)}), got {cube.shape}"
        )
    out = {}
    for i, (name, prior) in enumerate(priors.items()):
        if prior.batch_shape != () or prior.event_shape != ():
            raise ValueError(f"prior {name!r} must be univariate (scalar batch/event shape)")
        out[name] = prior.icdf(cube[:, i])  # the distribution's own inverse CDF
    return out
