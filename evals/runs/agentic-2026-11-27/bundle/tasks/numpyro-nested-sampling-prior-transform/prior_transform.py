"""Prior transform for nested sampling from NumPyro distribution objects.

Coordinate i of each unit-hypercube point is mapped through the quantile function (inverse CDF,
`Distribution.icdf`) of the i-th prior, in the insertion order of the `priors` dict. Uniform,
SoftLaplace and AsymmetricLaplace (and e.g. Normal, Cauchy, Exponential, Gumbel, Logistic, ...)
implement `icdf` in NumPyro 0.22; a distribution without one raises NotImplementedError instead of
silently returning wrong values.
"""

import jax
import jax.numpy as jnp
import numpyro.distributions as dist


def prior_transform(priors: dict[str, dist.Distribution], cube: jax.Array) -> dict[str, jax.Array]:
    """Map cube of shape (n, len(priors)), values in (0, 1), to {name: values of shape (n,)}.

    values = priors[name].icdf(cube[:, i]), i being the position of name in priors.
    Pure jax.numpy: works under jax.jit and jax.vmap.
    """
    cube = jnp.asarray(cube)
    if cube.ndim != 2 or cube.shape[1] != len(priors):
        raise ValueError(f"cube must have shape (n, {len(priors)}), got {cube.shape}")
    out = {}
    for i, (name, prior) in enumerate(priors.items()):
        if prior.batch_shape != () or prior.event_shape != ():
            raise ValueError(f"prior {name!r} must be univariate, got batch_shape={prior.batch_shape}, "
                             f"event_shape={prior.event_shape}")
        out[name] = prior.icdf(cube[:, i])
    return out
