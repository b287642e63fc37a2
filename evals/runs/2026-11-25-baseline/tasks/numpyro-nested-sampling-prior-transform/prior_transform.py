"""Prior transform for nested sampling from NumPyro distribution objects.

Nested samplers draw u ~ Uniform(0, 1)^k and need theta_i = F_i^{-1}(u_i), the quantile function of
each prior. NumPyro distributions expose it as ``Distribution.icdf``; Uniform, SoftLaplace and
AsymmetricLaplace all implement it, so the transform just evaluates each prior's own ``icdf`` on its
column of the cube. Because it only relies on ``icdf``, priors can be swapped freely, and the whole
function is traceable (jit / vmap friendly).

If a prior you swap in does not implement ``icdf`` but has a ``cdf``, a numerical inversion of its CDF
(bisection in the unconstrained space of its support) is used as a fallback.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpyro.distributions as dist
from numpyro.distributions.transforms import biject_to


def _icdf_by_bisection(d: dist.Distribution, u: jax.Array, num_iter: int = 200) -> jax.Array:
    """Invert d.cdf numerically: solve cdf(T(z)) = u for z with T = biject_to(support) (increasing)."""
    transform = biject_to(d.support)

    def cdf_z(z):
        return d.cdf(transform(z))

    # Grow a bracket [lo, hi] around the root, then bisect.
    def grow(state):
        lo, hi, _ = state
        lo = jnp.where(cdf_z(lo) > u, 2.0 * lo - 1.0, lo)
        hi = jnp.where(cdf_z(hi) < u, 2.0 * hi + 1.0, hi)
        return lo, hi, 0

    lo = jnp.full_like(u, -1.0)
    hi = jnp.full_like(u, 1.0)
    for _ in range(12):  # brackets up to roughly +-4e3 in z
        lo, hi, _ = grow((lo, hi, 0))

    def bisect(_, bounds):
        lo, hi = bounds
        mid = 0.5 * (lo + hi)
        below = cdf_z(mid) < u
        return jnp.where(below, mid, lo), jnp.where(below, hi, mid)

    lo, hi = jax.lax.fori_loop(0, num_iter, bisect, (lo, hi))
    return transform(0.5 * (lo + hi))


def _quantile(d: dist.Distribution, u: jax.Array) -> jax.Array:
    try:
        return d.icdf(u)
    except NotImplementedError:
        return _icdf_by_bisection(d, u)


def prior_transform(priors: dict, cube: jax.Array) -> dict:
    """{name: icdf of priors[name] at column i of cube}, i = position of name in priors.

    priors: univariate NumPyro distributions, in parameter order.
    cube: (n, len(priors)) array with values in (0, 1).
    """
    cube = jnp.asarray(cube)
    if cube.ndim != 2 or cube.shape[1] != len(priors):
        raise ValueError(f"cube must have shape (n, {len(priors)}), got {cube.shape}")
    return {name: _quantile(d, cube[:, i]) for i, (name, d) in enumerate(priors.items())}
