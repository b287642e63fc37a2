"""Prior transform for a nested sampler, from NumPyro distribution objects.

Each column i of the unit-hypercube sample goes through the quantile function (inverse CDF) of the
i-th prior, taken from the distribution itself: `Distribution.icdf`. Uniform, SoftLaplace and
AsymmetricLaplace all implement it in NumPyro, so swapping priors needs no new formulas.

Some NumPyro distributions do not implement `icdf` (the base class raises NotImplementedError). For
those, the transform falls back to inverting the distribution's own `cdf` numerically (bracketing
then bisection, inside lax loops, so it still works under jit and vmap). If a prior has neither, the
error names it.
"""

import jax
import jax.numpy as jnp
import numpyro.distributions as dist

_BISECTION_STEPS = 200  # halves the bracket each step; float32 converges long before this
_EXPANSION_STEPS = 128  # doubles the bracket each step, up to ~1e38


def _check_univariate(name: str, prior: dist.Distribution) -> None:
    if prior.event_shape != () or prior.batch_shape != ():
        raise ValueError(
            f"prior {name!r} must be univariate (batch_shape=(), event_shape=()), got "
            f"batch_shape={prior.batch_shape}, event_shape={prior.event_shape}"
        )


def _icdf_by_bisection(prior: dist.Distribution, u: jax.Array) -> jax.Array:
    """Quantile by inverting prior.cdf: the x with cdf(x) = u, for a continuous univariate prior."""
    dtype = u.dtype
    support = prior.support
    lower = jnp.asarray(getattr(support, "lower_bound", -jnp.inf), dtype)
    upper = jnp.asarray(getattr(support, "upper_bound", jnp.inf), dtype)
    lower = jnp.broadcast_to(lower, u.shape)
    upper = jnp.broadcast_to(upper, u.shape)

    # Start from a finite bracket inside the support, then widen each unbounded side until it
    # contains the quantile: cdf(lo) <= u <= cdf(hi).
    lo = jnp.where(jnp.isfinite(lower), lower, jnp.where(jnp.isfinite(upper), upper - 1.0, -1.0))
    hi = jnp.where(jnp.isfinite(upper), upper, jnp.where(jnp.isfinite(lower), lower + 1.0, 1.0))
    lo = lo.astype(dtype)
    hi = hi.astype(dtype)

    def widen(_, bracket):
        lo, hi = bracket
        width = hi - lo
        move_lo = jnp.isinf(lower) & (prior.cdf(lo) > u)
        move_hi = jnp.isinf(upper) & (prior.cdf(hi) < u)
        return jnp.where(move_lo, lo - width, lo), jnp.where(move_hi, hi + width, hi)

    lo, hi = jax.lax.fori_loop(0, _EXPANSION_STEPS, widen, (lo, hi))

    def bisect(_, bracket):
        lo, hi = bracket
        mid = lo + 0.5 * (hi - lo)
        below = prior.cdf(mid) < u
        return jnp.where(below, mid, lo), jnp.where(below, hi, mid)

    lo, hi = jax.lax.fori_loop(0, _BISECTION_STEPS, bisect, (lo, hi))
    return lo + 0.5 * (hi - lo)


def _quantile(name: str, prior: dist.Distribution, u: jax.Array) -> jax.Array:
    try:
        return prior.icdf(u)
    except NotImplementedError:
        pass
    try:
        return _icdf_by_bisection(prior, u)
    except NotImplementedError as err:
        raise NotImplementedError(
            f"prior {name!r} ({type(prior).__name__}) implements neither icdf nor cdf"
        ) from err


def prior_transform(priors: dict[str, dist.Distribution], cube: jax.Array) -> dict[str, jax.Array]:
    """Map unit-cube points to parameters through each prior's quantile function.

    priors: univariate NumPyro distributions, in parameter order.
    cube: shape (n, len(priors)), values in (0, 1).
    Returns {name: priors[name].icdf(cube[:, i])}, each of shape (n,).
    """
    cube = jnp.asarray(cube)
    if cube.ndim != 2 or cube.shape[1] != len(priors):
        raise ValueError(f"cube must have shape (n, {len(priors)}), got {cube.shape}")
    out = {}
    for i, (name, prior) in enumerate(priors.items()):
        _check_univariate(name, prior)
        out[name] = _quantile(name, prior, cube[:, i])
    return out


if __name__ == "__main__":
    priors = {
        "a": dist.Uniform(-2.0, 3.0),
        "b": dist.SoftLaplace(0.5, 2.0),
        "c": dist.AsymmetricLaplace(1.0, 0.7, asymmetry=2.0),
    }
    cube = jax.random.uniform(jax.random.key(0), (5, 3), minval=1e-6, maxval=1 - 1e-6)
    params = prior_transform(priors, cube)
    for i, (name, prior) in enumerate(priors.items()):
        # Round trip: the prior's CDF of the transformed value gives back the cube coordinate.
        print(name, jnp.max(jnp.abs(prior.cdf(params[name]) - cube[:, i])))
