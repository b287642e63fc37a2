"""Prior transform for nested sampling, built from NumPyro distributions' own quantile functions.

A nested sampler proposes points ``u`` in the unit hypercube; the prior transform maps coordinate
``u_i`` to parameter ``i`` through that prior's quantile function (inverse CDF), so that uniform ``u``
gives parameters distributed exactly as the prior. NumPyro distributions expose it as
``Distribution.icdf(q)``: ``Uniform``, ``SoftLaplace`` and ``AsymmetricLaplace`` implement it (as do
``Normal``, ``Cauchy``, ``Laplace``, ``Logistic``, ``Exponential``, ``Gumbel`` and others), so swapping a
prior is a change to the ``priors`` dict only. Each ``icdf`` is plain ``jax.numpy``, so the transform
works under ``jax.jit`` and ``jax.vmap`` (only ``cube`` is traced; the dict of priors is structure).

Example::

    priors = {
        "offset": dist.Uniform(-5.0, 5.0),
        "slope": dist.SoftLaplace(0.0, 1.0),
        "skew": dist.AsymmetricLaplace(0.0, 1.0, asymmetry=2.0),
    }
    params = prior_transform(priors, cube)      # cube: (n, 3) in (0, 1)
    params["slope"].shape                       # (n,)

Column ``i`` of ``cube`` goes to the ``i``-th prior in the dict's insertion order.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpyro.distributions as dist


def prior_transform(priors: dict[str, dist.Distribution], cube: jax.Array) -> dict[str, jax.Array]:
    """Map unit-cube points to parameters with each prior's inverse CDF.

    Args:
        priors: univariate NumPyro distributions, in parameter order (dict insertion order).
        cube: shape ``(n, len(priors))``, values in ``(0, 1)``.

    Returns:
        ``{name: priors[name].icdf(cube[:, i])}``, each of shape ``(n,)``, ``i`` the position of
        ``name`` in ``priors``.
    """
    cube = jnp.asarray(cube)
    if cube.ndim != 2 or cube.shape[1] != len(priors):
        raise ValueError(f"cube must have shape (n, {len(priors)}), got {cube.shape}")

    params: dict[str, jax.Array] = {}
    for i, (name, prior) in enumerate(priors.items()):
        if prior.event_shape != () or prior.batch_shape != ():
            raise ValueError(
                f"prior {name!r} must be univariate (batch_shape=(), event_shape=()), got "
                f"batch_shape={prior.batch_shape}, event_shape={prior.event_shape}"
            )
        try:
            params[name] = prior.icdf(cube[:, i])
        except NotImplementedError as err:
            raise NotImplementedError(
                f"{type(prior).__name__} (prior {name!r}) has no icdf in NumPyro; pick a prior with a "
                "quantile function or express it as a TransformedDistribution of one that has it"
            ) from err
    return params
